import { lookupModel, type Config } from '../config/load-config';
import type { Embedder } from '../embeddings/embedder';
import { StoreUnavailableError, UpstreamError, UpstreamHttpError } from '../errors';
import type { Logger } from '../logger';
import type { ProxyMetrics } from '../metrics/proxy-metrics';
import { prepareRequest, type FollowUp, type PrepareRequestInput, type PreparedRequest } from '../memory/prepare-request';
import type { TurnBatch } from '../memory/embed-and-link';
import { memoryToolDefinitions } from '../memory/tools/memory-tools';
import type { MemoryStore, VectorHit } from '../store/memory-store';
import type { Scope, StoredMessage } from '../store/types';
import { countToolsTokens } from '../tokens/count-tokens';
import { runJsonRounds } from './json-rounds';
import { memorylessRequest } from './memoryless-request';
import { runStreamRounds } from './stream-rounds';
import { ToolLoop, roundBody } from './tool-loop';
import type { UpstreamCall, UpstreamClient } from './upstream-client';

/** Share of the budget past which a conversation is under memory pressure. */
const MEMORY_PRESSURE_LEVEL = 0.9;
/** The warning sent under memory pressure unless MEMORY_PRESSURE_MESSAGE says otherwise. */
const DEFAULT_PRESSURE_WARNING =
  'This conversation holds {current_tokens} tokens against a budget of {max_tokens}; older turns are summarised and retrieved on demand.';

/** Share of the context window the memory tools may take: the largest set that fits is offered. */
const TOOLS_SHARE = 0.25;
/** The tools offered to small windows: search, fetch, thread, and core memory (~960 tokens). */
const ESSENTIAL_TOOLS = new Set(['search_and_retrieve', 'get_messages_by_ids', 'get_conversation_thread', 'core_memory_append', 'core_memory_replace']);
/**
 * The tools offered when even the essential ones would take more than TOOLS_SHARE (windows under
 * ~3,900 tokens): search, and fetch the ids the memory index shows (~390 tokens). At a 2,048-token
 * window the essential set took 47% of the window and cut recall (README, "How memory works").
 */
const MINIMAL_TOOLS = new Set(['search_and_retrieve', 'get_messages_by_ids']);

/** What a request leaves to the background once its answer is stored, or once it failed. */
export interface AnsweredRequest extends TurnBatch {
  /** The turns the request stored: its new turns, then the answer. */
  turns: StoredMessage[];
  nearest: ReadonlyMap<string, VectorHit[]>;
  /** Of those, the ones with tool calls stored (only an answer can have them). */
  toolCallers: ReadonlySet<string>;
  followUps: FollowUp[];
}

/** What the chat pipeline needs from the app. */
export interface ChatDeps {
  config: Config;
  store: MemoryStore;
  embedder: Embedder;
  upstream: UpstreamClient;
  logger: Logger;
  now: () => number;
  /** Models that refused a request because of tools: they get no memory tools from then on. */
  toollessModels: Set<string>;
  /** Runs after an answer is stored (embeddings, synapses); never delays the answer. */
  afterAnswer?: (answered: AnsweredRequest) => void;
  /** Adds pinned blocks, the running summary and the memory index to the context. */
  enrich?: PrepareRequestInput['enrich'];
  /** Upstream latency, tool rounds and context tokens go here. */
  metrics?: ProxyMetrics;
}

/** One chat completion request, validated. */
export interface ChatRequest {
  scope: Scope;
  body: Record<string, unknown> & { model: string; messages: Record<string, unknown>[]; stream?: boolean };
  authorization: string | null;
  requestId: string;
  contextWindowOverride: number | null;
  /** Aborted when the client disconnects. */
  signal: AbortSignal;
}

/** A finished answer, or a stream of SSE frames that ends with `[DONE]`. */
export type ChatOutcome =
  | { kind: 'json'; status: number; headers: Record<string, string>; body: unknown }
  | { kind: 'stream'; headers: Record<string, string>; frames: AsyncGenerator<string> };

/** Everything a round runner needs about the request in flight. */
export interface RoundContext {
  deps: ChatDeps;
  request: ChatRequest;
  prepared: PreparedRequest;
  loop: ToolLoop;
  memoryTools: readonly unknown[];
  /** 'unavailable': the store was down and the request runs without memory (nothing is stored). */
  memory: 'ok' | 'unavailable';
  headers: () => Record<string, string>;
  /** Calls upstream for the current round (retrying once without memory tools if upstream refuses them). */
  call: <T>(send: (call: UpstreamCall) => Promise<T>) => Promise<T>;
}

/**
 * Stores the request's new turns, sends the budgeted context upstream with the memory tools,
 * runs the model's memory calls against the graph until it answers, and stores the answer.
 */
export async function runChat(deps: ChatDeps, request: ChatRequest): Promise<ChatOutcome> {
  let memoryTools = offeredTools(deps, request.body, request.contextWindowOverride);
  let memory: RoundContext['memory'] = 'ok';
  let prepared: PreparedRequest;
  try {
    prepared = await prepareRequest({
      store: deps.store,
      config: deps.config,
      scope: request.scope,
      body: request.body,
      requestId: request.requestId,
      contextWindowOverride: request.contextWindowOverride,
      extraTools: memoryTools,
      enrich: deps.enrich,
    });
  } catch (error) {
    // STORE_FAILURE_MODE=open: an answer without memory beats no answer for these users.
    if (!(error instanceof StoreUnavailableError) || deps.config.storeFailureMode !== 'open') throw error;
    deps.logger.warn('store unavailable: answering without memory', { requestId: request.requestId, error: error.message });
    deps.metrics?.memorylessAnswers.inc();
    memory = 'unavailable';
    memoryTools = [];
    prepared = memorylessRequest({ body: request.body, config: deps.config, contextWindowOverride: request.contextWindowOverride });
  }
  const memoryNames = new Set(memoryTools.map((tool) => tool.function.name));
  const loop = new ToolLoop(deps, request.scope, { messages: prepared.messages, tokens: prepared.contextTokens, budget: prepared.budget }, memoryNames);
  const controller = new AbortController();
  const onClientAbort = () => controller.abort(request.signal.reason);
  request.signal.addEventListener('abort', onClientAbort, { once: true });

  const context: RoundContext = {
    deps,
    request,
    prepared,
    loop,
    memoryTools,
    memory,
    headers: () => ({ ...memoryHeaders(prepared, loop.rounds, deps.config.memoryPressureMessage), 'x-memory-status': memory }),
    call: async (send) => {
      const call = (offering: boolean): UpstreamCall => ({
        path: '/chat/completions',
        body: roundBody(request.body, loop.messages, memoryTools, offering),
        authorization: request.authorization,
        signal: controller.signal,
      });
      try {
        return await timed(deps.metrics, () => send(call(loop.offering)));
      } catch (error) {
        if (!loop.offering || !refusedTools(error)) throw error;
        deps.toollessModels.add(request.body.model);
        deps.logger.warn('upstream refused tools: memory tools are off for this model', { requestId: request.requestId, model: request.body.model });
        loop.stopReason = 'tools_unsupported';
        return timed(deps.metrics, () => send(call(false)));
      }
    },
  };
  try {
    const outcome = request.body.stream === true ? await runStreamRounds(context, controller) : await runJsonRounds(context);
    if (outcome.kind === 'json') request.signal.removeEventListener('abort', onClientAbort);
    deps.metrics?.toolRounds.observe({}, loop.rounds);
    deps.metrics?.contextTokens.observe({}, prepared.contextTokens);
    return outcome;
  } catch (error) {
    request.signal.removeEventListener('abort', onClientAbort);
    deps.afterAnswer?.({ scope: request.scope, turns: prepared.created, nearest: prepared.nearest, vectors: prepared.vectors, toolCallers: new Set(), followUps: prepared.afterAnswer });
    throw error;
  }
}

/**
 * The memory tools this request offers: none when off, for tool-less models, or when the client
 * forbids tools; for a small window, the largest of the whole set, the essential ones and the
 * minimal ones that fits in its share (the minimal ones when none does).
 */
function offeredTools(deps: ChatDeps, body: ChatRequest['body'], contextWindowOverride: number | null) {
  if (!deps.config.memoryTools || deps.config.memoryToolsMaxDepth === 0) return [];
  if (deps.toollessModels.has(body.model)) return [];
  const model = lookupModel(deps.config.models, body.model);
  if (model?.tools === false) return [];
  if (body['tool_choice'] === 'none') return [];
  const clientNames = new Set(
    (Array.isArray(body['tools']) ? (body['tools'] as { function?: { name?: unknown } }[]) : [])
      .map((tool) => tool.function?.name)
      .filter((name): name is string => typeof name === 'string'),
  );
  const all = memoryToolDefinitions(clientNames);
  const contextWindow = contextWindowOverride ?? model?.contextWindow ?? deps.config.defaultContextWindow;
  const tiers = toolTiers(all);
  return (tiers.find((tier) => tier.tokens <= contextWindow * TOOLS_SHARE) ?? tiers.at(-1)!).tools;
}

type ToolDefinitions = ReturnType<typeof memoryToolDefinitions>;
/** The sets of memory tools, largest first, by the definitions they come from. */
const tierCache = new WeakMap<ToolDefinitions, { tools: ToolDefinitions; tokens: number }[]>();

function toolTiers(all: ToolDefinitions): { tools: ToolDefinitions; tokens: number }[] {
  let tiers = tierCache.get(all);
  if (tiers === undefined) {
    tiers = [
      all,
      all.filter((tool) => ESSENTIAL_TOOLS.has(tool.function.name)),
      all.filter((tool) => MINIMAL_TOOLS.has(tool.function.name)),
    ]
      // Frozen like the definitions they come from, so the budget counts them by identity.
      .map((tools) => Object.freeze(tools))
      .map((tools) => ({ tools, tokens: countToolsTokens(tools) }));
    tierCache.set(all, tiers);
  }
  return tiers;
}

/** Times one upstream call for /metrics, labelled with its outcome (status or error code). */
async function timed<T>(metrics: ProxyMetrics | undefined, send: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const observe = (outcome: string) => {
    const labels = { path: '/chat/completions', outcome };
    metrics?.upstreamRequests.inc(labels);
    metrics?.upstreamDuration.observe(labels, (performance.now() - started) / 1000);
  };
  try {
    const result = await send();
    observe('ok');
    return result;
  } catch (error) {
    observe(error instanceof UpstreamHttpError ? String(error.status) : error instanceof UpstreamError ? (error.code ?? 'error') : 'aborted');
    throw error;
  }
}

/** An upstream 400 that blames the tools (a model or server without tool support). */
function refusedTools(error: unknown): boolean {
  if (!(error instanceof UpstreamHttpError) || error.status !== 400 && error.status !== 422 && error.status !== 501) return false;
  return /tool|function/i.test(error.body);
}

function memoryHeaders(prepared: PreparedRequest, rounds: number, warning: string | null): Record<string, string> {
  const headers: Record<string, string> = {
    'x-memory-context-tokens': String(prepared.contextTokens),
    'x-memory-budget': String(prepared.budget),
    'x-memory-strategy': prepared.indexStrategy ?? (prepared.evicted ? 'window+summary' : 'window'),
    'x-memory-tool-rounds': String(rounds),
    'x-memory-pressure': prepared.pressure.toFixed(2),
  };
  if (prepared.pressure > MEMORY_PRESSURE_LEVEL) {
    headers['x-memory-warning'] = (warning ?? DEFAULT_PRESSURE_WARNING)
      .replaceAll('{current_tokens}', String(Math.round(prepared.pressure * prepared.budget)))
      .replaceAll('{max_tokens}', String(prepared.budget));
  }
  return headers;
}
