import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ulid } from 'ulid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../src/config/load-api-keys';
import { createLogger } from '../src/logger';
import type { MemoryStore } from '../src/store/memory-store';
import {
  startFakeUpstream,
  textReply,
  toolCallReply,
  type FakeUpstream,
} from './support/fake-upstream';
import { storeSnapshot } from './support/graph-checks';
import { expectOpenAiError } from './support/http-checks';
import { startProxy, type RunningProxy } from './support/proxy-harness';
import { storeFactories } from './support/stores';

const UPSTREAM_KEY = `sk-upstream-${ulid()}-never-shown`;
const ALICE_KEY = `mp-alice-${ulid()}`;
const BOB_KEY = `mp-bob-${ulid()}`;
const ADMIN_KEY = `mp-admin-${ulid()}`;

for (const factory of storeFactories()) {
  describe(`tenants: inbound API keys confine each key to its partitions (${factory.name})`, () => {
    let store: MemoryStore;
    let upstream: FakeUpstream;
    let proxy: RunningProxy;
    const logs: string[] = [];
    const seen: string[] = [];
    const alice = `alice-${ulid()}`;
    const bob = `bob-${ulid()}`;
    const secret = `bobsecret${ulid().toLowerCase()}`;

    beforeAll(async () => {
      const file = path.join(
        mkdtempSync(path.join(tmpdir(), 'memory-proxy-tenants-')),
        'keys.json',
      );
      writeFileSync(
        file,
        JSON.stringify({
          [`sha256:${hashApiKey(ALICE_KEY)}`]: [alice],
          [`sha256:${hashApiKey(BOB_KEY)}`]: [bob],
          [`sha256:${hashApiKey(ADMIN_KEY)}`]: ['*'],
        }),
      );
      store = await factory.create();
      upstream = await startFakeUpstream();
      proxy = await startProxy({
        store,
        upstreamUrl: upstream.url,
        env: { PROXY_API_KEYS_FILE: file, UPSTREAM_API_KEY: UPSTREAM_KEY },
        // Debug level: even the most verbose log must not hold a secret.
        deps: { logger: createLogger('debug', (line) => logs.push(line)) },
      });
      const stored = await call(bob, BOB_KEY, `My locker code is ${secret}.`);
      expect(stored.status).toBe(200);
      await proxy.background.drain();
    });
    afterAll(async () => {
      await proxy?.close();
      await upstream?.close();
      await store?.close();
    });

    /** A request whose status, headers and body are kept for the final secret check. */
    async function send(url: string, init: RequestInit = {}): Promise<Response> {
      const response = await fetch(url, init);
      const text = await response.text();
      seen.push(`${response.status} ${JSON.stringify([...response.headers])} ${text}`);
      return new Response(text, { status: response.status, headers: response.headers });
    }

    /** A management API request with Alice's key (or another). */
    function api(method: string, path: string, body?: unknown, key = ALICE_KEY): Promise<Response> {
      return send(`${proxy.origin}/api/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    }

    function call(
      partition: string,
      key: string | null,
      content: string,
      options: { path?: string; headers?: Record<string, string> } = {},
    ): Promise<Response> {
      return send(
        options.path
          ? `${proxy.origin}${options.path}`
          : `${proxy.baseUrl(partition, 'chat')}/chat/completions`,
        {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            ...(key ? { authorization: `Bearer ${key}` } : {}),
            ...options.headers,
          },
          body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }] }),
        },
      );
    }

    it('answers 401 without a key or with an unknown one', async () => {
      expect((await expectOpenAiError(await call(alice, null, 'hi'), 401)).error.type).toBe(
        'authentication_error',
      );
      await expectOpenAiError(await call(alice, 'mp-not-a-key', 'hi'), 401);
      await expectOpenAiError(
        await send(`${proxy.origin}/v1/models`, { headers: { authorization: 'Basic abc' } }),
        401,
      );
    });

    it("lets a key use its own partition, sending the proxy's upstream key instead of the client's", async () => {
      upstream.reset();
      expect((await call(alice, ALICE_KEY, 'hello from alice')).status).toBe(200);
      expect(upstream.chatRequests()[0]!.headers['authorization']).toBe(`Bearer ${UPSTREAM_KEY}`);
      expect(
        (
          await send(`${proxy.baseUrl(alice, 'chat')}/models`, {
            headers: { authorization: `Bearer ${ALICE_KEY}` },
          })
        ).status,
      ).toBe(200);
      expect(upstream.requests.at(-1)!.headers['authorization']).toBe(`Bearer ${UPSTREAM_KEY}`);
    });

    it('refuses every route into another partition with 403, writing nothing there', async () => {
      // Links made after the turns stored so far must not pass for writes of these attempts.
      await proxy.background.drain();
      const before = await storeSnapshot(store, [bob]);
      upstream.reset();
      const attempts = [
        call(bob, ALICE_KEY, 'let me in'),
        call(bob, ALICE_KEY, 'via header', {
          path: '/v1/chat/completions',
          headers: { 'x-memory-partition': bob, 'x-memory-instance': 'chat' },
        }),
        call(bob, ALICE_KEY, 'default scope', { path: '/v1/chat/completions' }),
        call(bob, ALICE_KEY, 'encoded', {
          path: `/partition/${encodeURIComponent(bob).replace('b', '%62')}/instance/chat/v1/chat/completions`,
        }),
        send(`${proxy.baseUrl(bob, 'chat')}/models`, {
          headers: { authorization: `Bearer ${ALICE_KEY}` },
        }),
        send(`${proxy.origin}/v1/models`, {
          headers: { authorization: `Bearer ${ALICE_KEY}`, 'x-memory-partition': bob },
        }),
        api('GET', `/partitions/${bob}/instances`),
        api('GET', `/partitions/${bob}/instances/chat`),
        api('GET', `/partitions/${bob}/instances/chat/messages`),
        api('POST', `/partitions/${bob}/instances/chat/messages`, {
          messages: [{ role: 'user', content: 'planted by alice' }],
        }),
        api('POST', `/partitions/${bob}/instances/chat/search`, { query: 'locker code' }),
        api('POST', `/partitions/${bob}/instances/chat/fork`, {
          message_id: 'x',
          new_instance: 'stolen',
        }),
        api('DELETE', `/partitions/${bob}/instances/chat?purge=true`),
        api('GET', `/export?partition=${bob}`),
        api('GET', `/partitions/${bob}/instances/chat/topics`),
        api('GET', `/partitions/${bob}/instances/chat/periods`),
        api('POST', `/partitions/${bob}/instances/chat/maintenance`, {}),
        // Running the jobs over every partition needs a key granted all of them.
        api('POST', '/maintenance', {}),
      ];
      for (const response of await Promise.all(attempts)) {
        const body = await expectOpenAiError(response, 403);
        expect(body.error.code).toBe('partition_forbidden');
      }
      expect(upstream.chatRequests()).toHaveLength(0);
      expect(await storeSnapshot(store, [bob])).toEqual(before);
    });

    it("keeps memory tools and retrieval inside the key's partition", async () => {
      const bobTurns = await store.listMessages(
        { partition: bob, instance: 'chat' },
        { limit: 10 },
      );
      upstream.onChat((request) => {
        if (
          (request.body.messages as { role: string }[]).some((message) => message.role === 'tool')
        )
          return textReply(request, 'done looking');
        return toolCallReply(request, [
          { name: 'get_message_by_id', arguments: JSON.stringify({ message_id: bobTurns[0]!.id }) },
          {
            name: 'search_and_retrieve',
            arguments: JSON.stringify({ query: 'What is my locker code?' }),
          },
        ]);
      });
      expect((await call(alice, ALICE_KEY, 'what is the locker code?')).status).toBe(200);
      const sent = JSON.stringify(upstream.chatRequests().map((request) => request.body));
      expect(sent).not.toContain(secret);
      upstream.reset();
    });

    it('lets a key manage, search and export its own partition through /api/v1', async () => {
      expect((await api('GET', `/partitions/${alice}/instances`)).status).toBe(200);
      expect((await api('GET', `/partitions/${alice}/instances/chat/messages`)).status).toBe(200);
      const search = await api('POST', `/partitions/${alice}/instances/chat/search`, {
        query: 'locker code',
      });
      expect(search.status).toBe(200);
      expect(await search.text()).not.toContain(secret);
      const exported = await api('GET', `/export?partition=${alice}`);
      expect(exported.status).toBe(200);
      const text = await exported.text();
      expect(text).toContain(alice);
      expect(text).not.toContain(bob);
      expect((await api('GET', '/stats', undefined, ADMIN_KEY)).status).toBe(200);
    });

    it('shows a key confined to its partitions only those in the partition list, stats and export', async () => {
      const partitions = await api('GET', '/partitions');
      expect(partitions.status).toBe(200);
      const listed = (await partitions.json()) as { data: { partition: string }[] };
      expect(listed.data.map((each) => each.partition)).toEqual([alice]);

      const stats = await api('GET', '/stats');
      expect(stats.status).toBe(200);
      const figures = (await stats.json()) as Record<string, unknown>;
      expect(figures).toMatchObject({
        object: 'memory.stats',
        partitions: 1,
        instances: 1,
        tool_calls: null,
        store: { size_bytes: null, nodes: null, relationships: null },
      });
      const aliceTurns = await store.countMessages({ partition: alice, instance: 'chat' });
      expect(figures['messages']).toBe(aliceTurns);
      expect(figures['messages_today']).toBe(aliceTurns);

      const exported = await api('GET', '/export');
      expect(exported.status).toBe(200);
      const lines = (await exported.text()).trim().split('\n');
      expect(JSON.parse(lines[0]!)).toMatchObject({ type: 'header' });
      expect(lines.length).toBeGreaterThan(2);
      expect(lines.join('\n')).not.toContain(bob);
      expect(lines.join('\n')).not.toContain(secret);

      // The admin key still sees everything.
      const all = (await (await api('GET', '/partitions', undefined, ADMIN_KEY)).json()) as {
        data: { partition: string }[];
      };
      expect(all.data.map((each) => each.partition)).toEqual(expect.arrayContaining([alice, bob]));
    });

    it('lets a key granted "*" use any partition', async () => {
      expect((await call(bob, ADMIN_KEY, 'admin was here')).status).toBe(200);
      expect((await call(alice, ADMIN_KEY, 'and here')).status).toBe(200);
    });

    it('never logs or returns the upstream key or an inbound key, even when upstream echoes it', async () => {
      upstream.onChat((request) => ({
        kind: 'json',
        status: 401,
        body: {
          error: {
            message: `Incorrect API key provided: ${request.headers['authorization']}`,
            type: 'invalid_request_error',
            param: null,
            code: 'invalid_api_key',
          },
        },
      }));
      const refused = await call(alice, ALICE_KEY, 'echo my key back');
      expect(refused.status).toBe(401);
      upstream.reset();
      const everything = [...logs, ...seen].join('\n');
      expect(everything.length).toBeGreaterThan(1000);
      expect(everything).not.toContain(UPSTREAM_KEY);
      expect(logs.join('\n')).not.toContain(ALICE_KEY);
      expect(logs.join('\n')).not.toContain(BOB_KEY);
    });
  });
}

describe('refusing to listen unauthenticated beyond loopback', () => {
  it('stops at startup with a message naming ALLOW_UNAUTHENTICATED', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: path.join(import.meta.dirname, '..'),
      env: {
        ...process.env,
        HOST: '0.0.0.0',
        PORT: '0',
        DATA_DIR: mkdtempSync(path.join(tmpdir(), 'memory-proxy-host-')),
        NEO4J_URI: '',
        PROXY_API_KEYS_FILE: '',
        ALLOW_UNAUTHENTICATED: '',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(1);
    expect(stderr).toContain('ALLOW_UNAUTHENTICATED');
    expect(stderr).toContain('PROXY_API_KEYS_FILE');
  });
});
