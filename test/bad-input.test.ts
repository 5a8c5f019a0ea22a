import { ulid } from 'ulid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MemoryStore } from '../src/store/memory-store';
import {
  acceptedApiSearches,
  acceptedChatRequests,
  badApiRequests,
  badChatRequests,
  type CorpusRequest,
  type CorpusScope,
} from './support/bad-input-corpus';
import {
  lastUserText,
  startFakeUpstream,
  textReply,
  toolCallReply,
  type FakeUpstream,
  type RecordedRequest,
} from './support/fake-upstream';
import { storeSnapshot } from './support/graph-checks';
import type { ErrorBody } from './support/http-checks';
import { startProxy, type RunningProxy } from './support/proxy-harness';
import { storeFactories } from './support/stores';

const LIMITS = { maxBodyBytes: 2_000_000, maxMessages: 500 };

async function send(origin: string, request: CorpusRequest): Promise<Response> {
  const body = typeof request.body === 'function' ? request.body() : request.body;
  return fetch(`${origin}${request.path}`, {
    method: request.method ?? 'POST',
    headers: { 'content-type': 'application/json', ...request.headers },
    body,
    // A streamed body needs half duplex; none of these requests may hang.
    ...(typeof request.body === 'function' ? { duplex: 'half' } : {}),
    signal: AbortSignal.timeout(15_000),
  } as RequestInit);
}

for (const factory of storeFactories()) {
  describe(`bad input corpus (${factory.name})`, () => {
    let store: MemoryStore;
    let upstream: FakeUpstream;
    let proxy: RunningProxy;
    const scope: CorpusScope = { partition: `bad-${ulid()}`, instance: `i-${ulid()}`, ...LIMITS };

    beforeAll(async () => {
      store = await factory.create();
      upstream = await startFakeUpstream();
      proxy = await startProxy({
        store,
        upstreamUrl: upstream.url,
        env: {
          MAX_BODY_BYTES: String(LIMITS.maxBodyBytes),
          MAX_MESSAGES: String(LIMITS.maxMessages),
        },
      });
      // Something stored already, so "unchanged" means more than "still empty".
      const seeded = await send(proxy.origin, {
        name: 'seed',
        path: `/partition/${scope.partition}/instance/${scope.instance}/v1/chat/completions`,
        body: JSON.stringify({
          model: 'gpt-4o-mini',
          messages: [{ role: 'user', content: 'seed turn' }],
        }),
      });
      expect(seeded.status).toBe(200);
      await proxy.background.drain();
      upstream.reset();
    });
    afterAll(async () => {
      await proxy?.close();
      await upstream?.close();
      await store?.close();
    });

    it('refuses every bad request with a 4xx in OpenAI shape naming the problem, storing nothing and calling no one', async () => {
      const cases = [...badChatRequests(scope), ...badApiRequests(scope)];
      expect(cases.length).toBeGreaterThanOrEqual(300);
      const before = await storeSnapshot(store, [scope.partition]);
      const failures: string[] = [];
      for (const request of cases) {
        const response = await send(proxy.origin, request);
        const text = await response.text();
        let body: ErrorBody | null = null;
        try {
          body = JSON.parse(text) as ErrorBody;
        } catch {
          // reported below
        }
        const error = body?.error;
        const problems = [
          response.status < 400 || response.status > 499 ? `status ${response.status}` : null,
          request.status !== undefined && response.status !== request.status
            ? `status ${response.status}, expected ${request.status}`
            : null,
          !response.headers.get('content-type')?.includes('application/json') ? 'not JSON' : null,
          !response.headers.get('x-request-id') ? 'no x-request-id' : null,
          !error ||
          Object.keys(body ?? {}).join() !== 'error' ||
          typeof error.message !== 'string' ||
          error.message.length < 10 ||
          typeof error.type !== 'string' ||
          !error.code
            ? `not an OpenAI error: ${text.slice(0, 120)}`
            : null,
          request.code && error?.code !== request.code
            ? `code ${error?.code}, expected ${request.code}`
            : null,
          request.param && error?.param !== request.param
            ? `param ${error?.param}, expected ${request.param}`
            : null,
        ].filter((problem) => problem !== null);
        if (problems.length > 0) failures.push(`${request.name}: ${problems.join('; ')}`);
      }
      expect(failures).toEqual([]);
      expect(upstream.chatRequests()).toHaveLength(0);
      await proxy.background.drain();
      expect(await storeSnapshot(store, [scope.partition])).toEqual(before);
      expect((await fetch(`${proxy.origin}/health`)).status).toBe(200);
    });

    it('answers odd but valid input and query syntax in search text with 200 and safe results', async () => {
      const cases = acceptedChatRequests(scope);
      const searches = new Map(
        cases
          .filter((request) => request.search)
          .map((request) => [
            JSON.parse(request.body as string).messages[0].content as string,
            request.search!,
          ]),
      );
      upstream.onChat((request: RecordedRequest) => {
        const query = searches.get(lastUserText(request));
        const answered = (request.body.messages as { role: string }[]).some(
          (message) => message.role === 'tool',
        );
        if (query !== undefined && !answered)
          return toolCallReply(request, [
            { name: 'search_and_retrieve', arguments: JSON.stringify({ query }) },
          ]);
        return textReply(request, 'fine');
      });
      const failures: string[] = [];
      for (const request of cases) {
        const response = await send(proxy.origin, request);
        const text = await response.text();
        if (response.status !== 200)
          failures.push(`${request.name}: ${response.status} ${text.slice(0, 160)}`);
      }
      expect(failures).toEqual([]);
      // Each search ran against the full-text index and came back as results, not as an error.
      const toolResults = upstream
        .chatRequests()
        .flatMap((request) =>
          (request.body.messages as { role: string; content: string }[]).filter(
            (message) => message.role === 'tool',
          ),
        );
      expect(toolResults).toHaveLength(searches.size);
      for (const result of toolResults) {
        const parsed = JSON.parse(result.content) as { error?: string; results?: unknown[] };
        expect(parsed.error).toBeUndefined();
        expect(Array.isArray(parsed.results)).toBe(true);
      }
      upstream.reset();
      await proxy.background.drain();
    });

    it('answers management searches that carry query syntax with 200 and results from the scope only', async () => {
      for (const request of acceptedApiSearches(scope)) {
        const response = await send(proxy.origin, request);
        expect(response.status, request.name).toBe(200);
        const body = (await response.json()) as {
          data: { message: { partition?: string; instance?: string } }[];
        };
        expect(Array.isArray(body.data)).toBe(true);
        for (const hit of body.data)
          expect(JSON.stringify(hit)).not.toContain('"partition":"default"');
      }
    });
  });
}
