import { ulid } from 'ulid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, type LogLevel } from '../src/logger';
import type { MemoryStore } from '../src/store/memory-store';
import {
  startFakeUpstream,
  textReply,
  toolCallReply,
  type FakeUpstream,
} from './support/fake-upstream';
import { startProxy, type RunningProxy } from './support/proxy-harness';
import { storeFactories } from './support/stores';

const sqlite = storeFactories().find((factory) => factory.name === 'sqlite')!;
const CHAT_ROUTE = '/partition/:partition/instance/:instance/v1/chat/completions';

/** The value of one series in a Prometheus text exposition, or 0 when it is absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (!Object.entries(labels).every(([key, value]) => line.includes(`${key}="${value}"`)))
      continue;
    return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return 0;
}

describe('/metrics and structured logs', () => {
  let store: MemoryStore;
  let upstream: FakeUpstream;
  const running: RunningProxy[] = [];

  beforeAll(async () => {
    store = await sqlite.create();
    upstream = await startFakeUpstream();
  });
  afterAll(async () => {
    for (const proxy of running) await proxy.close();
    await upstream?.close();
    await store?.close();
  });

  async function proxyLogging(
    level: LogLevel,
  ): Promise<{ proxy: RunningProxy; lines: Record<string, unknown>[] }> {
    const lines: Record<string, unknown>[] = [];
    const proxy = await startProxy({
      store,
      upstreamUrl: upstream.url,
      env: { DEFAULT_CONTEXT_WINDOW: '16384' },
      deps: {
        logger: createLogger(level, (line) =>
          lines.push(JSON.parse(line) as Record<string, unknown>),
        ),
      },
    });
    running.push(proxy);
    return { proxy, lines };
  }

  const chat = (proxy: RunningProxy, partition: string, content: string, stream = false) =>
    fetch(`${proxy.baseUrl(partition, 'i')}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'local-model', stream, messages: [{ role: 'user', content }] }),
    });

  it('counts requests, latencies, upstream calls, tool rounds, context tokens, store calls and pending jobs', async () => {
    const { proxy } = await proxyLogging('silent');
    const scrape = async () => {
      const response = await fetch(`${proxy.origin}/metrics`);
      expect(response.headers.get('content-type')).toContain('text/plain');
      return response.text();
    };
    const before = await scrape();
    expect(before).toMatch(/^# TYPE memory_proxy_background_jobs_pending gauge$/m);
    expect(before).toMatch(/^memory_proxy_store_up 1$/m);

    upstream.onChat((request, index) =>
      index === 0
        ? toolCallReply(request, [
            { name: 'search_and_retrieve', arguments: '{"query":"anything"}' },
          ])
        : textReply(request, 'done'),
    );
    expect((await chat(proxy, `m-${ulid()}`, 'with a tool round')).status).toBe(200);
    upstream.onChat((request) => textReply(request, 'streamed'));
    await (await chat(proxy, `m-${ulid()}`, 'a stream', true)).text();
    expect(
      (
        await fetch(`${proxy.origin}/partition/bad%20name/instance/i/v1/chat/completions`, {
          method: 'POST',
          body: '{}',
        })
      ).status,
    ).toBe(400);
    upstream.reset();

    const after = await scrape();
    expect(
      sample(after, 'memory_proxy_http_requests_total', {
        route: CHAT_ROUTE,
        method: 'POST',
        status: '200',
      }),
    ).toBe(2);
    expect(
      sample(after, 'memory_proxy_http_requests_total', { route: CHAT_ROUTE, status: '400' }),
    ).toBe(1);
    expect(
      sample(after, 'memory_proxy_http_request_duration_seconds_count', {
        route: CHAT_ROUTE,
        status: '200',
      }),
    ).toBe(2);
    // Partition names never become labels.
    expect(after).not.toContain('bad name');
    expect(sample(after, 'memory_proxy_upstream_requests_total', { outcome: 'ok' })).toBe(3);
    expect(sample(after, 'memory_proxy_upstream_duration_seconds_count', { outcome: 'ok' })).toBe(
      3,
    );
    expect(sample(after, 'memory_proxy_tool_rounds_count')).toBe(2);
    expect(sample(after, 'memory_proxy_tool_rounds_sum')).toBe(1);
    expect(sample(after, 'memory_proxy_context_tokens_count')).toBe(2);
    expect(sample(after, 'memory_proxy_context_tokens_sum')).toBeGreaterThan(0);
    // Each request stores its question (continueLatest: it sends one message) and its answer.
    const storeCalls = (method: string) =>
      sample(after, 'memory_proxy_store_duration_seconds_count', { method, outcome: 'ok' });
    expect(storeCalls('continueLatest')).toBeGreaterThanOrEqual(2);
    expect(storeCalls('appendPath')).toBeGreaterThanOrEqual(2);
    expect(sample(after, 'process_resident_memory_bytes')).toBeGreaterThan(10_000_000);
    expect(after).toMatch(/^memory_proxy_background_jobs_pending \d+$/m);
  });

  it('writes one JSON line per request with its request id, and message contents only at debug', async () => {
    const secret = `private words ${ulid()}`;
    for (const level of ['info', 'debug'] as const) {
      const { proxy, lines } = await proxyLogging(level);
      upstream.onChat((request) => textReply(request, `reply about ${secret}`));
      const response = await chat(proxy, `log-${ulid()}`, secret);
      await response.text();
      const requestId = response.headers.get('x-request-id');
      const access = lines.find(
        (line) => line['message'] === 'request' && line['requestId'] === requestId,
      );
      expect(access).toMatchObject({
        level: 'info',
        method: 'POST',
        route: CHAT_ROUTE,
        status: 200,
        durationMs: expect.any(Number),
        time: expect.any(String),
      });
      const logged = JSON.stringify(lines);
      if (level === 'info') expect(logged).not.toContain(secret);
      else
        expect(lines.find((line) => line['message'] === 'chat request')).toMatchObject({
          requestId,
          messages: [{ role: 'user', content: secret }],
        });
    }
  });
});
