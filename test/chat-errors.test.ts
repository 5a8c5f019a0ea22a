import { createServer } from 'node:net';
import { ulid } from 'ulid';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { MemoryStore } from '../src/store/memory-store';
import { errorReply, startFakeUpstream, textReply, type FakeUpstream } from './support/fake-upstream';
import { startProxy, type RunningProxy } from './support/proxy-harness';
import { storeFactories } from './support/stores';

const sqlite = storeFactories().find((factory) => factory.name === 'sqlite')!;

interface ErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

describe('errors in OpenAI shape', () => {
  let store: MemoryStore;
  let upstream: FakeUpstream;
  let proxy: RunningProxy;
  let chatUrl: string;
  let scope: { partition: string; instance: string };

  beforeAll(async () => {
    store = await sqlite.create();
    upstream = await startFakeUpstream();
    proxy = await startProxy({ store, upstreamUrl: upstream.url, env: { UPSTREAM_TIMEOUT_MS: '400', UPSTREAM_MAX_RETRIES: '1', MAX_BODY_BYTES: '65536' } });
  });
  afterAll(async () => {
    await proxy?.close();
    await upstream?.close();
    await store?.close();
  });
  beforeEach(() => {
    upstream.reset();
    scope = { partition: `p-${ulid()}`, instance: `i-${ulid()}` };
    chatUrl = `${proxy.baseUrl(scope.partition, scope.instance)}/chat/completions`;
  });

  const post = (body: string | object, url = chatUrl, headers: Record<string, string> = {}) =>
    fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });

  async function expectError(response: Response, status: number, expected: Partial<ErrorBody['error']>): Promise<ErrorBody> {
    expect(response.status).toBe(status);
    expect(response.headers.get('x-request-id')).toBeTruthy();
    const body = (await response.json()) as ErrorBody;
    expect(typeof body.error.message).toBe('string');
    expect(body.error.message.length).toBeGreaterThan(10);
    expect(body.error).toMatchObject(expected);
    return body;
  }

  it('refuses malformed JSON with 400', async () => {
    await expectError(await post('{"model": "m", "messages": ['), 400, { type: 'invalid_request_error', code: 'invalid_json' });
  });

  it('refuses a body that is not an object, and invalid UTF-8', async () => {
    await expectError(await post('[1,2]'), 400, { code: 'invalid_body' });
    const invalid = await fetch(chatUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]) });
    await expectError(invalid, 400, { code: 'invalid_encoding' });
  });

  it('refuses missing or empty messages, naming the parameter', async () => {
    await expectError(await post({ model: 'm' }), 400, { param: 'messages' });
    await expectError(await post({ model: 'm', messages: [] }), 400, { param: 'messages', code: 'empty_messages' });
    await expectError(await post({ messages: [{ role: 'user', content: 'hi' }] }), 400, { param: 'model' });
  });

  it('refuses unknown roles and malformed messages', async () => {
    await expectError(await post({ model: 'm', messages: [{ role: 'wizard', content: 'hi' }] }), 400, { param: 'messages[0].role', code: 'invalid_role' });
    await expectError(await post({ model: 'm', messages: [{ role: 'user', content: 42 }] }), 400, { param: 'messages[0].content' });
    await expectError(await post({ model: 'm', messages: [{ role: 'user', content: 'a' }, { role: 'tool', tool_call_id: 'nope', content: 'x' }] }), 400, { code: 'invalid_tool_message' });
    await expectError(await post({ model: 'm', stream: 'yes', messages: [{ role: 'user', content: 'a' }] }), 400, { param: 'stream' });
    await expectError(await post({ model: 'm', max_tokens: -5, messages: [{ role: 'user', content: 'a' }] }), 400, { param: 'max_tokens' });
  });

  it('refuses bad partition and instance names before touching the store', async () => {
    for (const name of ['a%20b', "x'%7D)-%5Br%5D-()", 'x'.repeat(129), '%D0%B0lice']) {
      const response = await post({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }, `${proxy.origin}/partition/${name}/instance/ok/v1/chat/completions`);
      await expectError(response, 400, { param: 'partition', code: 'invalid_partition' });
    }
    for (const name of ['no/slash', '..', '.', '../x']) {
      const viaHeader = await post({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }, `${proxy.origin}/v1/chat/completions`, { 'x-memory-instance': name });
      await expectError(viaHeader, 400, { param: 'instance' });
    }
    expect(upstream.chatRequests()).toHaveLength(0);
  });

  it('refuses oversized bodies with 413', async () => {
    const response = await post({ model: 'm', messages: [{ role: 'user', content: 'x'.repeat(70_000) }] });
    await expectError(response, 413, { code: 'request_too_large' });
    expect(await store.countMessages(scope)).toBe(0);
  });

  it('answers 404 in the same shape for unknown routes', async () => {
    await expectError(await fetch(`${proxy.origin}/v2/nothing`), 404, { code: 'not_found' });
  });

  it('passes upstream 4xx through with its status and body, keeping the user turn', async () => {
    const body = { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', param: null, code: 'invalid_api_key' } };
    upstream.onChat(() => ({ kind: 'json', status: 401, body }));
    const response = await post({ model: 'm', messages: [{ role: 'user', content: 'kept even though upstream failed' }] });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual(body);
    const turns = await store.listMessages(scope, { limit: 10 });
    expect(turns.map((turn) => turn.content)).toEqual(['kept even though upstream failed']);
  });

  it('retries a 429 before the first byte and then answers', async () => {
    upstream.onChat((request, index) =>
      index === 0 ? { kind: 'json', status: 429, headers: { 'retry-after': '0' }, body: { error: { message: 'slow down', type: 'rate_limit', param: null, code: null } } } : textReply(request, 'after retry'),
    );
    const response = await post({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { choices: { message: { content: string } }[] }).choices[0]!.message.content).toBe('after retry');
    expect(upstream.chatRequests()).toHaveLength(2);
    expect(await store.countMessages(scope)).toBe(2);
  });

  it('answers 502 naming the address when upstream redirects, instead of resending the conversation', async () => {
    upstream.onChat(() => ({ kind: 'raw', status: 308, body: '', headers: { location: 'https://models.example/v1/chat/completions' } }));
    const response = await post({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
    const body = await expectError(response, 502, { code: 'upstream_redirect' });
    expect(body.error.message).toContain('https://models.example/v1/chat/completions');
    expect(upstream.chatRequests()).toHaveLength(1);
  });

  it('answers 502 when upstream is unreachable', async () => {
    const port = await closedPort();
    const unreachable = await startProxy({ store, upstreamUrl: `http://127.0.0.1:${port}/v1`, env: { UPSTREAM_MAX_RETRIES: '0' } });
    try {
      const response = await post({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }, `${unreachable.baseUrl(scope.partition, scope.instance)}/chat/completions`);
      await expectError(response, 502, { code: 'upstream_unreachable' });
    } finally {
      await unreachable.close();
    }
  });

  it('answers 504 when upstream does not answer in time, streaming or not', async () => {
    upstream.onChat(() => ({ kind: 'hang' }));
    await expectError(await post({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }), 504, { code: 'upstream_timeout' });
    await expectError(await post({ model: 'm', stream: true, messages: [{ role: 'user', content: 'hi again' }] }), 504, { code: 'upstream_timeout' });
  });

  it('keeps the status of an upstream error that comes before the first streamed byte', async () => {
    upstream.onChat(() => errorReply(400, 'context too long', { param: 'messages', code: 'context_length_exceeded' }));
    const response = await post({ model: 'm', stream: true, messages: [{ role: 'user', content: 'hi' }] });
    expect(response.status).toBe(400);
    expect(((await response.json()) as ErrorBody).error.code).toBe('context_length_exceeded');
  });

  it('ends a stream that fails mid-way with a JSON error frame and [DONE], and marks the stored answer incomplete', async () => {
    upstream.onChat((request) => {
      const reply = textReply(request, 'This answer will be cut off somewhere in the middle.');
      return reply.kind === 'sse' ? { ...reply, cutAfter: 3 } : reply;
    });
    const response = await post({ model: 'm', stream: true, messages: [{ role: 'user', content: 'tell me' }] });
    expect(response.status).toBe(200);
    const frames = (await response.text()).split('\n').filter((line) => line.startsWith('data: ')).map((line) => line.slice(6));
    expect(frames.at(-1)).toBe('[DONE]');
    const errorFrame = JSON.parse(frames.at(-2)!) as ErrorBody;
    expect(errorFrame.error.code).toBe('stream_interrupted');
    const turns = await store.listMessages(scope, { limit: 10 });
    expect(turns.map((turn) => turn.role)).toEqual(['user', 'assistant']);
    expect(turns[1]!.metadata['incomplete']).toBe(true);
  });

  it('reports the store on /ready and the process on /health', async () => {
    expect((await fetch(`${proxy.origin}/health`)).status).toBe(200);
    const ready = await fetch(`${proxy.origin}/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ready', store: 'sqlite' });
  });

  it('passes /v1/models through from upstream', async () => {
    const response = await fetch(`${proxy.baseUrl(scope.partition, scope.instance)}/models`, { headers: { authorization: 'Bearer sk-x' } });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { data: { id: string }[] };
    expect(body.data.length).toBeGreaterThan(0);
    expect(upstream.requests.at(-1)!.headers['authorization']).toBe('Bearer sk-x');
  });

  it('answers 502 when upstream redirects the model listing, as it does for chat', async () => {
    upstream.onModels({ kind: 'raw', status: 302, body: '', headers: { location: 'https://models.example/v1/models' } });
    const response = await fetch(`${proxy.baseUrl(scope.partition, scope.instance)}/models`);
    const body = await expectError(response, 502, { code: 'upstream_redirect' });
    expect(body.error.message).toContain('https://models.example/v1/models');
  });
});

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
