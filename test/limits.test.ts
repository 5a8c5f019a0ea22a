import { ulid } from 'ulid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MemoryStore } from '../src/store/memory-store';
import {
  startFakeUpstream,
  textReply,
  toolCallReply,
  type FakeUpstream,
  type RecordedRequest,
} from './support/fake-upstream';
import { expectOpenAiError } from './support/http-checks';
import { startProxy, type RunningProxy } from './support/proxy-harness';
import { storeFactories } from './support/stores';

const sqlite = storeFactories().find((factory) => factory.name === 'sqlite')!;

describe('configurable limits with clear errors', () => {
  let store: MemoryStore;
  let upstream: FakeUpstream;
  const proxies: RunningProxy[] = [];

  beforeAll(async () => {
    store = await sqlite.create();
    upstream = await startFakeUpstream();
  });
  afterAll(async () => {
    for (const proxy of proxies) await proxy.close();
    await upstream?.close();
    await store?.close();
  });

  async function proxyWith(env: Record<string, string>): Promise<RunningProxy> {
    const proxy = await startProxy({ store, upstreamUrl: upstream.url, env });
    proxies.push(proxy);
    upstream.reset();
    return proxy;
  }

  const ask = (url: string, messages: unknown[], headers: Record<string, string> = {}) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages }),
    });
  const user = (content: string) => ({ role: 'user', content });

  it('limits requests per partition per minute with a 429 and retry-after, other partitions unaffected', async () => {
    const proxy = await proxyWith({ RATE_LIMIT_PER_MINUTE: '3' });
    const [alice, bob] = [`alice-${ulid()}`, `bob-${ulid()}`];
    for (let i = 0; i < 3; i++)
      expect(
        (await ask(`${proxy.baseUrl(alice, 'a')}/chat/completions`, [user(`hi ${i}`)])).status,
      ).toBe(200);
    // The plain /v1 route counts against the partition its header names.
    const limited = await ask(`${proxy.origin}/v1/chat/completions`, [user('one more')], {
      'x-memory-partition': alice,
    });
    const body = await expectOpenAiError(limited, 429);
    expect(body.error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limit_exceeded' });
    expect(body.error.message).toContain(alice);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await ask(`${proxy.baseUrl(bob, 'b')}/chat/completions`, [user('hello')])).status).toBe(
      200,
    );
    expect(upstream.chatRequests()).toHaveLength(4);
    expect(await (await fetch(`${proxy.origin}/metrics`)).text()).toMatch(
      /^memory_proxy_rate_limited_total 1$/m,
    );
  });

  it('caps the messages of one request', async () => {
    const proxy = await proxyWith({ MAX_MESSAGES: '3' });
    const body = await expectOpenAiError(
      await ask(`${proxy.baseUrl(`p-${ulid()}`, 'i')}/chat/completions`, [
        user('a'),
        { role: 'assistant', content: 'b' },
        user('c'),
        { role: 'assistant', content: 'd' },
      ]),
      400,
    );
    expect(body.error).toMatchObject({ param: 'messages', code: 'too_many_messages' });
  });

  it('caps the body size with a 413', async () => {
    const proxy = await proxyWith({ MAX_BODY_BYTES: '2048' });
    expect(
      (
        await expectOpenAiError(
          await ask(`${proxy.baseUrl(`p-${ulid()}`, 'i')}/chat/completions`, [
            user('x'.repeat(3000)),
          ]),
          413,
        )
      ).error.code,
    ).toBe('request_too_large');
  });

  it('caps a body sent without a declared length (chunked) as it arrives', async () => {
    const proxy = await proxyWith({ MAX_BODY_BYTES: '2048' });
    const chunked = (content: string) => {
      const json = JSON.stringify({ model: 'gpt-4o-mini', messages: [user(content)] });
      // A body from a stream goes out chunked, with no content-length for the proxy to check first.
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          const bytes = new TextEncoder().encode(json);
          for (let offset = 0; offset < bytes.length; offset += 512) controller.enqueue(bytes.slice(offset, offset + 512));
          controller.close();
        },
      });
      return fetch(`${proxy.baseUrl(`p-${ulid()}`, 'i')}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
        duplex: 'half',
      } as RequestInit);
    };
    upstream.onChat((request: RecordedRequest) => textReply(request, 'short and fine'));
    const small = await chunked('a short question');
    expect(small.status).toBe(200);
    expect(((await small.json()) as { choices: { message: { content: string } }[] }).choices[0]!.message.content).toBe('short and fine');
    expect((await expectOpenAiError(await chunked('x'.repeat(3000)), 413)).error.code).toBe('request_too_large');
    expect(upstream.chatRequests()).toHaveLength(1);
  });

  it('stops the memory tool loop at MEMORY_TOOLS_MAX_DEPTH rounds and asks for a final answer', async () => {
    const proxy = await proxyWith({ MEMORY_TOOLS_MAX_DEPTH: '2', DEFAULT_CONTEXT_WINDOW: '16384' });
    upstream.onChat((request: RecordedRequest, index) => {
      const offered = Array.isArray(request.body.tools) && request.body.tools.length > 0;
      return offered
        ? toolCallReply(request, [
            { name: 'search_and_retrieve', arguments: JSON.stringify({ query: `round ${index}` }) },
          ])
        : textReply(request, 'final answer');
    });
    const response = await ask(`${proxy.baseUrl(`p-${ulid()}`, 'i')}/chat/completions`, [
      user('keep searching forever'),
    ]);
    expect(response.status).toBe(200);
    expect(response.headers.get('x-memory-tool-rounds')).toBe('2');
    expect(
      ((await response.json()) as { choices: { message: { content: string } }[] }).choices[0]!
        .message.content,
    ).toBe('final answer');
    expect(upstream.chatRequests()).toHaveLength(3);
    expect(upstream.chatRequests()[2]!.body.tools).toBeUndefined();
  });

  it('caps the retrieved turns the memory index is built from at MEMORY_RETRIEVAL_LIMIT', async () => {
    const proxy = await proxyWith({ MEMORY_RETRIEVAL_LIMIT: '2', MEMORY_TOOLS: 'false' });
    upstream.onChat((request) => textReply(request, 'ok'));
    const url = `${proxy.baseUrl(`p-${ulid()}`, 'i')}/chat/completions`;
    // A small window, so the zebra turns are evicted and can only come back through the index.
    const small = { 'x-memory-context-window': '1200' };
    for (let i = 0; i < 8; i++)
      await (
        await ask(url, [user(`the zebra called number ${i} lives in the north pasture`)], small)
      ).text();
    for (let i = 0; i < 30; i++)
      await (
        await ask(
          url,
          [user(`filler ${i} about gardens, rivers and the weather in the harbour town`)],
          small,
        )
      ).text();
    await proxies.at(-1)!.background.drain();
    expect((await ask(url, [user('Which zebra lives in the north pasture?')], small)).status).toBe(
      200,
    );
    const index = (
      upstream.chatRequests().at(-1)!.body.messages as { role: string; content: string }[]
    ).find((message) => message.content.startsWith('Memory index'));
    expect(index).toBeDefined();
    const entries = index!.content.split('\n').filter((line) => line.startsWith('- '));
    expect(entries.length).toBeGreaterThan(0);
    expect(entries.length).toBeLessThanOrEqual(2);
  });
});
