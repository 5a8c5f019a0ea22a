import { readFile } from 'node:fs/promises';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ChatAccumulator } from '../src/proxy/chat-accumulator';
import { parseSseStream, SSE_DONE } from '../src/proxy/sse-parse';
import {
  FAKE_EMBEDDING_DIMENSIONS,
  fakeEmbedding,
  fixturePath,
  startFakeUpstream,
  textReply,
  toolCallReply,
  type FakeUpstream,
} from './support/fake-upstream';

const FIXTURES = ['openai-text', 'openai-tool-calls', 'ollama-text', 'vllm-text', 'llamacpp-text'];

let fake: FakeUpstream;
let client: OpenAI;

beforeAll(async () => {
  fake = await startFakeUpstream();
  client = new OpenAI({ baseURL: fake.url, apiKey: 'sk-test', maxRetries: 0, timeout: 10_000 });
});
afterEach(() => fake.reset());
afterAll(() => fake.close());

function postChat(body: Record<string, unknown>): Promise<Response> {
  return fetch(`${fake.url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'hi' }],
      ...body,
    }),
  });
}

describe('fake upstream, seen through the official openai SDK', () => {
  it('echoes the last user message as a chat.completion and records the request', async () => {
    const completion = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'first' },
        { role: 'assistant', content: 'ok' },
        { role: 'user', content: [{ type: 'text', text: 'hello there' }] },
      ],
    });
    expect(completion.object).toBe('chat.completion');
    expect(completion.id).toMatch(/^chatcmpl-\w{29}$/);
    expect(completion.choices[0]?.message).toMatchObject({
      role: 'assistant',
      content: 'echo: hello there',
    });
    expect(completion.choices[0]?.finish_reason).toBe('stop');
    expect(completion.usage?.total_tokens).toBeGreaterThan(0);
    const [request] = fake.chatRequests();
    expect(request).toMatchObject({ method: 'POST', path: '/v1/chat/completions' });
    expect(request?.headers['authorization']).toBe('Bearer sk-test');
    expect(request?.body.messages).toHaveLength(4);
    expect(request?.receivedAt).toBeLessThanOrEqual(Date.now());
  });

  it('streams OpenAI-shaped chunks: role first, several deltas, finish, usage chunk', async () => {
    const stream = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'tell me a story about streams' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    const [first] = chunks;
    expect(first?.choices[0]?.delta).toEqual({ role: 'assistant', content: '', refusal: null });
    const contentChunks = chunks.filter((chunk) => chunk.choices[0]?.delta.content);
    expect(contentChunks.length).toBeGreaterThan(3);
    expect(contentChunks.map((chunk) => chunk.choices[0]?.delta.content).join('')).toBe(
      'echo: tell me a story about streams',
    );
    expect(chunks.at(-2)?.choices[0]).toEqual({
      index: 0,
      delta: {},
      logprobs: null,
      finish_reason: 'stop',
    });
    expect(chunks.at(-1)?.choices).toEqual([]);
    expect(chunks.at(-1)?.usage?.completion_tokens).toBeGreaterThan(0);
    for (const chunk of chunks) {
      expect(chunk).toMatchObject({
        id: first?.id,
        object: 'chat.completion.chunk',
        model: 'gpt-4o-mini',
      });
      expect(chunk.system_fingerprint).toMatch(/^fp_/);
    }
    expect(chunks.slice(0, -1).every((chunk) => chunk.usage === null)).toBe(true);
  });

  it('sends no usage key at all when the client did not ask for usage', async () => {
    const stream = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'no usage please' }],
      stream: true,
    });
    for await (const chunk of stream) expect(chunk).not.toHaveProperty('usage');
  });

  it('streams parallel tool calls the SDK assembles with stable ids', async () => {
    fake.onChat((request) =>
      toolCallReply(request, [
        { name: 'get_weather', arguments: '{"location":"Paris, France","unit":"celsius"}' },
        { id: 'call_fixed', name: 'get_time', arguments: '{"tz":"Europe/Paris"}' },
      ]),
    );
    const final = await client.chat.completions
      .stream({ model: 'gpt-4o', messages: [{ role: 'user', content: 'weather?' }] })
      .finalChatCompletion();
    const message = final.choices[0]?.message;
    expect(final.choices[0]?.finish_reason).toBe('tool_calls');
    expect(message?.content).toBeNull();
    expect(message?.tool_calls).toHaveLength(2);
    expect(message?.tool_calls?.[0]).toMatchObject({
      type: 'function',
      function: { name: 'get_weather', arguments: '{"location":"Paris, France","unit":"celsius"}' },
    });
    expect(message?.tool_calls?.[0]?.id).toMatch(/^call_\w{24}$/);
    expect(message?.tool_calls?.[1]).toMatchObject({
      id: 'call_fixed',
      function: { name: 'get_time', arguments: '{"tz":"Europe/Paris"}' },
    });
  });

  it('answers tool calls as JSON for a non-streaming request', async () => {
    fake.onChat((request) =>
      toolCallReply(request, [{ id: 'call_1', name: 'lookup', arguments: '{"q":"x"}' }]),
    );
    const completion = await client.chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'look it up' }],
    });
    expect(completion.choices[0]).toMatchObject({
      finish_reason: 'tool_calls',
      message: {
        content: null,
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"q":"x"}' } },
        ],
      },
    });
  });

  it('passes each chat request its 0-based index', async () => {
    fake.onChat((request, index) => textReply(request, `reply ${index}`));
    for (const expected of ['reply 0', 'reply 1', 'reply 2']) {
      const completion = await client.chat.completions.create({
        model: 'm',
        messages: [{ role: 'user', content: 'again' }],
      });
      expect(completion.choices[0]?.message.content).toBe(expected);
    }
  });

  it('replays a fixture byte for byte', async () => {
    fake.onChat(() => ({ kind: 'fixture', name: 'openai-text', delayMs: 1 }));
    const response = await postChat({ stream: true });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const received = Buffer.from(await response.arrayBuffer());
    expect(received.equals(await readFile(fixturePath('openai-text')))).toBe(true);
  });

  it.each(FIXTURES)('the SDK and the accumulator assemble %s alike', async (name) => {
    fake.onChat(() => ({ kind: 'fixture', name }));
    const sdk = await client.chat.completions
      .stream({ model: 'any', messages: [{ role: 'user', content: 'hi' }] })
      .finalChatCompletion();
    const response = await postChat({ stream: true });
    const accumulator = new ChatAccumulator();
    for await (const event of parseSseStream(response.body as ReadableStream<Uint8Array>)) {
      if (event.data !== SSE_DONE) accumulator.add(JSON.parse(event.data));
    }
    const ours = accumulator.toCompletion();
    const sdkMessage = sdk.choices[0]?.message;
    expect(ours.choices[0]?.message.content).toBe(sdkMessage?.content ?? null);
    expect(ours.choices[0]?.message.tool_calls ?? []).toEqual(
      (sdkMessage?.tool_calls ?? []).map((call) => ({
        id: call.id,
        type: call.type,
        function: call.function,
      })),
    );
    expect(ours.choices[0]?.finish_reason).toBe(sdk.choices[0]?.finish_reason);
    expect(ours.id).toBe(sdk.id);
    expect(ours.model).toBe(sdk.model);
  });

  it('cutAfter makes the client fail mid-stream after the chunks it was sent', async () => {
    fake.onChat((request) => {
      const reply = textReply(
        { ...request, body: { ...request.body, stream: true } },
        'one two three four five',
      );
      return reply.kind === 'sse' ? { ...reply, cutAfter: 3 } : reply;
    });
    const stream = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    });
    const received: unknown[] = [];
    await expect(
      (async () => {
        for await (const chunk of stream) received.push(chunk);
      })(),
    ).rejects.toThrow();
    expect(received).toHaveLength(3);
    // A scripted cut is not a client disconnect.
    expect(fake.chatRequests()[0]?.clientClosedAt).toBeUndefined();
  });

  it('sends string chunks verbatim and can leave out [DONE]', async () => {
    fake.onChat(() => ({
      kind: 'sse',
      chunks: ['data: {not json\n\n', ': comment\n\n', { a: 1 }],
      done: false,
    }));
    const response = await postChat({ stream: true });
    expect(await response.text()).toBe('data: {not json\n\n: comment\n\ndata: {"a":1}\n\n');
  });

  it('returns scripted JSON errors with their status, which the SDK raises', async () => {
    fake.onChat(() => ({
      kind: 'json',
      status: 429,
      headers: { 'Retry-After': '1' },
      body: {
        error: {
          message: 'Rate limit reached',
          type: 'requests',
          param: null,
          code: 'rate_limit_exceeded',
        },
      },
    }));
    const error = await client.chat.completions
      .create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect(error).toMatchObject({ status: 429, code: 'rate_limit_exceeded' });
    expect((error as InstanceType<typeof OpenAI.RateLimitError>).headers.get('retry-after')).toBe(
      '1',
    );
  });

  it('returns raw bodies as given', async () => {
    fake.onChat(() => ({
      kind: 'raw',
      status: 502,
      body: '<html>Bad Gateway</html>',
      headers: { 'content-type': 'text/html' },
    }));
    const response = await postChat({});
    expect(response.status).toBe(502);
    expect(response.headers.get('content-type')).toBe('text/html');
    expect(await response.text()).toBe('<html>Bad Gateway</html>');
  });

  it('destroy makes the SDK report a connection error', async () => {
    fake.onChat(() => ({ kind: 'destroy' }));
    await expect(
      client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
    ).rejects.toBeInstanceOf(OpenAI.APIConnectionError);
  });

  it('hang holds the request until the client aborts, and records the disconnect', async () => {
    fake.onChat(() => ({ kind: 'hang' }));
    const abort = new AbortController();
    const pending = client.chat.completions.create(
      { model: 'm', messages: [{ role: 'user', content: 'hi' }] },
      { signal: abort.signal },
    );
    await vi.waitFor(() => expect(fake.chatRequests()).toHaveLength(1));
    abort.abort();
    await expect(pending).rejects.toBeInstanceOf(OpenAI.APIUserAbortError);
    await vi.waitFor(() => expect(fake.chatRequests()[0]?.clientClosedAt).toBeTypeOf('number'));
  });

  it('close ends hanging requests and stops listening', async () => {
    const own = await startFakeUpstream();
    own.onChat(() => ({ kind: 'hang' }));
    const ownClient = new OpenAI({ baseURL: own.url, apiKey: 'k', maxRetries: 0 });
    const pending = ownClient.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'hi' }],
    });
    await vi.waitFor(() => expect(own.chatRequests()).toHaveLength(1));
    await own.close();
    await expect(pending).rejects.toBeInstanceOf(OpenAI.APIConnectionError);
    await expect(fetch(`${own.url}/models`)).rejects.toThrow();
  });

  it('lists two models by default and serves a scripted list', async () => {
    const models = await client.models.list();
    expect(models.data.map((model) => model.id)).toEqual(['gpt-4o-mini', 'gpt-4o']);
    fake.onModels({
      kind: 'json',
      body: {
        object: 'list',
        data: [{ id: 'llama3.2:3b', object: 'model', created: 1, owned_by: 'library' }],
      },
    });
    expect((await client.models.list()).data.map((model) => model.id)).toEqual(['llama3.2:3b']);
    expect(fake.requests.filter((request) => request.path === '/v1/models')).toHaveLength(2);
  });

  it('answers embeddings with deterministic vectors, base64 or float', async () => {
    const texts = ['the cat sat on the mat', 'a cat sat on a mat', 'quarterly stock market report'];
    const viaBase64 = await client.embeddings.create({
      model: 'text-embedding-3-small',
      input: texts,
    });
    expect(fake.embeddingRequests()[0]?.body.encoding_format).toBe('base64');
    const vectors = viaBase64.data.map((item) => item.embedding);
    expect(vectors.map((vector) => vector.length)).toEqual([384, 384, 384]);
    expect(FAKE_EMBEDDING_DIMENSIONS).toBe(384);
    expect(vectors[0]).toEqual(fakeEmbedding(texts[0] as string));
    const dot = (a: number[], b: number[]) =>
      a.reduce((sum, value, index) => sum + value * (b[index] ?? 0), 0);
    const [cat, otherCat, stocks] = vectors as [number[], number[], number[]];
    expect(dot(cat, otherCat)).toBeGreaterThan(dot(cat, stocks));
    const viaFloat = await client.embeddings.create({
      model: 'text-embedding-3-small',
      input: 'the cat sat on the mat',
      encoding_format: 'float',
      dimensions: 8,
    });
    expect(viaFloat.data[0]?.embedding).toEqual(fakeEmbedding('the cat sat on the mat', 8));
    expect(viaFloat.usage.total_tokens).toBeGreaterThan(0);
  });

  it('reset clears the requests and restores the default handlers', async () => {
    fake.onChat((request) => textReply(request, 'scripted'));
    const requests = fake.requests;
    await client.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'x' }],
    });
    fake.reset();
    expect(requests).toHaveLength(0);
    const completion = await client.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'x' }],
    });
    expect(completion.choices[0]?.message.content).toBe('echo: x');
    expect(fake.chatRequests()).toHaveLength(1);
  });

  it('answers unknown paths with an OpenAI 404', async () => {
    const response = await fetch(`${fake.url}/nope`);
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({
      error: { type: 'invalid_request_error', code: 'unknown_url' },
    });
  });
});
