import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { ulid } from 'ulid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MemoryStore } from '../src/store/memory-store';
import { Neo4jStore } from '../src/store/neo4j/neo4j-store';
import { SqliteStore } from '../src/store/sqlite/sqlite-store';
import type { Scope } from '../src/store/types';
import {
  lastUserText,
  startFakeUpstream,
  textReply,
  type FakeUpstream,
} from './support/fake-upstream';
import { expectConsistentTree } from './support/graph-checks';
import { startRealProxy, type RealProxy } from './support/real-proxy';
import { neo4jTestConfig, TEST_DIMENSIONS } from './support/stores';

interface Target {
  name: string;
  env: Record<string, string>;
  open(): Promise<MemoryStore>;
}

function targets(): Target[] {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'memory-proxy-workers-'));
  const list: Target[] = [
    {
      name: 'sqlite',
      env: { DATA_DIR: dataDir, NEO4J_URI: '' },
      async open() {
        const store = new SqliteStore({ dataDir });
        await store.init({ embeddingDimensions: TEST_DIMENSIONS });
        return store;
      },
    },
  ];
  const neo4j = neo4jTestConfig();
  if (neo4j) {
    list.push({
      name: 'neo4j',
      env: {
        NEO4J_URI: neo4j.uri,
        NEO4J_USER: neo4j.user,
        NEO4J_PASSWORD: neo4j.password,
        NEO4J_DATABASE: neo4j.database,
      },
      async open() {
        const store = new Neo4jStore(neo4j);
        await store.init({ embeddingDimensions: TEST_DIMENSIONS });
        return store;
      },
    });
  }
  return list;
}

/**
 * Proxy processes whose parent is `pid` (Linux /proc). Other children are left out: tsx may run
 * an esbuild service beside a process that compiles a module on first import.
 */
function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The command may hold spaces and parentheses: the fields after its closing one are fixed.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (parent !== pid) continue;
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('src/main.ts')) children.push(Number(entry));
    } catch {
      // The process ended while the list was read.
    }
  }
  return children;
}

/** POSTs a chat request on a connection of its own, so the primary hands each to the next worker. */
function ask(
  origin: string,
  scope: Scope,
  content: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  const payload = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }] });
  return new Promise((resolve, reject) => {
    const request = http.request(
      `${origin}/partition/${scope.partition}/instance/${scope.instance}/v1/chat/completions`,
      {
        method: 'POST',
        agent: false,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
          ...headers,
        },
      },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      },
    );
    request.on('error', reject);
    request.end(payload);
  });
}

for (const target of targets()) {
  describe(`WORKERS=2: two processes serve one port and share the store (${target.name})`, () => {
    let upstream: FakeUpstream;
    let proxy: RealProxy;
    let store: MemoryStore;
    const partition = `workers-${ulid().toLowerCase()}`;

    beforeAll(async () => {
      upstream = await startFakeUpstream();
      upstream.onChat((request) =>
        textReply(request, `answer to ${lastUserText(request)}`, { chunkDelayMs: 2 }),
      );
      proxy = await startRealProxy({
        ...target.env,
        WORKERS: '2',
        UPSTREAM_BASE_URL: upstream.url,
        EMBEDDING_DIMENSIONS: String(TEST_DIMENSIONS),
      });
      // Each worker logs that it listens; the first line resolved startRealProxy, wait for the second.
      for (
        let attempt = 0;
        attempt < 200 &&
        proxy.log.filter((line) => line.includes('memory-proxy listening')).length < 2;
        attempt++
      ) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      store = await target.open();
    }, 60_000);
    afterAll(async () => {
      await proxy?.kill().catch(() => undefined);
      await upstream?.close();
      await store?.close();
    });

    it('runs two worker processes under the primary', () => {
      expect(childrenOf(proxy.child.pid!)).toHaveLength(2);
      expect(proxy.log.filter((line) => line.includes('memory-proxy listening'))).toHaveLength(2);
    });

    it('stores every turn of concurrent requests once, in order, whichever worker took them', async () => {
      const scopes = [0, 1, 2].map((index): Scope => ({ partition, instance: `busy-${index}` }));
      const questions = scopes.map((scope) =>
        Array.from({ length: 12 }, (_, index) => `${scope.instance} question ${index}`),
      );
      // Requests of one instance go one after another (a conversation); the instances overlap.
      await Promise.all(
        scopes.map(async (scope, index) => {
          for (const question of questions[index]!) {
            const answer = await ask(proxy.origin, scope, question);
            expect(answer.status).toBe(200);
            expect(JSON.parse(answer.body).choices[0].message.content).toBe(
              `answer to ${question}`,
            );
          }
        }),
      );
      for (const [index, scope] of scopes.entries()) {
        const turns = await store.listMessages(scope, { limit: 100 });
        expect(turns.map((turn) => turn.content)).toEqual(
          questions[index]!.flatMap((question) => [question, `answer to ${question}`]),
        );
        expect(turns.map((turn) => turn.seq)).toEqual(turns.map((_, position) => position + 1));
        await expectConsistentTree(store, scope);
      }
    }, 120_000);

    it('retrieves a fact one worker stored for a question the other worker answers', async () => {
      const scope: Scope = { partition, instance: 'fact' };
      const small = { 'x-memory-context-window': '1200' };
      expect(
        (
          await ask(
            proxy.origin,
            scope,
            'Remember this: the storage unit code is 58213, for the garage on Elm Street.',
            small,
          )
        ).status,
      ).toBe(200);
      // Enough filler, each on a fresh connection (so both workers take some), to push the fact out of the window.
      for (let index = 0; index < 14; index++) {
        const filler = `Filler turn ${index}: we talked about the weather, the train timetable and what to cook for dinner tonight, nothing else of note.`;
        expect((await ask(proxy.origin, scope, filler, small)).status).toBe(200);
      }
      const before = upstream.chatRequests().length;
      // Two questions on two fresh connections: one of them lands on each worker.
      for (const question of [
        'What was the storage unit code for the garage?',
        'Which code opens the storage unit of the garage?',
      ]) {
        expect((await ask(proxy.origin, scope, question, small)).status).toBe(200);
      }
      const asked = upstream.chatRequests().slice(before);
      expect(asked).toHaveLength(2);
      for (const request of asked) {
        const messages = (request.body as { messages: { role: string; content: string }[] })
          .messages;
        // The planted turn is out of the window, yet its fact reaches upstream through memory.
        expect(
          messages.some(
            (message) => message.role === 'user' && message.content.startsWith('Remember this'),
          ),
        ).toBe(false);
        expect(messages.map((message) => message.content).join('\n')).toContain('58213');
      }
    }, 120_000);

    it('stops every worker and exits cleanly on SIGTERM', async () => {
      const workers = childrenOf(proxy.child.pid!);
      const exited = new Promise<number | null>((resolve) =>
        proxy.child.once('exit', (code) => resolve(code)),
      );
      proxy.child.kill('SIGTERM');
      expect(await exited).toBe(0);
      for (const pid of workers) expect(() => process.kill(pid, 0)).toThrow();
    }, 30_000);
  });
}

describe('WORKERS=2 with a store it cannot use', () => {
  it('stops with the reason instead of starting workers that fail in turn', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'memory-proxy-workers-newer-'));
    const store = new SqliteStore({ dataDir });
    await store.init({ embeddingDimensions: TEST_DIMENSIONS });
    await store.close();
    // A file a newer proxy wrote: this one must not touch it.
    const db = new Database(path.join(dataDir, 'memory.sqlite'));
    db.pragma('user_version = 99');
    db.close();
    // Workers forked on it would each exit and be restarted, forever: the primary must stop first.
    const failure = await startRealProxy({ DATA_DIR: dataDir, NEO4J_URI: '', WORKERS: '2' }).then(
      async (proxy) => {
        await proxy.kill();
        return null;
      },
      (error: Error) => error.message,
    );
    expect(failure).toMatch(/exited \(1\) before listening/);
    expect(failure).toMatch(/schema version 99, newer than this proxy understands/);
    expect(failure).not.toMatch(/starting workers/);
  }, 30_000);
});
