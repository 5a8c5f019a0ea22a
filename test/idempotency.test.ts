import { ulid } from 'ulid';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { MemoryStore } from '../src/store/memory-store';
import type { Scope } from '../src/store/types';
import {
  startFakeUpstream,
  textReply,
  type FakeReply,
  type FakeUpstream,
} from './support/fake-upstream';
import { expectOpenAiError, readAnswer } from './support/http-checks';
import { startProxy, type RunningProxy } from './support/proxy-harness';
import { storeFactories } from './support/stores';

for (const factory of storeFactories()) {
  describe(`Idempotency-Key (${factory.name})`, () => {
    let store: MemoryStore;
    let upstream: FakeUpstream;
    let proxy: RunningProxy;
    let scope: Scope;
    let answers = 0;

    beforeAll(async () => {
      store = await factory.create();
      upstream = await startFakeUpstream();
      proxy = await startProxy({
        store,
        upstreamUrl: upstream.url,
        env: { UPSTREAM_MAX_RETRIES: '0' },
      });
    });
    afterAll(async () => {
      await proxy?.close();
      await upstream?.close();
      await store?.close();
    });
    beforeEach(() => {
      upstream.reset();
      // Every upstream answer differs, so a replay is told apart from a second call.
      upstream.onChat((request) => textReply(request, `answer number ${++answers}`));
      scope = { partition: `idem-${ulid()}`, instance: `i-${ulid()}` };
    });

    const ask = (
      options: {
        key?: string;
        stream?: boolean;
        content?: string;
        usage?: boolean;
        origin?: RunningProxy;
        instance?: string;
      } = {},
    ) =>
      fetch(
        `${(options.origin ?? proxy).baseUrl(scope.partition, options.instance ?? scope.instance)}/chat/completions`,
        {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            ...(options.key ? { 'idempotency-key': options.key } : {}),
          },
          body: JSON.stringify({
            model: 'gpt-4o-mini',
            stream: options.stream ?? false,
            ...(options.usage ? { stream_options: { include_usage: true } } : {}),
            messages: [{ role: 'user', content: options.content ?? 'What is the answer?' }],
          }),
        },
      );
    const contentOf = async (response: Response) => {
      const answer = await readAnswer(response);
      if (answer.kind === 'json') return answer.body.choices[0]!.message.content;
      if (answer.kind === 'stream') return answer.text;
      throw new Error(`unexpected ${answer.status} ${answer.body.error.message}`);
    };

    it('returns the stored answer to a retried JSON request without calling upstream again', async () => {
      const first = await ask({ key: 'key-1' });
      const firstBody = await first.json();
      const retry = await ask({ key: 'key-1' });
      expect(retry.status).toBe(200);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect(retry.headers.get('x-memory-context-tokens')).toBe(
        first.headers.get('x-memory-context-tokens'),
      );
      expect(await retry.json()).toEqual(firstBody);
      expect(upstream.chatRequests()).toHaveLength(1);
      expect(await store.countMessages(scope)).toBe(2);
    });

    it('replays a streamed answer as a stream, usage chunk included', async () => {
      const first = await contentOf(await ask({ key: 'key-s', stream: true, usage: true }));
      const retry = await ask({ key: 'key-s', stream: true, usage: true });
      expect(retry.headers.get('content-type')).toContain('text/event-stream');
      const replay = await readAnswer(retry);
      expect(replay.kind === 'stream' && replay.text).toBe(first);
      expect(replay.kind === 'stream' && replay.chunks.at(-1)!['usage']).toMatchObject({
        completion_tokens: expect.any(Number),
      });
      expect(replay.kind === 'stream' && replay.chunks[0]).toMatchObject({
        object: 'chat.completion.chunk',
        choices: [{ delta: { role: 'assistant' } }],
      });
      expect(upstream.chatRequests()).toHaveLength(1);
      expect(await store.countMessages(scope)).toBe(2);
    });

    it('replays a JSON answer to a streaming retry, and a streamed one to a JSON retry', async () => {
      const json = await contentOf(await ask({ key: 'cross-1' }));
      expect(await contentOf(await ask({ key: 'cross-1', stream: true }))).toBe(json);
      const streamed = await contentOf(
        await ask({ key: 'cross-2', stream: true, content: 'another question' }),
      );
      expect(await contentOf(await ask({ key: 'cross-2', content: 'another question' }))).toBe(
        streamed,
      );
      expect(upstream.chatRequests()).toHaveLength(2);
    });

    it('keeps keys apart by scope, and refuses a key reused for a different request', async () => {
      const here = await contentOf(await ask({ key: 'shared' }));
      const elsewhere = await contentOf(
        await ask({ key: 'shared', instance: `${scope.instance}-b` }),
      );
      expect(elsewhere).not.toBe(here);
      const reused = await expectOpenAiError(
        await ask({ key: 'shared', content: 'a different question' }),
        400,
      );
      expect(reused.error).toMatchObject({
        code: 'idempotency_key_reused',
        param: 'Idempotency-Key',
      });
      expect(upstream.chatRequests()).toHaveLength(2);
    });

    it('does not store failed or interrupted answers: their retry calls upstream again', async () => {
      upstream.onChat((request, index) =>
        index === 0
          ? ({
              kind: 'json',
              status: 500,
              body: { error: { message: 'boom', type: 'server_error', param: null, code: null } },
            } as FakeReply)
          : textReply(request, 'after failure'),
      );
      expect((await ask({ key: 'fails' })).status).toBe(500);
      expect(await contentOf(await ask({ key: 'fails' }))).toBe('after failure');
      upstream.onChat((request, index) => {
        const reply = textReply(request, 'cut short by the network today');
        return index === 2 && reply.kind === 'sse' ? { ...reply, cutAfter: 3 } : reply;
      });
      const cut = await readAnswer(await ask({ key: 'cut', stream: true, content: 'cut me' }));
      expect(cut.kind === 'stream' && cut.error?.code).toBe('stream_interrupted');
      expect(await contentOf(await ask({ key: 'cut', stream: true, content: 'cut me' }))).toBe(
        'cut short by the network today',
      );
      expect(upstream.chatRequests()).toHaveLength(4);
    });

    it('answers 409 to a retry that arrives while the first request still runs', async () => {
      upstream.onChat((request) => textReply(request, 'slow answer', { chunkDelayMs: 50 }));
      const first = ask({ key: 'busy', stream: true });
      // Once the upstream has the first request, its key is claimed (a fixed wait may be too short).
      while (upstream.chatRequests().length === 0)
        await new Promise((resolve) => setTimeout(resolve, 5));
      const second = await ask({ key: 'busy', stream: true });
      expect((await expectOpenAiError(second, 409)).error.code).toBe('idempotency_key_in_use');
      expect(await contentOf(await first)).toBe('slow answer');
      expect(await contentOf(await ask({ key: 'busy', stream: true }))).toBe('slow answer');
      expect(upstream.chatRequests()).toHaveLength(1);
    });

    it('keeps answers across a restart (they are in the store) and forgets them after the TTL', async () => {
      const first = await contentOf(await ask({ key: 'durable' }));
      const restarted = await startProxy({
        store,
        upstreamUrl: upstream.url,
        env: { IDEMPOTENCY_TTL_SECONDS: '1' },
      });
      try {
        expect(await contentOf(await ask({ key: 'durable', origin: restarted }))).toBe(first);
        const short = await contentOf(
          await ask({ key: 'short-lived', origin: restarted, content: 'short' }),
        );
        expect(
          await contentOf(await ask({ key: 'short-lived', origin: restarted, content: 'short' })),
        ).toBe(short);
        await new Promise((resolve) => setTimeout(resolve, 1100));
        expect(
          await contentOf(await ask({ key: 'short-lived', origin: restarted, content: 'short' })),
        ).not.toBe(short);
      } finally {
        await restarted.close();
      }
      expect(upstream.chatRequests()).toHaveLength(3);
    });
  });
}
