import { sameScope } from '../scope-key';
import type { Scope, StoredMessage } from '../types';

/** Characters (about bytes) of turn text one generation holds: both full, ~64 MiB of heap. */
const GENERATION_CHARACTERS = 16 * 1024 * 1024;
/** What a cached turn costs beyond its text: the object, its ids, hash and parsed JSON. */
const TURN_OVERHEAD_CHARACTERS = 600;
/** Turns stored at once that `extend` caches at most: a request stores one or a few. */
const MAX_EXTENSION = 64;

/**
 * Turns this process has read or stored, by id, so that a conversation's recent window and the
 * turns its retrieval shows are not read and parsed again on every request (they were an eighth
 * of a loaded proxy's event loop). A stored turn changes only through an edit, a delete or a
 * move of its parent, and every such change, by any process, moves the database's turn epoch
 * (a trigger, schema.ts): the cache empties itself whenever it sees the epoch move.
 *
 * Turns are kept in two generations (see Remembered in count-tokens.ts): a turn read again moves
 * to the newer one, the older one is dropped when the newer fills. Cached turns are shared by
 * every caller, so they are frozen.
 */
export class TurnCache {
  private recent = new Map<string, StoredMessage>();
  private older = new Map<string, StoredMessage>();
  private recentCharacters = 0;
  private epoch: number | undefined;

  constructor(
    private readonly readEpoch: () => number,
    private readonly generationCharacters = GENERATION_CHARACTERS,
  ) {}

  /** Empties the cache if a stored turn changed since the last check; call before reading it. */
  check(): void {
    const epoch = this.readEpoch();
    if (epoch === this.epoch) return;
    this.clear();
    this.epoch = epoch;
  }

  /** Empties the cache: its turns may no longer be stored (a rolled-back commit). */
  clear(): void {
    this.recent = new Map();
    this.older = new Map();
    this.recentCharacters = 0;
  }

  /** The cached turn, or undefined. */
  get(id: string): StoredMessage | undefined {
    const recent = this.recent.get(id);
    if (recent !== undefined) return recent;
    const older = this.older.get(id);
    if (older !== undefined) this.keep(older);
    return older;
  }

  /** Caches turns as read or stored now, and answers them frozen. */
  add(turns: StoredMessage[]): StoredMessage[] {
    for (const turn of turns) this.keep(freeze(turn));
    return turns;
  }

  /**
   * Caches turns just stored below a turn the cache holds: a conversation's new turns, which
   * its next request reads first. Other paths (a bulk load, a long history seen for the first
   * time) are left to be read when asked for: caching them only pushed out the turns in use
   * (a bulk load of 10^6 turns ran 6% slower and its process grew by 110-230 MiB).
   */
  extend(path: StoredMessage[]): void {
    const parentId = path[0]?.parentId;
    if (path.length > MAX_EXTENSION || parentId == null || this.get(parentId) === undefined) return;
    this.add(path);
  }

  /**
   * The branch above `leafId` from the cache, as SqliteStore.getBranch answers it: live turns of
   * the scope, leaf first, up to `limit`, walking through deleted ones and stopping at a chunk or
   * the scope's edge. `missing` is the first turn of the walk not cached (null when the walk
   * ended), from which the caller reads the rest.
   */
  branch(scope: Scope, leafId: string, limit: number): { turns: StoredMessage[]; missing: string | null } {
    const turns: StoredMessage[] = [];
    let id: string | null = leafId;
    while (id !== null && turns.length < limit) {
      const turn = this.get(id);
      if (turn === undefined) return { turns, missing: id };
      if (!sameScope(turn, scope) || turn.isChunk) break;
      if (!turn.deleted) turns.push(turn);
      id = turn.parentId;
    }
    return { turns, missing: null };
  }

  private keep(turn: StoredMessage): void {
    if (this.recentCharacters >= this.generationCharacters) {
      this.older = this.recent;
      this.recent = new Map();
      this.recentCharacters = 0;
    }
    if (this.recent.has(turn.id)) return;
    this.recent.set(turn.id, turn);
    this.recentCharacters += 2 * turn.content.length + TURN_OVERHEAD_CHARACTERS;
  }
}

function freeze(turn: StoredMessage): StoredMessage {
  Object.freeze(turn.raw);
  Object.freeze(turn.metadata);
  Object.freeze(turn.editHistory);
  return Object.freeze(turn);
}
