import type { Config } from '../config/load-config';
import type { Logger } from '../logger';
import {
  prepareRequest,
  type PrepareRequestInput,
  type PreparedRequest,
} from '../memory/prepare-request';
import type { MemoryStore } from '../store/memory-store';
import type { Scope, StoredMessage } from '../store/types';
import { ChatAccumulator } from './chat-accumulator';
import { storeAnswer } from './store-answer';
import type { UpstreamClient } from './upstream-client';

/** Share of the budget past which a conversation is under memory pressure. */
const MEMORY_PRESSURE_LEVEL = 0.9;
/** The warning sent under memory pressure unless MEMORY_PRESSURE_MESSAGE says otherwise. */
const DEFAULT_PRESSURE_WARNING =
  'This conversation holds {current_tokens} tokens against a budget of {max_tokens}; older turns are summarised and retrieved on demand.';

/** What the chat pipeline needs from the app. */
export interface ChatDeps {
  config: Config;
  store: MemoryStore;
  upstream: UpstreamClient;
  logger: Logger;
  /** Runs after an answer is stored (embeddings, synapses); never delays the answer. */
  afterAnswer?: (scope: Scope, stored: StoredMessage[]) => void;
  /** Adds pinned blocks and the memory index to the context. */
  enrich?: PrepareRequestInput['enrich'];
}

/** One chat completion request, validated. */
export interface ChatRequest {
  scope: Scope;
  body: Record<string, unknown> & {
    model: string;
    messages: Record<string, unknown>[];
    stream?: boolean;
  };
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

/** Stores the request's new turns, sends the budgeted context upstream and stores the answer. */
export async function runChat(deps: ChatDeps, request: ChatRequest): Promise<ChatOutcome> {
  const prepared = await prepareRequest({
    store: deps.store,
    config: deps.config,
    scope: request.scope,
    body: request.body,
    requestId: request.requestId,
    contextWindowOverride: request.contextWindowOverride,
    enrich: deps.enrich,
  });
  const upstreamBody = { ...request.body, messages: prepared.messages };
  const headers = memoryHeaders(prepared, deps.config.memoryPressureMessage);
  const controller = new AbortController();
  const onClientAbort = () => controller.abort(request.signal.reason);
  request.signal.addEventListener('abort', onClientAbort, { once: true });

  const call = {
    path: '/chat/completions',
    body: upstreamBody,
    authorization: request.authorization,
    signal: controller.signal,
  };
  if (request.body.stream !== true) {
    try {
      const answer = await deps.upstream.postJson(call);
      const message = firstChoiceMessage(answer.body);
      const stored = message
        ? await storeAnswer({
            store: deps.store,
            scope: request.scope,
            parent: prepared.leaf,
            message,
            model: modelOf(answer.body, request.body.model),
            requestId: request.requestId,
            finishReason: firstChoiceFinish(answer.body),
          })
        : null;
      deps.afterAnswer?.(request.scope, [...prepared.created, ...(stored ? [stored] : [])]);
      return {
        kind: 'json',
        status: answer.status,
        headers: { ...answer.headers, ...headers },
        body: answer.body,
      };
    } finally {
      request.signal.removeEventListener('abort', onClientAbort);
    }
  }

  let stream;
  try {
    stream = await deps.upstream.openStream(call);
  } catch (error) {
    request.signal.removeEventListener('abort', onClientAbort);
    deps.afterAnswer?.(request.scope, prepared.created);
    throw error;
  }
  const frames = relayStream({
    deps,
    request,
    prepared,
    events: stream.events,
    controller,
    detach: () => request.signal.removeEventListener('abort', onClientAbort),
  });
  return { kind: 'stream', headers: { ...stream.headers, ...headers }, frames };
}

interface RelayInput {
  deps: ChatDeps;
  request: ChatRequest;
  prepared: PreparedRequest;
  events: AsyncGenerator<{ data: string; event?: string }>;
  controller: AbortController;
  detach: () => void;
}

/**
 * Forwards upstream events unchanged as they arrive while a shadow copy accumulates the answer;
 * stores the answer before `[DONE]` so the client's next request finds it. A failure after the
 * first byte becomes a JSON error frame followed by `[DONE]`.
 */
async function* relayStream(input: RelayInput): AsyncGenerator<string> {
  const { deps, request, prepared } = input;
  const accumulator = new ChatAccumulator();
  let finished = false;
  let failure: unknown = null;
  try {
    try {
      for await (const event of input.events) {
        if (event.data === '[DONE]') {
          finished = true;
          break;
        }
        accumulator.add(safeParse(event.data));
        yield event.event && event.event !== 'message'
          ? `event: ${event.event}\ndata: ${event.data}\n\n`
          : `data: ${event.data}\n\n`;
      }
      if (!finished) failure = new Error('upstream closed the stream before [DONE]');
    } catch (error) {
      failure = error;
    }
    const incomplete = failure ? { reason: describe(failure) } : null;
    const stored = await storeStreamedAnswer(deps, request, prepared, accumulator, incomplete);
    deps.afterAnswer?.(request.scope, [...prepared.created, ...(stored ? [stored] : [])]);
    if (failure) {
      deps.logger.warn('upstream stream failed after the first byte', {
        requestId: request.requestId,
        error: describe(failure),
      });
      yield `data: ${JSON.stringify(errorFrame(failure))}\n\n`;
    }
    yield 'data: [DONE]\n\n';
  } finally {
    // Reached early when the client went away: stop upstream and keep what arrived.
    if (!finished && failure === null) {
      input.controller.abort();
      await storeStreamedAnswer(deps, request, prepared, accumulator, {
        reason: 'client_disconnected',
      }).catch(() => undefined);
    }
    input.detach();
  }
}

async function storeStreamedAnswer(
  deps: ChatDeps,
  request: ChatRequest,
  prepared: PreparedRequest,
  accumulator: ChatAccumulator,
  incomplete: { reason: string } | null,
): Promise<StoredMessage | null> {
  try {
    return await storeAnswer({
      store: deps.store,
      scope: request.scope,
      parent: prepared.leaf,
      message: { ...accumulator.toMessage(0) } as Record<string, unknown>,
      model: accumulator.model ?? request.body.model,
      requestId: request.requestId,
      incomplete,
      finishReason: accumulator.finishReason,
    });
  } catch (error) {
    deps.logger.error('could not store the streamed answer', {
      requestId: request.requestId,
      error: describe(error),
    });
    return null;
  }
}

function memoryHeaders(prepared: PreparedRequest, warning: string | null): Record<string, string> {
  const pressure: Record<string, string> = { 'x-memory-pressure': prepared.pressure.toFixed(2) };
  if (prepared.pressure > MEMORY_PRESSURE_LEVEL) {
    pressure['x-memory-warning'] = (warning ?? DEFAULT_PRESSURE_WARNING)
      .replaceAll('{current_tokens}', String(Math.round(prepared.pressure * prepared.budget)))
      .replaceAll('{max_tokens}', String(prepared.budget));
  }
  return {
    ...pressure,
    'x-memory-context-tokens': String(prepared.contextTokens),
    'x-memory-budget': String(prepared.budget),
    'x-memory-strategy': prepared.indexStrategy ?? (prepared.evicted ? 'window+summary' : 'window'),
    'x-memory-tool-rounds': '0',
  };
}

function errorFrame(error: unknown): {
  error: { message: string; type: string; param: null; code: string };
} {
  return {
    error: {
      message: `The answer was interrupted: ${describe(error)}`,
      type: 'upstream_error',
      param: null,
      code: 'stream_interrupted',
    },
  };
}

function firstChoiceMessage(body: Record<string, unknown>): Record<string, unknown> | null {
  const choices = body['choices'];
  if (!Array.isArray(choices) || choices.length === 0) return null;
  const message = (choices[0] as { message?: unknown }).message;
  return typeof message === 'object' && message !== null
    ? (message as Record<string, unknown>)
    : null;
}

function firstChoiceFinish(body: Record<string, unknown>): string | null {
  const choices = body['choices'];
  const reason = Array.isArray(choices)
    ? (choices[0] as { finish_reason?: unknown } | undefined)?.finish_reason
    : null;
  return typeof reason === 'string' ? reason : null;
}

function modelOf(body: Record<string, unknown>, fallback: string): string {
  return typeof body['model'] === 'string' ? body['model'] : fallback;
}

function safeParse(data: string): unknown {
  try {
    return JSON.parse(data);
  } catch {
    return null;
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
