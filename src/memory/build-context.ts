import { InvalidRequestError } from '../errors';
import type { MemoryStore } from '../store/memory-store';
import type { Scope, StoredMessage } from '../store/types';
import { selectRecentWindow } from './recent-window';

/** A block of context placed between the system messages and the window (core memory, summary). */
export interface PinnedBlock {
  message: Record<string, unknown>;
  tokens: number;
}

/** Everything the context is built from. */
export interface BuildContextInput {
  store: MemoryStore;
  scope: Scope;
  /** The client's system (and developer) messages, kept unchanged and first. */
  systemMessages: Record<string, unknown>[];
  /** Their tokens with the reply primer, as countMessagesTokens counts them (counted once per request). */
  systemTokens: number;
  /** The last turn of the request; null when the instance has no turns at all. */
  leaf: StoredMessage | null;
  /** Tokens the messages sent upstream may use in all. */
  budget: number;
  /** Core memory: placed right after the system messages. */
  pinned?: PinnedBlock[];
  /** Tokens held back from the window for the running summary (so the window's size stays stable). */
  summaryReserve?: number;
  /** Builds the running summary of what the window evicted; it must fit in `maxTokens`. */
  buildSummary?: (window: WindowInfo, maxTokens: number) => Promise<PinnedBlock | null>;
  /** Tokens held back from the window for the memory index. */
  indexReserve?: number;
  /** Builds the memory index once the window is known; it must fit in `maxTokens`. */
  buildIndex?: (window: WindowInfo, maxTokens: number) => Promise<IndexBlock | null>;
}

/** The recent window as the summary and index builders see it. */
export interface WindowInfo {
  turns: StoredMessage[];
  /** The window's token share, which fixes where its blocks start. */
  windowTokens: number;
  evicted: boolean;
}

/** The memory index, with the format it used. */
export interface IndexBlock extends PinnedBlock {
  strategy: string;
}

/** The messages to send upstream and what went into them. */
export interface BuiltContext {
  messages: Record<string, unknown>[];
  /** Tokens of `messages` as counted by the proxy. */
  tokens: number;
  window: StoredMessage[];
  /** Tokens of the whole branch, evicted turns included. */
  branchTokens: number;
  evicted: boolean;
  /** The first turn of the window (the running summary covers what came before it). */
  windowStartId: string | null;
  /** The memory index format used, or null when no index was sent. */
  indexStrategy: string | null;
  summaryIncluded: boolean;
}

/**
 * Builds the upstream messages in cache-friendly order: system messages, pinned blocks, the
 * recent window, then the memory index just before the newest user turn. The result never
 * exceeds the budget; a request whose own newest turn cannot fit is refused.
 */
export async function buildContext(input: BuildContextInput): Promise<BuiltContext> {
  const pinned = input.pinned ?? [];
  const pinnedTokens = pinned.reduce((sum, block) => sum + block.tokens, 0);
  // systemTokens holds the reply primer's tokens.
  const fixed = input.systemTokens + pinnedTokens;
  // While the whole branch fits, it all goes in and nothing needs summarising or retrieving;
  // past that the window gives up fixed shares to the summary and the index.
  const everything = input.budget - fixed;
  const fitsWhole = input.leaf !== null && input.leaf.branchTokens <= everything;
  const windowTokens = fitsWhole ? everything : Math.max(0, everything - (input.indexReserve ?? 0) - (input.summaryReserve ?? 0));

  let window: StoredMessage[] = [];
  let branchTokens = 0;
  let evicted = false;
  if (input.leaf) {
    const selected = await selectRecentWindow(input.store, input.scope, input.leaf, windowTokens);
    window = selected.turns;
    branchTokens = selected.branchTokens;
    evicted = selected.evicted;
  }
  const trimmed = trimToFit(window, input.budget - fixed);
  evicted = evicted || trimmed.length < window.length;
  window = trimmed;
  if (input.leaf && window.length === 0) {
    throw new InvalidRequestError(
      `The newest message needs ${input.leaf.tokenCount} tokens but only ${Math.max(0, input.budget - fixed)} are left in this model's context budget of ${input.budget} tokens.`,
      { param: 'messages', code: 'context_length_exceeded' },
    );
  }
  const windowUsed = window.reduce((sum, turn) => sum + turn.tokenCount, 0);
  const info: WindowInfo = { turns: window, windowTokens, evicted };
  let left = input.budget - fixed - windowUsed;
  // The summary and the index are built side by side, the index within what the summary's
  // share leaves (the window gave up both shares, so that is the index's whole share).
  const summaryCap = evicted && input.buildSummary ? Math.min(left, input.summaryReserve ?? left) : 0;
  const [summary, index] = await Promise.all([
    evicted && input.buildSummary ? input.buildSummary(info, summaryCap) : null,
    input.buildIndex ? input.buildIndex(info, left - summaryCap) : null,
  ]);
  const summaryFits = summary !== null && summary.tokens <= left;
  if (summaryFits) left -= summary.tokens;
  const indexFits = index !== null && index.tokens <= left;

  const turnMessages = window.map((turn) => turn.raw);
  const insertAt = indexPosition(window);
  const messages = [
    ...input.systemMessages,
    ...pinned.map((block) => block.message),
    ...(summaryFits ? [summary.message] : []),
    ...turnMessages.slice(0, insertAt),
    ...(indexFits ? [index.message] : []),
    ...turnMessages.slice(insertAt),
  ];
  return {
    messages,
    tokens: fixed + windowUsed + (summaryFits ? summary.tokens : 0) + (indexFits ? index.tokens : 0),
    window,
    branchTokens,
    evicted,
    windowStartId: window[0]?.id ?? null,
    indexStrategy: indexFits ? index.strategy : null,
    summaryIncluded: summaryFits,
  };
}

/** Drops the oldest turns until the window fits; only when pinned blocks or system messages grew. */
function trimToFit(window: StoredMessage[], available: number): StoredMessage[] {
  let tokens = window.reduce((sum, turn) => sum + turn.tokenCount, 0);
  let first = 0;
  while (first < window.length && tokens > available) {
    tokens -= window[first]!.tokenCount;
    first++;
  }
  while (first < window.length - 1 && window[first]!.role === 'tool') {
    first++;
  }
  return first === 0 ? window : window.slice(first);
}

/** The index goes before the newest user turn, so everything older stays a stable prefix. */
function indexPosition(window: StoredMessage[]): number {
  for (let i = window.length - 1; i >= 0; i--) {
    if (window[i]!.role === 'user') return i;
  }
  return window.length;
}
