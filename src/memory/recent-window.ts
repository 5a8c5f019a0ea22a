import type { MemoryStore } from '../store/memory-store';
import type { Scope, StoredMessage } from '../store/types';

/** Most turns fetched per store call while walking a branch back. */
const MAX_PAGE = 256;
/** Fewest turns fetched per store call (a short page costs a round trip more than its rows). */
const MIN_PAGE = 16;

/** The recent turns of a branch chosen for a request. */
export interface RecentWindow {
  /** Oldest first, ending with the leaf. */
  turns: StoredMessage[];
  /** Tokens of the turns in the window. */
  tokens: number;
  /** Tokens of the whole branch up to and including the leaf (evicted turns too). */
  branchTokens: number;
  /** True when older turns of the branch were left out. */
  evicted: boolean;
}

/**
 * Picks the recent window of the branch ending at `leaf` within `windowTokens`. The window's
 * start only moves in blocks of half the window, at offsets fixed along the branch, so
 * consecutive requests keep a byte-identical prefix until the window has to move; then it
 * drops back to about half full. A tool result is never separated from the call that asked for it.
 */
export async function selectRecentWindow(
  store: MemoryStore,
  scope: Scope,
  leaf: StoredMessage,
  windowTokens: number,
): Promise<RecentWindow> {
  const total = leaf.branchTokens;
  const start = blockStart(total, windowTokens);
  const newestFirst: StoredMessage[] = [];
  let tokens = 0;
  let cursor: string | null = leaf.id;
  let reachedStart = false;
  let pageSize = pageFor(total - start, leaf);
  while (cursor !== null && !reachedStart) {
    const page = await store.getBranch(scope, cursor, { limit: pageSize });
    if (page.length === 0) break;
    for (const turn of page) {
      const offset = turn.branchTokens - turn.tokenCount;
      // The leaf always goes in, even alone past the window: the caller decides if it fits at all.
      if (offset < start && turn.id !== leaf.id) {
        reachedStart = true;
        break;
      }
      newestFirst.push(turn);
      tokens += turn.tokenCount;
    }
    const oldest = page.at(-1)!;
    cursor = page.length < pageSize ? null : oldest.parentId;
    pageSize = MAX_PAGE;
  }
  const turns = dropOrphanToolResults(newestFirst.reverse(), leaf.id);
  const kept = turns.reduce((sum, turn) => sum + turn.tokenCount, 0);
  return { turns, tokens: kept, branchTokens: total, evicted: start > 0 || tokens !== kept };
}

/**
 * How many turns to fetch to cover `tokens` of a branch, from the instance's mean turn size (a
 * guess with room to spare; a short guess costs one more page, a long one rows read for nothing).
 */
export function pageFor(tokens: number, reference: StoredMessage): number {
  const meanTurn = reference.branchTokens / Math.max(1, reference.seq);
  const turns = Math.ceil((1.5 * tokens) / Math.max(1, meanTurn)) + 4;
  return Math.min(MAX_PAGE, Math.max(MIN_PAGE, turns));
}

/**
 * The step a window moves by: half the window. Windows start at its multiples and running
 * summaries are stored where they start, so the window and the summary walk must share it.
 */
export function blockSize(windowTokens: number): number {
  return Math.max(1, Math.floor(windowTokens / 2));
}

/** The branch offset where the window starts: a multiple of the block size. */
export function blockStart(branchTokens: number, windowTokens: number): number {
  if (branchTokens <= windowTokens) return 0;
  const block = blockSize(windowTokens);
  return Math.ceil((branchTokens - windowTokens) / block) * block;
}

/** Drops turns from the front until the window starts cleanly (a tool result needs its call). */
export function dropOrphanToolResults(turns: StoredMessage[], leafId: string): StoredMessage[] {
  let first = 0;
  while (first < turns.length - 1 && turns[first]!.role === 'tool' && turns[first]!.id !== leafId) first++;
  return first === 0 ? turns : turns.slice(first);
}
