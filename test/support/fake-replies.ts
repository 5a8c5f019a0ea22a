import { randomBytes } from 'node:crypto';

/** One request the fake upstream received; headers are lower-cased, the body parsed when it is JSON. */
export interface RecordedRequest {
  method: string;
  /** The path without the query string, e.g. `/v1/chat/completions`. */
  path: string;
  headers: Record<string, string>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary request fields
  body: any;
  receivedAt: number;
  /** Set when the client closed the connection before the reply was complete (not by a scripted cut). */
  clientClosedAt?: number;
}

/** How the fake upstream answers one request. */
export type FakeReply =
  | {
      kind: 'json';
      body: unknown;
      status?: number;
      headers?: Record<string, string>;
      delayMs?: number;
    }
  | {
      kind: 'sse';
      /** Objects are sent as `data: <JSON>\n\n`, strings verbatim (for malformed SSE). */
      chunks: (Record<string, unknown> | string)[];
      /** Wait before each chunk. */
      delayMs?: number;
      status?: number;
      /** Append `data: [DONE]\n\n` (default true). */
      done?: boolean;
      /** Destroy the socket after this many chunks, before any later chunk or [DONE]. */
      cutAfter?: number;
      /** Extra wait before the chunk at an index (a stall between chunks), e.g. `{ 2: 1000 }`. */
      pauses?: Record<number, number>;
      headers?: Record<string, string>;
    }
  | { kind: 'fixture'; name: string; delayMs?: number }
  | { kind: 'raw'; status: number; body: string; headers?: Record<string, string> }
  | { kind: 'hang' }
  | { kind: 'destroy' };

/** Options of the reply builders. */
export interface ReplyOptions {
  /** Wait before each streamed chunk. */
  chunkDelayMs?: number;
  /** The model named in the reply (default: the request's model). */
  model?: string;
}

const SYSTEM_FINGERPRINT = 'fp_fake0upstream';
const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function randomId(length: number): string {
  return [...randomBytes(length)].map((byte) => ALPHANUMERIC[byte % ALPHANUMERIC.length]).join('');
}

/** The text of the last user message of a chat request (text parts joined by newlines). */
export function lastUserText(request: RecordedRequest): string {
  const messages: unknown = request.body?.messages;
  if (!Array.isArray(messages)) return '';
  const last = messages.findLast((message) => message?.role === 'user');
  const content: unknown = last?.content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((part) => part?.type === 'text' && typeof part.text === 'string')
    .map((part) => part.text as string)
    .join('\n');
}

/** Word-sized pieces, each carrying its leading whitespace, like a tokenizer's deltas. */
function splitText(text: string): string[] {
  return text.match(/\s*\S+|\s+/gu) ?? [];
}

/** Up to four pieces split on code points, so arguments arrive across several chunks. */
function splitArguments(text: string): string[] {
  const points = Array.from(text);
  const size = Math.max(1, Math.ceil(points.length / 4));
  const pieces: string[] = [];
  for (let start = 0; start < points.length; start += size) {
    pieces.push(points.slice(start, start + size).join(''));
  }
  return pieces.length > 0 ? pieces : [''];
}

/** Deterministic, roughly token-sized usage, with the detail objects OpenAI sends. */
function usageFor(request: RecordedRequest, completionTokens: number): Record<string, unknown> {
  const promptTokens = Math.max(
    1,
    Math.ceil(JSON.stringify(request.body?.messages ?? []).length / 4),
  );
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

interface Envelope {
  request: RecordedRequest;
  options: ReplyOptions;
  message: Record<string, unknown>;
  finishReason: string;
  /** The deltas between the role chunk's delta and the finish chunk. */
  deltas: Record<string, unknown>[];
  firstDelta: Record<string, unknown>;
  completionTokens: number;
}

/** Wraps deltas in OpenAI's chunk envelope, or the message in a `chat.completion`. */
function buildReply(envelope: Envelope): FakeReply {
  const { request, options } = envelope;
  const id = `chatcmpl-${randomId(29)}`;
  const created = Math.floor(Date.now() / 1000);
  const model =
    options.model ?? (typeof request.body?.model === 'string' ? request.body.model : 'gpt-4o-mini');
  const usage = usageFor(request, envelope.completionTokens);
  const head = {
    id,
    created,
    model,
    service_tier: 'default',
    system_fingerprint: SYSTEM_FINGERPRINT,
  };
  if (request.body?.stream !== true) {
    return {
      kind: 'json',
      body: {
        ...head,
        object: 'chat.completion',
        choices: [
          {
            index: 0,
            message: envelope.message,
            logprobs: null,
            finish_reason: envelope.finishReason,
          },
        ],
        usage,
      },
    };
  }
  // OpenAI adds `usage: null` to every chunk only when the client asked for the usage chunk.
  const includeUsage = request.body?.stream_options?.include_usage === true;
  const chunk = (choices: unknown[], chunkUsage: unknown = null): Record<string, unknown> => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model,
    service_tier: 'default',
    system_fingerprint: SYSTEM_FINGERPRINT,
    choices,
    ...(includeUsage ? { usage: chunkUsage } : {}),
  });
  const choice = (delta: Record<string, unknown>, finishReason: string | null = null): unknown => ({
    index: 0,
    delta,
    logprobs: null,
    finish_reason: finishReason,
  });
  const chunks = [
    chunk([choice(envelope.firstDelta)]),
    ...envelope.deltas.map((delta) => chunk([choice(delta)])),
    chunk([choice({}, envelope.finishReason)]),
  ];
  if (includeUsage) chunks.push(chunk([], usage));
  const reply: FakeReply = { kind: 'sse', chunks };
  if (options.chunkDelayMs !== undefined) reply.delayMs = options.chunkDelayMs;
  return reply;
}

/** An upstream error in OpenAI's JSON shape (an invalid request unless `error` says otherwise). */
export function errorReply(
  status: number,
  message: string,
  error: { type?: string; param?: string | null; code?: string | null } = {},
): FakeReply {
  return {
    kind: 'json',
    status,
    body: { error: { message, type: 'invalid_request_error', param: null, code: null, ...error } },
  };
}

/** Builds a chat reply for a request: a streamed completion (role chunk, content split into several delta chunks, finish chunk, a usage chunk when stream_options.include_usage) when request.body.stream is true, else a chat.completion JSON with usage. */
export function textReply(
  request: RecordedRequest,
  text: string,
  options: ReplyOptions = {},
): FakeReply {
  const pieces = splitText(text);
  return buildReply({
    request,
    options,
    message: { role: 'assistant', content: text, refusal: null, annotations: [] },
    finishReason: 'stop',
    firstDelta: { role: 'assistant', content: '', refusal: null },
    deltas: pieces.map((piece) => ({ content: piece })),
    completionTokens: Math.max(1, pieces.length),
  });
}

/** Same, for an assistant turn that calls tools (streamed tool-call deltas with stable index/id, arguments split across several chunks, finish_reason 'tool_calls'). */
export function toolCallReply(
  request: RecordedRequest,
  calls: { id?: string; name: string; arguments: string }[],
  options: ReplyOptions = {},
): FakeReply {
  const resolved = calls.map((call) => ({ ...call, id: call.id ?? `call_${randomId(24)}` }));
  const deltas: Record<string, unknown>[] = [];
  resolved.forEach((call, index) => {
    // As OpenAI does: the first delta of a call names it with empty arguments, the rest carry
    // only the index and an arguments fragment.
    const opening = {
      index,
      id: call.id,
      type: 'function',
      function: { name: call.name, arguments: '' },
    };
    if (index > 0) deltas.push({ tool_calls: [opening] });
    for (const piece of splitArguments(call.arguments)) {
      deltas.push({ tool_calls: [{ index, function: { arguments: piece } }] });
    }
  });
  const first = resolved[0];
  const firstDelta: Record<string, unknown> = { role: 'assistant', content: null, refusal: null };
  if (first !== undefined) {
    firstDelta['tool_calls'] = [
      { index: 0, id: first.id, type: 'function', function: { name: first.name, arguments: '' } },
    ];
  }
  return buildReply({
    request,
    options,
    message: {
      role: 'assistant',
      content: null,
      tool_calls: resolved.map((call) => ({
        id: call.id,
        type: 'function',
        function: { name: call.name, arguments: call.arguments },
      })),
      refusal: null,
      annotations: [],
    },
    finishReason: 'tool_calls',
    firstDelta,
    deltas,
    completionTokens: Math.max(1, deltas.length),
  });
}
