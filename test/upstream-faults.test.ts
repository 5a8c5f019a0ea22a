import { createServer } from 'node:net';
import { ulid } from 'ulid';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { MemoryStore } from '../src/store/memory-store';
import type { Scope } from '../src/store/types';
import {
  startFakeUpstream,
  textReply,
  type FakeReply,
  type FakeUpstream,
  type RecordedRequest,
} from './support/fake-upstream';
import { readAnswer } from './support/http-checks';
import { startProxy, type RunningProxy } from './support/proxy-harness';
import { storeFactories } from './support/stores';

const RETRIES = 2;
const TIMEOUT_MS = 400;

const sse = (reply: FakeReply, extra: Partial<Extract<FakeReply, { kind: 'sse' }>>): FakeReply =>
  reply.kind === 'sse' ? { ...reply, ...extra } : reply;
const failure = (status: number, headers: Record<string, string> = {}): FakeReply => ({
  kind: 'json',
  status,
  headers,
  body: {
    error: {
      message: `upstream says ${status}`,
      type: 'server_error',
      param: null,
      code: `e${status}`,
    },
  },
});

for (const factory of storeFactories()) {
  describe(`upstream faults (${factory.name})`, () => {
    let store: MemoryStore;
    let upstream: FakeUpstream;
    let proxy: RunningProxy;
    let scope: Scope;

    beforeAll(async () => {
      store = await factory.create();
      upstream = await startFakeUpstream();
      proxy = await startProxy({
        store,
        upstreamUrl: upstream.url,
        env: { UPSTREAM_TIMEOUT_MS: String(TIMEOUT_MS), UPSTREAM_MAX_RETRIES: String(RETRIES) },
      });
    });
    afterAll(async () => {
      await proxy?.close();
      await upstream?.close();
      await store?.close();
    });
    beforeEach(() => {
      upstream.reset();
      scope = { partition: `uf-${ulid()}`, instance: `i-${ulid()}` };
    });

    const ask = (content: string, options: { stream?: boolean; url?: string } = {}) =>
      fetch(options.url ?? `${proxy.baseUrl(scope.partition, scope.instance)}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'gpt-4o-mini',
          stream: options.stream ?? false,
          messages: [{ role: 'user', content }],
        }),
        signal: AbortSignal.timeout(20_000),
      });
    const turns = async () =>
      (await store.listMessages(scope, { limit: 50 })).map((turn) => ({
        role: turn.role,
        content: turn.content,
        incomplete: turn.metadata['incomplete'] === true,
      }));

    for (const stream of [false, true]) {
      const mode = stream ? 'streaming' : 'JSON';

      it(`${mode}: a refused connection is a 502 before the first byte, and the user turn is kept`, async () => {
        const port = await closedPort();
        const unreachable = await startProxy({
          store,
          upstreamUrl: `http://127.0.0.1:${port}/v1`,
          env: { UPSTREAM_MAX_RETRIES: '1' },
        });
        try {
          const answer = await readAnswer(
            await ask('anyone there?', {
              stream,
              url: `${unreachable.baseUrl(scope.partition, scope.instance)}/chat/completions`,
            }),
          );
          expect(answer).toMatchObject({
            kind: 'error',
            status: 502,
            body: { error: { code: 'upstream_unreachable' } },
          });
          expect(await turns()).toEqual([
            { role: 'user', content: 'anyone there?', incomplete: false },
          ]);
        } finally {
          await unreachable.close();
        }
      });

      it(`${mode}: an upstream that never answers is a 504, not retried`, async () => {
        upstream.onChat(() => ({ kind: 'hang' }));
        const started = Date.now();
        const answer = await readAnswer(await ask('hello?', { stream }));
        expect(answer).toMatchObject({
          kind: 'error',
          status: 504,
          body: { error: { code: 'upstream_timeout' } },
        });
        expect(Date.now() - started).toBeLessThan(TIMEOUT_MS * 5);
        expect(upstream.chatRequests()).toHaveLength(1);
      });

      for (const status of [429, 500, 503]) {
        it(`${mode}: ${status} with retry-after is retried before the first byte, then answered`, async () => {
          upstream.onChat((request, index) =>
            index < RETRIES
              ? failure(status, { 'retry-after': '0' })
              : textReply(request, 'third time lucky'),
          );
          const answer = await readAnswer(await ask(`retry ${status}`, { stream }));
          expect(answer.kind).toBe(stream ? 'stream' : 'json');
          expect(upstream.chatRequests()).toHaveLength(RETRIES + 1);
          expect(await turns()).toEqual([
            { role: 'user', content: `retry ${status}`, incomplete: false },
            { role: 'assistant', content: 'third time lucky', incomplete: false },
          ]);
        });

        it(`${mode}: ${status} without retry-after is retried with backoff, and passed through once retries run out`, async () => {
          upstream.onChat(() => failure(status));
          const response = await ask(`always ${status}`, { stream });
          const answer = await readAnswer(response);
          expect(answer).toMatchObject({
            kind: 'error',
            status,
            body: { error: { message: `upstream says ${status}`, code: `e${status}` } },
          });
          expect(upstream.chatRequests()).toHaveLength(RETRIES + 1);
          // The user turn is kept once; the client's retry of the same request stores nothing twice.
          upstream.onChat((request) => textReply(request, 'recovered'));
          expect((await readAnswer(await ask(`always ${status}`, { stream }))).kind).not.toBe(
            'error',
          );
          expect(await turns()).toEqual([
            { role: 'user', content: `always ${status}`, incomplete: false },
            { role: 'assistant', content: 'recovered', incomplete: false },
          ]);
        });
      }

      it(`${mode}: a retry-after too long to wait is passed to the client at once`, async () => {
        upstream.onChat(() => failure(429, { 'retry-after': '120' }));
        const response = await ask('slow down', { stream });
        expect(response.headers.get('retry-after')).toBe('120');
        expect(await readAnswer(response)).toMatchObject({ kind: 'error', status: 429 });
        expect(upstream.chatRequests()).toHaveLength(1);
      });

      it(`${mode}: malformed JSON or SSE before the first byte is a 502 after retries`, async () => {
        upstream.onChat(() =>
          stream
            ? { kind: 'sse', chunks: ['data: {"choices": [ not json\n\n'] }
            : {
                kind: 'raw',
                status: 200,
                body: '{"choices": [',
                headers: { 'content-type': 'application/json' },
              },
        );
        const answer = await readAnswer(await ask('garbage please', { stream }));
        expect(answer).toMatchObject({
          kind: 'error',
          status: 502,
          body: { error: { code: 'upstream_bad_response' } },
        });
        expect(upstream.chatRequests()).toHaveLength(RETRIES + 1);
      });
    }

    it('a stream cut mid-way ends with an error frame and [DONE], is never retried, and its answer is stored as incomplete', async () => {
      upstream.onChat((request) =>
        sse(textReply(request, 'This answer is cut off somewhere in the middle of it.'), {
          cutAfter: 4,
        }),
      );
      const answer = await readAnswer(await ask('tell me', { stream: true }));
      expect(answer).toMatchObject({ kind: 'stream', error: { code: 'stream_interrupted' } });
      expect(upstream.chatRequests()).toHaveLength(1);
      const stored = await turns();
      expect(stored.map((turn) => [turn.role, turn.incomplete])).toEqual([
        ['user', false],
        ['assistant', true],
      ]);
      expect(answer.kind === 'stream' && stored[1]!.content).toBe(
        answer.kind === 'stream' ? answer.text : null,
      );
      // The client retries: the question is not stored again; the full answer becomes a sibling.
      upstream.onChat((request) => textReply(request, 'The whole answer.'));
      expect((await readAnswer(await ask('tell me', { stream: true }))).kind).toBe('stream');
      const after = await store.listMessages(scope, { limit: 50 });
      expect(after.filter((turn) => turn.role === 'user')).toHaveLength(1);
      expect(
        after.filter((turn) => turn.role === 'assistant').map((turn) => turn.parentId),
      ).toEqual([after[0]!.id, after[0]!.id]);
    });

    it('a malformed event mid-stream is never relayed: error frame, [DONE], incomplete answer', async () => {
      upstream.onChat((request) => {
        const reply = textReply(request, 'Good start and then garbage.');
        return reply.kind === 'sse'
          ? {
              ...reply,
              chunks: [
                ...reply.chunks.slice(0, 3),
                'data: {"choices":[{"delta":{"content":"oops"\n\n',
                ...reply.chunks.slice(3),
              ],
            }
          : reply;
      });
      const answer = await readAnswer(await ask('stream something', { stream: true }));
      expect(answer).toMatchObject({ kind: 'stream', error: { code: 'stream_interrupted' } });
      expect(answer.kind === 'stream' && answer.error?.message).toContain('not JSON');
      expect((await turns()).map((turn) => [turn.role, turn.incomplete])).toEqual([
        ['user', false],
        ['assistant', true],
      ]);
    });

    it('a stall between chunks longer than the timeout ends the stream with an error frame and [DONE]', async () => {
      upstream.onChat((request) =>
        sse(textReply(request, 'one two three four five six'), { pauses: { 3: TIMEOUT_MS * 3 } }),
      );
      const answer = await readAnswer(await ask('stall', { stream: true }));
      expect(answer).toMatchObject({ kind: 'stream', error: { code: 'stream_interrupted' } });
      expect(upstream.chatRequests()).toHaveLength(1);
      expect((await turns()).map((turn) => [turn.role, turn.incomplete])).toEqual([
        ['user', false],
        ['assistant', true],
      ]);
    });

    it('a slow but steady stream is never cut', async () => {
      upstream.onChat((request) =>
        textReply(request, 'slow and steady wins the race', { chunkDelayMs: TIMEOUT_MS / 2 }),
      );
      const answer = await readAnswer(await ask('take your time', { stream: true }));
      expect(answer).toMatchObject({
        kind: 'stream',
        error: null,
        text: 'slow and steady wins the race',
      });
    });

    it('a streaming request answered with JSON instead of an event stream is a 502', async () => {
      upstream.onChat((request: RecordedRequest) => ({
        ...textReply({ ...request, body: { ...request.body, stream: false } }, 'not a stream'),
      }));
      const answer = await readAnswer(await ask('stream please', { stream: true }));
      expect(answer).toMatchObject({ kind: 'error', status: 502 });
    });

    it('an error event inside the stream after the first byte is passed on and ends with [DONE]', async () => {
      upstream.onChat((request) => {
        const reply = textReply(request, 'Partial answer before the server gives up.');
        return reply.kind === 'sse'
          ? {
              ...reply,
              chunks: [
                ...reply.chunks.slice(0, 3),
                { error: { message: 'overloaded', type: 'server_error', param: null, code: null } },
              ],
            }
          : reply;
      });
      const answer = await readAnswer(await ask('overload', { stream: true }));
      expect(answer.kind).toBe('stream');
      expect(answer.kind === 'stream' && answer.error?.message).toBe('overloaded');
      expect((await turns()).map((turn) => [turn.role, turn.incomplete])).toEqual([
        ['user', false],
        ['assistant', true],
      ]);
    });
  });
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
