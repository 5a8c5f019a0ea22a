import { describe, expect, it } from 'vitest';
import { parseSseStream, type SseEvent } from './sse-parse';

const encoder = new TextEncoder();

/** A body that delivers the given byte parts one read at a time; `cancelled` tells whether it was cancelled. */
function bodyOf(parts: Uint8Array[]): {
  body: ReadableStream<Uint8Array>;
  cancelled: () => boolean;
} {
  let cancelled = false;
  let next = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const part = parts[next++];
      if (part === undefined) controller.close();
      else controller.enqueue(part);
    },
    cancel() {
      cancelled = true;
    },
  });
  return { body, cancelled: () => cancelled };
}

/** Cuts bytes at the given offsets. */
function cut(bytes: Uint8Array, offsets: number[]): Uint8Array[] {
  const bounds = [0, ...offsets, bytes.length];
  return bounds.slice(1).map((end, position) => bytes.slice(bounds[position], end));
}

async function collect(
  body: ReadableStream<Uint8Array>,
  signal?: AbortSignal,
): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  for await (const event of parseSseStream(body, signal)) events.push(event);
  return events;
}

const MIXED =
  ': keep-alive\r\n\r\n' +
  'data: {"content":"Lumière 😊"}\r\n\r\n' +
  'event: error\r\ndata: {"error":{"message":"overloaded"}}\r\n\r\n' +
  'id: 7\ndata: line one\ndata: line two\n\n' +
  'data: [DONE]\r\n\r\n';

const MIXED_EVENTS: SseEvent[] = [
  { data: '{"content":"Lumière 😊"}' },
  { event: 'error', data: '{"error":{"message":"overloaded"}}' },
  { id: '7', data: 'line one\nline two' },
  { data: '[DONE]' },
];

describe('parseSseStream', () => {
  it('yields the same events wherever the body is split, inside characters and CRLF too', async () => {
    const bytes = encoder.encode(MIXED);
    for (let offset = 1; offset < bytes.length; offset++) {
      const { body } = bodyOf(cut(bytes, [offset]));
      expect(await collect(body), `split at byte ${offset}`).toEqual(MIXED_EVENTS);
    }
    const oneByteAtATime = [...bytes].map((_, offset) => offset + 1).slice(0, -1);
    expect(await collect(bodyOf(cut(bytes, oneByteAtATime)).body)).toEqual(MIXED_EVENTS);
  });

  it('splits inside a four-byte character without corrupting it', async () => {
    const bytes = encoder.encode('data: 😊\n\n');
    const emoji = 'data: '.length;
    for (const offset of [emoji + 1, emoji + 2, emoji + 3]) {
      expect(await collect(bodyOf(cut(bytes, [offset])).body)).toEqual([{ data: '😊' }]);
    }
  });

  it('ignores comments and keep-alives', async () => {
    const { body } = bodyOf([
      encoder.encode(': ping\n\n:\n\ndata: x\n\n: OPENROUTER PROCESSING\n\n'),
    ]);
    expect(await collect(body)).toEqual([{ data: 'x' }]);
  });

  it('passes an error event through with its name', async () => {
    const { body } = bodyOf([
      encoder.encode('event: error\ndata: {"error":{"message":"boom"}}\n\n'),
    ]);
    expect(await collect(body)).toEqual([{ event: 'error', data: '{"error":{"message":"boom"}}' }]);
  });

  it('ends when the body ends without [DONE], dropping an unterminated event', async () => {
    const { body } = bodyOf([encoder.encode('data: a\n\ndata: b\n\ndata: trunc')]);
    expect(await collect(body)).toEqual([{ data: 'a' }, { data: 'b' }]);
  });

  it('stops after [DONE] and cancels the rest of the body', async () => {
    const source = bodyOf([
      encoder.encode('data: a\n\ndata: [DONE]\n\ndata: after\n\n'),
      encoder.encode('data: more\n\n'),
    ]);
    expect(await collect(source.body)).toEqual([{ data: 'a' }, { data: '[DONE]' }]);
    expect(source.cancelled()).toBe(true);
  });

  it('yields each event as it arrives, before the body has ended', async () => {
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) });
    const events = parseSseStream(body);
    controller.enqueue(encoder.encode('data: first\n\n'));
    expect((await events.next()).value).toEqual({ data: 'first' });
    controller.enqueue(encoder.encode('data: second\n\n'));
    expect((await events.next()).value).toEqual({ data: 'second' });
    controller.close();
    expect((await events.next()).done).toBe(true);
  });

  it('cancels the body when the consumer stops early', async () => {
    const source = bodyOf([
      encoder.encode('data: a\n\ndata: b\n\n'),
      encoder.encode('data: c\n\n'),
    ]);
    for await (const event of parseSseStream(source.body)) {
      expect(event.data).toBe('a');
      break;
    }
    expect(source.cancelled()).toBe(true);
  });

  it('rejects with the abort reason and cancels the body when the signal aborts mid-read', async () => {
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => controller.enqueue(encoder.encode('data: a\n\n')),
      cancel: () => void (cancelled = true),
    });
    const abort = new AbortController();
    const events = parseSseStream(body, abort.signal);
    expect((await events.next()).value).toEqual({ data: 'a' });
    const pending = events.next();
    abort.abort(new Error('client went away'));
    await expect(pending).rejects.toThrow('client went away');
    expect(cancelled).toBe(true);
  });

  it('rejects at once for a signal that is already aborted', async () => {
    const { body, cancelled } = bodyOf([encoder.encode('data: a\n\n')]);
    await expect(collect(body, AbortSignal.abort(new Error('too late')))).rejects.toThrow(
      'too late',
    );
    expect(cancelled()).toBe(true);
  });
});
