import { NotFoundError } from '../errors';
import type { MemoryStore } from '../store/memory-store';
import type { Scope, StoredMessage, TurnRole } from '../store/types';

/** Turns read per store call while a page is filled. */
const READ_BATCH = 256;

/** Which turns a page lists; every field is optional but the limit. */
export interface MessagePageQuery {
  /** The last seq the client has seen: the page starts after it. */
  cursor?: number;
  limit: number;
  roles?: TurnRole[];
  /** Inclusive lower and exclusive upper bound on the timestamp (ms). */
  fromTime?: number;
  toTime?: number;
  /** Point in time: turns with seq <= this, as they read then (not with leaf or tokenBudget). */
  asOfSeq?: number;
  /** Only the branch from the root to this turn. */
  leafId?: string;
  /** Only the newest turns whose tokens fit this budget (the window a model would get). */
  tokenBudget?: number;
  /** Soft-deleted turns too (not with leaf, whose branch is what a model would see). */
  includeDeleted?: boolean;
}

/** A page in seq order; `nextCursor` is the last seq seen (poll with it for new turns). */
export interface MessagePage {
  data: StoredMessage[];
  nextCursor: number | null;
  hasMore: boolean;
}

/**
 * One page of an instance's turns by seq. Paging by the last seq seen is stable under
 * concurrent writes: a new turn always gets a higher seq, so it lands on a later page and
 * never shifts or repeats one already read.
 */
export async function listMessagePage(
  store: MemoryStore,
  scope: Scope,
  query: MessagePageQuery,
): Promise<MessagePage> {
  const matches = (turn: StoredMessage) =>
    (query.roles === undefined || query.roles.includes(turn.role)) &&
    (query.fromTime === undefined || turn.timestamp >= query.fromTime) &&
    (query.toTime === undefined || turn.timestamp < query.toTime);
  if (query.leafId !== undefined) {
    const branch = (
      await branchAfter(store, scope, { leafId: query.leafId, cursor: query.cursor ?? 0 })
    ).filter(matches);
    return query.tokenBudget === undefined
      ? pageOf(branch, query)
      : windowOf(branch, query.tokenBudget);
  }
  if (query.tokenBudget !== undefined)
    return windowOf(await newestFitting(store, scope, { query, matches }), query.tokenBudget);
  if (query.asOfSeq !== undefined) {
    const asOfSeq = query.asOfSeq;
    const read = (afterSeq: number) =>
      store.messagesAsOf(scope, { seq: asOfSeq, afterSeq, limit: READ_BATCH });
    return pageOf(
      await collect({ read, matches, cursor: query.cursor ?? 0, wanted: query.limit + 1 }),
      query,
    );
  }
  const turns = await store.listMessages(scope, {
    ...(query.cursor === undefined ? {} : { afterSeq: query.cursor }),
    ...(query.roles === undefined ? {} : { roles: query.roles }),
    ...(query.fromTime === undefined ? {} : { fromTime: query.fromTime }),
    ...(query.toTime === undefined ? {} : { toTime: query.toTime }),
    includeDeleted: query.includeDeleted === true,
    limit: query.limit + 1,
  });
  return pageOf(turns, query);
}

function pageOf(turns: StoredMessage[], query: MessagePageQuery): MessagePage {
  const data = turns.slice(0, query.limit);
  return {
    data,
    nextCursor: data.at(-1)?.seq ?? query.cursor ?? null,
    hasMore: turns.length > query.limit,
  };
}

/** The newest turns (oldest first) whose tokens add up to at most the budget. */
function windowOf(newestLast: StoredMessage[], budget: number): MessagePage {
  const data: StoredMessage[] = [];
  let tokens = 0;
  for (let index = newestLast.length - 1; index >= 0; index--) {
    const turn = newestLast[index]!;
    if (tokens + turn.tokenCount > budget) break;
    tokens += turn.tokenCount;
    data.unshift(turn);
  }
  return { data, nextCursor: newestLast.at(-1)?.seq ?? null, hasMore: false };
}

/** The live turns of the branch ending at `leafId` with seq > cursor, oldest first. */
async function branchAfter(
  store: MemoryStore,
  scope: Scope,
  options: { leafId: string; cursor: number },
): Promise<StoredMessage[]> {
  const leaf = await store.getMessage(scope, options.leafId);
  if (!leaf || leaf.isChunk)
    throw new NotFoundError(`message ${options.leafId} is not a turn of this instance`, 'leaf');
  const newestFirst: StoredMessage[] = [];
  let next: string | null = leaf.id;
  while (next !== null) {
    const page = await store.getBranch(scope, next, { limit: READ_BATCH });
    for (const turn of page) {
      // Ancestors always have lower seqs: past the cursor, the rest was read already.
      if (turn.seq <= options.cursor) return newestFirst.reverse();
      newestFirst.push(turn);
    }
    next = page.length < READ_BATCH ? null : (page.at(-1)?.parentId ?? null);
  }
  return newestFirst.reverse();
}

/** The newest matching turns of the instance until their tokens pass the budget, oldest first. */
async function newestFitting(
  store: MemoryStore,
  scope: Scope,
  options: { query: MessagePageQuery; matches: (turn: StoredMessage) => boolean },
): Promise<StoredMessage[]> {
  const { query, matches } = options;
  const budget = query.tokenBudget ?? 0;
  const newestFirst: StoredMessage[] = [];
  let tokens = 0;
  let beforeSeq: number | undefined;
  for (;;) {
    const turns = await store.listMessages(scope, {
      order: 'desc',
      limit: READ_BATCH,
      ...(beforeSeq === undefined ? {} : { beforeSeq }),
      ...(query.cursor === undefined ? {} : { afterSeq: query.cursor }),
    });
    for (const turn of turns.filter(matches)) {
      newestFirst.push(turn);
      tokens += turn.tokenCount;
      if (tokens > budget) return newestFirst.reverse();
    }
    if (turns.length < READ_BATCH) return newestFirst.reverse();
    beforeSeq = turns.at(-1)!.seq;
  }
}

/** Reads batches after the cursor until `wanted` matching turns are found or none are left. */
async function collect(options: {
  read: (afterSeq: number) => Promise<StoredMessage[]>;
  matches: (turn: StoredMessage) => boolean;
  cursor: number;
  wanted: number;
}): Promise<StoredMessage[]> {
  const found: StoredMessage[] = [];
  let afterSeq = options.cursor;
  for (;;) {
    const batch = await options.read(afterSeq);
    for (const turn of batch) {
      if (options.matches(turn)) found.push(turn);
      if (found.length >= options.wanted) return found;
    }
    if (batch.length < READ_BATCH) return found;
    afterSeq = batch.at(-1)!.seq;
  }
}
