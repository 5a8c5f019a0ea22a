import { lookupModel, type Config } from '../config/load-config';
import type { MemoryStore, VectorHit } from '../store/memory-store';
import { InvalidRequestError } from '../errors';
import type { NewMessage, Scope, StoredMessage } from '../store/types';
import { computeBudget } from '../tokens/budget';
import { countSystemTokens, countToolsTokens } from '../tokens/count-tokens';
import { buildContext, type BuildContextInput } from './build-context';
import { ingestTurns } from './ingest';
import { toNewMessage } from './normalize-message';

/** Work a request leaves for after its answer, queued with the answer's own (embeddings, links). */
export interface FollowUp {
  name: string;
  run: () => Promise<void>;
}

/** What the retrieval layer adds to a context. */
export type Enrichment = Pick<BuildContextInput, 'pinned' | 'summaryReserve' | 'buildSummary' | 'indexReserve' | 'buildIndex'> & {
  /** Filled while the context is built; queued once the answer is stored. */
  afterAnswer?: FollowUp[];
  /** Filled while the context is built: turns' nearest stored turns, found by the retrieval. */
  nearest?: Map<string, VectorHit[]>;
  /** Filled with `nearest`: the vector each of those searches was made with. */
  vectors?: Map<string, number[]>;
};

/** What the retrieval layer is told while the request's turns are being stored. */
export interface EnrichContext {
  scope: Scope;
  /** The request's newest turn as it is being stored (its text is what the index is retrieved for). */
  newest: NewMessage | null;
  /** The last turn of the request once stored. */
  leaf: Promise<StoredMessage | null>;
  budget: number;
}

/** What the proxy needs to know to rebuild a request's context. */
export interface PrepareRequestInput {
  store: MemoryStore;
  config: Config;
  scope: Scope;
  body: Record<string, unknown> & { model: string; messages: Record<string, unknown>[] };
  requestId: string;
  /** A context window the client asked for with `x-memory-context-window`. */
  contextWindowOverride: number | null;
  /** Tools the proxy adds to the client's (their tokens come out of the budget). */
  extraTools?: readonly unknown[];
  /**
   * Hooks that add pinned blocks and the memory index (the retrieval layer). Called while the
   * request's turns are being stored, with the leaf to come, so its reads can run meanwhile.
   */
  enrich?: (context: EnrichContext) => Promise<Enrichment>;
}

/** The request to send upstream, and the figures the response headers report. */
export interface PreparedRequest {
  messages: Record<string, unknown>[];
  /** The last turn of the request: the answer will reply to it. */
  leaf: StoredMessage | null;
  /** Turns this request stored. */
  created: StoredMessage[];
  budget: number;
  contextWindow: number;
  contextTokens: number;
  /** Tokens the whole conversation would take over the budget (over 0.9: memory pressure). */
  pressure: number;
  /** Tokens of the whole conversation branch, had nothing been evicted. */
  branchTokens: number;
  evicted: boolean;
  windowStartId: string | null;
  indexStrategy: string | null;
  summaryIncluded: boolean;
  /** Work for after the answer (the summary of where the window starts next). */
  afterAnswer: FollowUp[];
  /**
   * The nearest stored turns of a turn this request stored, by id, where the retrieval searched
   * for exactly its text: linking it afterwards needs no search of its own.
   */
  nearest: ReadonlyMap<string, VectorHit[]>;
  /** The vectors of the texts searched for `nearest`: the same turns need no embedding afterwards. */
  vectors: ReadonlyMap<string, number[]>;
}

/** Stores what is new in the request, then builds the budgeted context to send upstream. */
export async function prepareRequest(input: PrepareRequestInput): Promise<PreparedRequest> {
  const { body, config } = input;
  const systemMessages = body.messages.filter((message) => message['role'] === 'system' || message['role'] === 'developer');
  const turns = body.messages
    .filter((message) => message['role'] !== 'system' && message['role'] !== 'developer')
    .map((message) => toNewMessage(message, { model: body.model, traceId: input.requestId }));
  const contextWindow = input.contextWindowOverride ?? lookupModel(config.models, body.model)?.contextWindow ?? config.defaultContextWindow;
  const responseReserve = responseReserveOf(body) ?? Math.min(config.defaultResponseReserve, Math.floor(contextWindow / 4));
  const budget = computeBudget({
    contextWindow,
    responseReserve,
    toolsTokens: countToolsTokens(body['tools']) + countToolsTokens(input.extraTools),
    safetyMargin: config.safetyMargin,
  });
  const systemTokens = countSystemTokens(systemMessages);
  checkNewestFits(turns.at(-1), budget - systemTokens);
  const ingesting = ingestTurns(input.store, input.scope, turns);
  const enriching = input.enrich
    ? input.enrich({ scope: input.scope, newest: turns.at(-1) ?? null, leaf: ingesting.then((ingested) => ingested.leaf), budget })
    : Promise.resolve<Enrichment>({});
  // When storing fails, that error is the request's; the enrichment's echo of it is dropped.
  enriching.catch(() => undefined);
  const ingested = await ingesting;
  const enrichment = await enriching;
  const built = await buildContext({
    store: input.store,
    scope: input.scope,
    systemMessages,
    systemTokens,
    leaf: ingested.leaf,
    budget,
    ...enrichment,
  });
  const conversationTokens = built.branchTokens + systemTokens;
  return {
    messages: built.messages,
    pressure: conversationTokens / budget,
    leaf: ingested.leaf,
    created: ingested.created,
    budget,
    contextWindow,
    contextTokens: built.tokens,
    branchTokens: built.branchTokens,
    evicted: built.evicted,
    windowStartId: built.windowStartId,
    indexStrategy: built.indexStrategy,
    summaryIncluded: built.summaryIncluded,
    afterAnswer: enrichment.afterAnswer ?? [],
    nearest: enrichment.nearest ?? new Map(),
    vectors: enrichment.vectors ?? new Map(),
  };
}

/**
 * Refuses a newest message that cannot fit the budget even alone, before it is stored: the
 * request fails either way, and a refused request must leave the store as it was.
 */
function checkNewestFits(newest: NewMessage | undefined, available: number): void {
  if (newest === undefined || newest.tokenCount <= available) return;
  throw new InvalidRequestError(
    `The newest message needs ${newest.tokenCount} tokens but only ${Math.max(0, available)} are left in this model's context budget; send a shorter message or set x-memory-context-window for a larger model.`,
    { param: 'messages', code: 'context_length_exceeded' },
  );
}

function responseReserveOf(body: Record<string, unknown>): number | null {
  const value = body['max_completion_tokens'] ?? body['max_tokens'];
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : null;
}
