import { createParser } from 'eventsource-parser';

/** One server-sent event as the upstream sent it; `event` and `id` only when the server named them. */
export interface SseEvent {
  data: string;
  event?: string;
  id?: string;
}

/** The sentinel OpenAI-compatible servers send as the last event of a stream. */
export const SSE_DONE = '[DONE]';

/**
 * Yields the events of an SSE body as they arrive, stopping after `[DONE]`; cancels the body
 * when the consumer stops early or `signal` aborts, so the upstream connection is released.
 */
export async function* parseSseStream(
  body: ReadableStream<Uint8Array>,
  signal?: AbortSignal,
): AsyncGenerator<SseEvent, void, undefined> {
  const pending: SseEvent[] = [];
  // The one spec-compliant parser: it handles CR, LF and CRLF line ends, comments, multi-line
  // data and events split anywhere, so nothing here splits the text itself.
  const parser = createParser({
    onEvent(message) {
      const event: SseEvent = { data: message.data };
      if (message.event !== undefined) event.event = message.event;
      if (message.id !== undefined) event.id = message.id;
      pending.push(event);
    },
  });
  // Streaming decode keeps a multi-byte character that straddles two network chunks intact.
  const decoder = new TextDecoder();
  const reader = body.getReader();
  let finished = false;
  const onAbort = (): void => {
    reader.cancel(signal?.reason).catch(() => undefined);
  };
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    signal?.throwIfAborted();
    for (;;) {
      const { done, value } = await reader.read();
      // A cancel from onAbort resolves the pending read as done: report the abort, not an end.
      signal?.throwIfAborted();
      if (done) {
        finished = true;
        // Per the SSE spec an event without its closing blank line at EOF is not dispatched.
        parser.feed(decoder.decode());
      } else {
        parser.feed(decoder.decode(value, { stream: true }));
      }
      while (pending.length > 0) {
        const event = pending.shift() as SseEvent;
        yield event;
        if (event.data === SSE_DONE) return;
      }
      if (finished) return;
    }
  } finally {
    signal?.removeEventListener('abort', onAbort);
    if (!finished) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}
