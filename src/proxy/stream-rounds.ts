import { UpstreamError } from '../errors';
import { ChatAccumulator } from './chat-accumulator';
import type { ChatOutcome, RoundContext } from './chat-pipeline';
import { finishAnswer } from './finish-answer';
import type { SseEvent } from './sse-parse';
import { filterMemoryCalls, synthesizeStream } from './stream-chunks';
import type { ToolCallLike } from './tool-loop';

/**
 * The streaming loop. Each round is read ahead until its first content or tool-call delta:
 * content means the answer, which is relayed live from there on; a memory tool call means a
 * round the client never sees, so it is read to the end, run, and the loop goes on. A round
 * of the client's own tool calls is relayed exactly as upstream sent it.
 */
export async function runStreamRounds(context: RoundContext, controller: AbortController): Promise<ChatOutcome> {
  const { loop } = context;
  for (;;) {
    const offering = loop.offering;
    const stream = await context.call((call) => context.deps.upstream.openStream(call));
    const accumulator = new ChatAccumulator();
    const buffered: SseEvent[] = [];
    let decided: 'answer' | 'tools' | null = null;
    let ended = false;
    while (decided === null) {
      const next = await stream.events.next();
      if (next.done || next.value.data === '[DONE]') {
        ended = true;
        break;
      }
      const chunk = parse(next.value.data);
      if (chunk === null) throw malformed(next.value.data);
      accumulator.add(chunk);
      buffered.push(next.value);
      decided = deltaKind(chunk, offering);
    }
    if (decided !== 'tools') {
      const frames = relay({ context, controller, accumulator, buffered, rest: ended ? null : stream.events });
      return { kind: 'stream', headers: { ...stream.headers, ...context.headers() }, frames };
    }
    // A round that calls tools: read it to the end before deciding what the client sees.
    for (;;) {
      const next = await stream.events.next();
      if (next.done || next.value.data === '[DONE]') break;
      const chunk = parse(next.value.data);
      if (chunk === null) throw malformed(next.value.data);
      accumulator.add(chunk);
      buffered.push(next.value);
    }
    if (accumulator.error) throw new UpstreamError(`upstream failed during a tool round: ${JSON.stringify(accumulator.error)}`, { status: 502, code: 'upstream_stream_error' });
    loop.addUsage(accumulator.usage);
    const message = accumulator.toMessage(0);
    const { memory, client } = loop.split((message.tool_calls ?? []) as ToolCallLike[]);
    if (memory.length === 0) {
      const frames = relay({ context, controller, accumulator, buffered, rest: null });
      return { kind: 'stream', headers: { ...stream.headers, ...context.headers() }, frames };
    }
    await loop.runRound(typeof message.content === 'string' ? message.content : null, memory);
    if (client.length > 0) {
      const visible = { ...message, tool_calls: client };
      const frames = finishSynthesized(context, accumulator, visible);
      return { kind: 'stream', headers: { ...stream.headers, ...context.headers() }, frames };
    }
  }
}

/** Whether a chunk decides the round: content means an answer, a memory tool call a hidden round. */
function deltaKind(chunk: unknown, offering: boolean): 'answer' | 'tools' | null {
  const choice = (chunk as { choices?: { delta?: { content?: unknown; tool_calls?: unknown; refusal?: unknown } }[] } | null)?.choices?.[0];
  const delta = choice?.delta;
  if (!delta) return null;
  if ((typeof delta.content === 'string' && delta.content !== '') || typeof delta.refusal === 'string') return 'answer';
  if (Array.isArray(delta.tool_calls) && delta.tool_calls.length > 0) return offering ? 'tools' : 'answer';
  return null;
}

interface RelayInput {
  context: RoundContext;
  controller: AbortController;
  accumulator: ChatAccumulator;
  buffered: SseEvent[];
  /** The rest of the round, or null when it was read to the end already. */
  rest: AsyncGenerator<SseEvent> | null;
}

/**
 * Forwards the answer round as it arrives (memory calls filtered out, usage summed over rounds),
 * stores the answer before `[DONE]` so the client's next request finds it, and turns a failure
 * after the first byte into a JSON error frame followed by `[DONE]`.
 */
async function* relay(input: RelayInput): AsyncGenerator<string> {
  const { context, accumulator } = input;
  const filter = filterMemoryCalls(context.loop.memoryNames, context.loop.rounds > 0 ? context.loop.totalUsage : null);
  let finished = input.rest === null;
  let failure: unknown = null;
  let stored = false;
  try {
    for (const event of input.buffered) {
      const frame = filter(event);
      if (frame !== null) yield frame;
    }
    if (input.rest) {
      try {
        for await (const event of input.rest) {
          if (event.data === '[DONE]') {
            finished = true;
            break;
          }
          const chunk = parse(event.data);
          // Relaying a frame that is not JSON would break the client's parser: end with an error frame instead.
          if (chunk === null) {
            failure = malformed(event.data);
            break;
          }
          accumulator.add(chunk);
          const frame = filter(event);
          if (frame !== null) yield frame;
        }
        if (!finished && failure === null) failure = new Error('upstream closed the stream before [DONE]');
      } catch (error) {
        failure = error;
      }
    }
    stored = true;
    // An error event upstream sent mid-stream was relayed as is; the answer it cut short is still incomplete.
    const upstreamError = accumulator.error === undefined ? null : { reason: `upstream error: ${JSON.stringify(accumulator.error).slice(0, 200)}` };
    await finishAnswer(context, endOf(accumulator, context, failure ? { reason: describe(failure) } : upstreamError));
    if (failure) {
      context.deps.logger.warn('upstream stream failed after the first byte', { requestId: context.request.requestId, error: describe(failure) });
      yield `data: ${JSON.stringify({ error: { message: `The answer was interrupted: ${describe(failure)}`, type: 'upstream_error', param: null, code: 'stream_interrupted' } })}\n\n`;
    }
    yield 'data: [DONE]\n\n';
  } finally {
    if (!stored) {
      // The client went away mid-answer: stop upstream and keep what arrived.
      input.controller.abort();
      await finishAnswer(context, endOf(accumulator, context, { reason: 'client_disconnected' }));
    }
  }
}

/** Sends a mixed round's client calls, built from the round that was read to the end. */
async function* finishSynthesized(context: RoundContext, accumulator: ChatAccumulator, visible: Record<string, unknown>): AsyncGenerator<string> {
  await finishAnswer(context, { message: visible, model: accumulator.model ?? null, finishReason: 'tool_calls', incomplete: null });
  const includeUsage = (context.request.body['stream_options'] as { include_usage?: unknown } | undefined)?.include_usage === true;
  yield* synthesizeStream(accumulator, visible, includeUsage ? context.loop.totalUsage : null);
}

function endOf(accumulator: ChatAccumulator, context: RoundContext, incomplete: { reason: string } | null) {
  const message = { ...accumulator.toMessage(0) } as Record<string, unknown>;
  const calls = (message['tool_calls'] ?? []) as ToolCallLike[];
  const client = calls.filter((call) => !context.loop.memoryNames.has(call.function.name));
  if (client.length > 0) message['tool_calls'] = client;
  else delete message['tool_calls'];
  return { message, model: accumulator.model ?? null, finishReason: accumulator.finishReason, incomplete };
}

function malformed(data: string): UpstreamError {
  return new UpstreamError(`upstream sent a stream event that is not JSON: ${JSON.stringify(data.slice(0, 80))}`, { status: 502, code: 'upstream_bad_response' });
}

function parse(data: string): unknown {
  try {
    return JSON.parse(data);
  } catch {
    return null;
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
