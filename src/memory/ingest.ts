import { InvalidRequestError } from '../errors';
import type { MemoryStore } from '../store/memory-store';
import { repeatedTurn, sameTurn } from '../store/repeated-turn';
import type { NewMessage, Scope, StoredMessage } from '../store/types';

/** How far back a resent history is searched for a turn the store already has. */
const MAX_ANCHOR_ATTEMPTS = 64;
/** How many stored candidates with the same hash are checked per position. */
const MAX_CANDIDATES = 16;
/** How many preceding turns must agree for a stored turn to count as the same place in the tree. */
const VERIFY_DEPTH = 16;

/** What ingesting a request's turns did. */
export interface IngestResult {
  /** The turn the answer will reply to: the last turn of the request, stored now or before. */
  leaf: StoredMessage | null;
  /** Turns stored by this request, oldest first (none for a retry). */
  created: StoredMessage[];
}

/**
 * Stores only what is new in a request's turns (system messages already removed):
 * one turn continues the instance's latest turn; a longer history is matched to the branch
 * it is on by role and content hash, checking the preceding turns too, and only the unseen
 * tail is appended. A retry stores nothing; an edited or regenerated turn becomes a sibling.
 */
export async function ingestTurns(store: MemoryStore, scope: Scope, turns: NewMessage[]): Promise<IngestResult> {
  if (turns.length === 0) {
    return { leaf: await store.latestTurn(scope), created: [] };
  }
  if (turns.length === 1 && turns[0]!.role !== 'tool') {
    // The usual request of a client that sends only its new message: one atomic store step.
    const { message, created } = await store.continueLatest(scope, turns[0]!);
    return { leaf: message, created: created ? [message] : [] };
  }
  // A tool result is checked against the turn it follows before anything is stored.
  const anchor = turns.length === 1 ? await anchorAtLatest(store, scope, turns[0]!) : await findAnchor(store, scope, turns);
  const tail = turns.slice(anchor.matchedCount);
  if (tail.length === 0) return { leaf: anchor.last, created: [] };
  await checkToolResultParent(store, scope, anchor.last, tail[0]!);
  const appended = await store.appendPath(scope, { parentId: anchor.last?.id ?? null, messages: tail });
  return {
    leaf: appended.at(-1)?.message ?? anchor.last,
    created: appended.filter((turn) => turn.created).map((turn) => turn.message),
  };
}

interface Anchor {
  /** The last request turn the store already has: the unseen tail hangs from it (null: a new root). */
  last: StoredMessage | null;
  /** How many leading request turns are already stored. */
  matchedCount: number;
}

/** A single tool result: it continues the latest turn unless it repeats it (repeated-turn.ts). */
async function anchorAtLatest(store: MemoryStore, scope: Scope, turn: NewMessage): Promise<Anchor> {
  const latest = await store.latestTurn(scope);
  const question = latest?.role === 'assistant' && latest.parentId !== null ? await store.getMessage(scope, latest.parentId) : null;
  const repeated = repeatedTurn(latest, question, turn);
  return repeated === null ? { last: latest, matchedCount: 0 } : { last: repeated, matchedCount: 1 };
}

async function findAnchor(store: MemoryStore, scope: Scope, turns: NewMessage[]): Promise<Anchor> {
  const lowest = Math.max(0, turns.length - MAX_ANCHOR_ATTEMPTS);
  for (let position = turns.length - 1; position >= lowest; position--) {
    const turn = turns[position]!;
    const candidates = await store.findByHash(scope, turn.contentHash, MAX_CANDIDATES);
    for (const candidate of candidates) {
      if (candidate.role !== turn.role) continue;
      const depth = Math.min(position, VERIFY_DEPTH);
      const branch = await store.getBranch(scope, candidate.id, { limit: depth + 1 });
      if (!precedingTurnsAgree(branch, turns, position, depth)) continue;
      return { last: candidate, matchedCount: position + 1 };
    }
  }
  return { last: null, matchedCount: 0 };
}

/** Tool results share one assistant turn; more than this many in a row is not a real exchange. */
const MAX_TOOL_RESULTS_IN_A_ROW = 128;

/**
 * A tool result that opens the new turns must answer a call of the stored assistant turn it
 * follows (directly, or after that turn's other results); refusing it before anything is
 * stored keeps a stray result from becoming a turn that no later request can replay.
 */
async function checkToolResultParent(store: MemoryStore, scope: Scope, parent: StoredMessage | null, first: NewMessage): Promise<void> {
  if (first.role !== 'tool') return;
  const callId = first.raw['tool_call_id'];
  let turn = parent;
  for (let step = 0; turn !== null && turn.role === 'tool' && step < MAX_TOOL_RESULTS_IN_A_ROW; step++) {
    turn = turn.parentId === null ? null : await store.getMessage(scope, turn.parentId);
  }
  const calls = turn?.role === 'assistant' && Array.isArray(turn.raw['tool_calls']) ? (turn.raw['tool_calls'] as { id?: unknown }[]) : [];
  if (typeof callId === 'string' && calls.some((call) => call.id === callId)) return;
  throw new InvalidRequestError(
    `The tool message answers tool_call_id ${JSON.stringify(callId)}, which the assistant turn it follows did not call.`,
    { param: 'messages', code: 'invalid_tool_message' },
  );
}

/** branch is leaf first: branch[j] must hash like turns[position - j] for j < depth + 1. */
function precedingTurnsAgree(branch: StoredMessage[], turns: NewMessage[], position: number, depth: number): boolean {
  for (let offset = 1; offset <= depth; offset++) {
    const stored = branch[offset];
    const sent = turns[position - offset];
    // The stored branch may be shorter than what the client sent when the client prepends
    // turns the store never saw; those cannot agree.
    if (!stored || !sent) return false;
    if (!sameTurn(stored, sent)) return false;
  }
  return true;
}
