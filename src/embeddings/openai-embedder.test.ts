import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { OpenAIEmbedder, type OpenAIEmbedderOptions } from './openai-embedder';

const API_KEY = 'sk-test-0123456789abcdefSECRET';

interface ReceivedRequest {
  body: { model: string; input: string[]; dimensions?: number };
  headers: IncomingHttpHeaders;
}

/** What the fake server does for one request: answer, or drop the connection. */
type Reply = { status: number; body?: unknown; headers?: Record<string, string> } | 'drop';

/** A vector the fake server derives from a text: deterministic and deliberately not unit length. */
function rawVector(text: string, dimensions: number): number[] {
  return Array.from(
    { length: dimensions },
    (_, index) => ((text.charCodeAt(index % text.length) + index) % 17) + 1,
  );
}

function unit(vector: number[]): number[] {
  const norm = Math.hypot(...vector);
  return vector.map((value) => value / norm);
}

/** The answer an OpenAI-compatible server gives for a request. */
function embeddingsReply(
  request: ReceivedRequest,
  dimensions = request.body.dimensions ?? 8,
): Reply {
  return {
    status: 200,
    body: {
      object: 'list',
      model: request.body.model,
      // Reversed on purpose: clients must place vectors by `index`, not by order.
      data: request.body.input
        .map((text, index) => ({
          object: 'embedding',
          index,
          embedding: rawVector(text, dimensions),
        }))
        .reverse(),
    },
  };
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))),
  );
});

/** Starts a fake embeddings API on 127.0.0.1; `reply` gets each request and its 0-based number. */
async function fakeApi(reply: (request: ReceivedRequest, call: number) => Reply): Promise<{
  baseUrl: string;
  requests: ReceivedRequest[];
}> {
  const requests: ReceivedRequest[] = [];
  const server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const request = {
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
        headers: incoming.headers,
      };
      requests.push(request);
      const answer = reply(request, requests.length - 1);
      if (answer === 'drop') {
        incoming.socket.destroy();
        return;
      }
      outgoing.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      outgoing.end(JSON.stringify(answer.body ?? {}));
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { baseUrl: `http://127.0.0.1:${port}/v1`, requests };
}

function embedder(
  baseUrl: string,
  options: Partial<OpenAIEmbedderOptions> & { delays?: number[] } = {},
): OpenAIEmbedder {
  const delays = options.delays ?? [];
  return new OpenAIEmbedder({
    model: 'text-embedding-3-small',
    baseUrl,
    apiKey: API_KEY,
    dimensions: 8,
    sleep: async (milliseconds) => {
      delays.push(milliseconds);
    },
    ...options,
  });
}

describe('OpenAIEmbedder', () => {
  it('sends large inputs in batches and returns unit vectors in input order', async () => {
    const api = await fakeApi((request) => embeddingsReply(request));
    const texts = Array.from({ length: 200 }, (_, index) => `message number ${index}`);
    const vectors = await embedder(api.baseUrl).embed(texts);
    expect(api.requests.map((request) => request.body.input.length)).toEqual([96, 96, 8]);
    expect(vectors).toHaveLength(200);
    vectors.forEach((vector, index) => {
      const expected = unit(rawVector(texts[index] ?? '', 8));
      vector.forEach((value, position) => expect(value).toBeCloseTo(expected[position] ?? 0, 12));
    });
    const [first] = api.requests;
    expect(first?.body).toMatchObject({ model: 'text-embedding-3-small', dimensions: 8 });
    expect(first?.headers.authorization).toBe(`Bearer ${API_KEY}`);
  });

  it('also splits batches that would be too long for one request', async () => {
    const api = await fakeApi((request) => embeddingsReply(request));
    await embedder(api.baseUrl, { maxBatchChars: 100 }).embed(
      Array.from({ length: 5 }, (_, index) => `${index}`.repeat(40)),
    );
    expect(api.requests.map((request) => request.body.input.length)).toEqual([2, 2, 1]);
  });

  it('sends a repeated text once and answers it from the cache later', async () => {
    const api = await fakeApi((request) => embeddingsReply(request));
    const client = embedder(api.baseUrl);
    const first = await client.embed(['hello', 'world', 'hello']);
    expect(api.requests[0]?.body.input).toEqual(['hello', 'world']);
    expect(first[2]).toEqual(first[0]);
    const again = await client.embed(['world', 'hello', 'new text']);
    expect(api.requests).toHaveLength(2);
    expect(api.requests[1]?.body.input).toEqual(['new text']);
    expect(again.slice(0, 2)).toEqual([first[1], first[0]]);
  });

  it('retries a 429 after the time the server asks for, then succeeds', async () => {
    const api = await fakeApi((request, call) =>
      call === 0
        ? {
            status: 429,
            headers: { 'retry-after': '2' },
            body: { error: { message: 'Rate limit reached', code: 'rate_limit_exceeded' } },
          }
        : embeddingsReply(request),
    );
    const delays: number[] = [];
    const vectors = await embedder(api.baseUrl, { delays }).embed(['hello']);
    expect(api.requests).toHaveLength(2);
    expect(delays).toEqual([2000]);
    expect(vectors[0]).toHaveLength(8);
  });

  it('retries server errors and dropped connections with growing delays', async () => {
    const api = await fakeApi((request, call) =>
      call === 0 ? { status: 503 } : call === 1 ? 'drop' : embeddingsReply(request),
    );
    const delays: number[] = [];
    await embedder(api.baseUrl, { delays, baseDelayMs: 100 }).embed(['hello']);
    expect(api.requests).toHaveLength(3);
    expect(delays).toHaveLength(2);
    expect(delays[0]).toBeGreaterThanOrEqual(75);
    expect(delays[0]).toBeLessThanOrEqual(100);
    expect(delays[1]).toBeGreaterThanOrEqual(150);
    expect(delays[1]).toBeLessThanOrEqual(200);
  });

  it('gives up after its retries with an error naming the status', async () => {
    const api = await fakeApi(() => ({ status: 503, body: { error: { message: 'overloaded' } } }));
    const failing = embedder(api.baseUrl, { maxRetries: 2 }).embed(['hello']);
    await expect(failing).rejects.toThrow(/answered 503 after 3 attempts: overloaded/);
    expect(api.requests).toHaveLength(3);
  });

  it('does not retry requests that cannot succeed', async () => {
    const invalid = await fakeApi(() => ({
      status: 400,
      body: { error: { message: 'Unknown model' } },
    }));
    await expect(embedder(invalid.baseUrl).embed(['hello'])).rejects.toThrow(
      /answered 400: Unknown model/,
    );
    expect(invalid.requests).toHaveLength(1);
    const quota = await fakeApi(() => ({
      status: 429,
      body: { error: { message: 'You exceeded your quota', code: 'insufficient_quota' } },
    }));
    await expect(embedder(quota.baseUrl).embed(['hello'])).rejects.toThrow(/exceeded your quota/);
    expect(quota.requests).toHaveLength(1);
  });

  it('rejects vectors of the wrong length, naming both lengths', async () => {
    const api = await fakeApi((request) => embeddingsReply(request, 1536));
    await expect(embedder(api.baseUrl, { dimensions: 384 }).embed(['hello'])).rejects.toThrow(
      /1536-dimensional vectors but EMBEDDING_DIMENSIONS is 384/,
    );
  });

  it('leaves out the dimensions parameter for models that reject it', async () => {
    const api = await fakeApi((request) => embeddingsReply(request, 8));
    await embedder(api.baseUrl, { sendDimensions: false }).embed(['hello']);
    expect(api.requests[0]?.body).not.toHaveProperty('dimensions');
  });

  it('asks again without dimensions when the model rejects them', async () => {
    const api = await fakeApi((request) =>
      request.body.dimensions === undefined
        ? embeddingsReply(request, 8)
        : {
            status: 400,
            body: { error: { message: 'This model does not support specifying dimensions.' } },
          },
    );
    const client = embedder(api.baseUrl);
    expect(await client.embed(['hello'])).toHaveLength(1);
    await client.embed(['again']);
    expect(api.requests.map((request) => request.body.dimensions)).toEqual([
      8,
      undefined,
      undefined,
    ]);
  });

  it('reads vectors sent as base64 float32', async () => {
    const api = await fakeApi((request) => ({
      status: 200,
      body: {
        data: request.body.input.map((text, index) => ({
          index,
          embedding: Buffer.from(new Float32Array(rawVector(text, 8)).buffer).toString('base64'),
        })),
      },
    }));
    const [vector] = await embedder(api.baseUrl).embed(['hello']);
    expect(vector?.[0]).toBeCloseTo(unit(rawVector('hello', 8))[0] ?? 0, 6);
  });

  it('never puts the API key in an error message', async () => {
    const api = await fakeApi(() => ({
      status: 401,
      body: {
        error: {
          message: `Incorrect API key provided: ${API_KEY}. Also sk-proj-abcdef123456 is wrong.`,
        },
      },
    }));
    const error = await embedder(api.baseUrl)
      .embed(['hello'])
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/answered 401/);
    expect((error as Error).message).not.toContain(API_KEY);
    expect((error as Error).message).not.toContain('sk-proj-abcdef123456');

    const dropping = await fakeApi(() => 'drop');
    const unreachable = await embedder(dropping.baseUrl, { maxRetries: 1 })
      .embed(['hello'])
      .catch((caught: unknown) => caught);
    expect((unreachable as Error).message).toMatch(/unreachable after 2 attempts/);
    expect((unreachable as Error).message).not.toContain(API_KEY);

    const withCredentials = `http://user:${API_KEY}@127.0.0.1:9/v1`;
    const refused = (() => {
      try {
        embedder(withCredentials);
        return null;
      } catch (caught) {
        return caught as Error;
      }
    })();
    expect(refused?.message).toMatch(/must not contain credentials/);
    expect(refused?.message).not.toContain(API_KEY);
  });

  it('answers empty texts without calling the server', async () => {
    const api = await fakeApi((request) => embeddingsReply(request));
    const [empty, blank] = await embedder(api.baseUrl).embed(['', '   ']);
    expect(api.requests).toHaveLength(0);
    expect(Math.hypot(...(empty ?? []))).toBeCloseTo(1, 12);
    expect(blank).toHaveLength(8);
  });
});
