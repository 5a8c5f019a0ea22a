import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ulid } from 'ulid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Neo4jConfig } from '../src/config/load-config';
import type { MemoryStore } from '../src/store/memory-store';
import { Neo4jStore } from '../src/store/neo4j/neo4j-store';
import { SqliteStore } from '../src/store/sqlite/sqlite-store';
import { startFakeUpstream, textReply, type FakeUpstream } from './support/fake-upstream';
import { expectConsistentTree, orphanCounts } from './support/graph-checks';
import { ownNeo4j, type OwnNeo4j } from './support/own-neo4j';
import { startRealProxy, type RealProxy } from './support/real-proxy';
import { neo4jTestConfig, TEST_DIMENSIONS } from './support/stores';

/** Bolt port of this file's own Neo4j: the restarted proxy's startup sweep must not touch the shared one's data. */
const OWN_NEO4J_PORT = 7698;
const LONG_TEXT = Array.from(
  { length: 400 },
  (_, index) => `sentence ${index} about river ledgers and copper lanterns`,
).join('. ');

interface Target {
  name: string;
  env: Record<string, string>;
  /** A store on the same data, for the checks (opened once the proxy is gone). */
  open(): Promise<MemoryStore>;
  neo4j: Neo4jConfig | null;
}

function crashSuite(makeTarget: () => Promise<Target>, cleanup: () => Promise<void>) {
  let target: Target;
  let upstream: FakeUpstream;
  let proxy: RealProxy | null = null;
  const partition = `crash-${ulid()}`;

  beforeAll(async () => {
    target = await makeTarget();
    upstream = await startFakeUpstream();
  }, 300_000);
  afterAll(async () => {
    await proxy?.kill();
    await upstream?.close();
    await cleanup();
  }, 120_000);

  const start = async () => {
    proxy = await startRealProxy({
      ...target.env,
      UPSTREAM_BASE_URL: upstream.url,
      INDEX_CHUNK_THRESHOLD: '400',
      EMBEDDING_DIMENSIONS: String(TEST_DIMENSIONS),
    });
    return proxy;
  };
  const chat = (origin: string, instance: string, content: string, stream: boolean) =>
    fetch(`${origin}/partition/${partition}/instance/${instance}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', stream, messages: [{ role: 'user', content }] }),
    });
  const pending = async (origin: string) =>
    Number(
      /^memory_proxy_background_jobs_pending (\d+)$/m.exec(
        await (await fetch(`${origin}/metrics`)).text(),
      )?.[1] ?? NaN,
    );

  it(
    'keeps the graph consistent across SIGKILLs mid-stream and mid-background-work, finishing embeddings after restart',
    { timeout: 300_000 },
    async () => {
      // 1. Killed while streaming answers.
      let running = await start();
      upstream.onChat((request) =>
        textReply(request, 'a long and slow answer '.repeat(20), { chunkDelayMs: 30 }),
      );
      const streaming = await chat(running.origin, 'stream', 'start a long answer', true);
      const reader = streaming.body!.getReader();
      for (let received = 0; received < 3; received++) await reader.read();
      const inFlight = [
        chat(running.origin, 'json', 'a question in flight', false).catch(() => null),
        chat(running.origin, 'stream-2', 'another stream', true).catch(() => null),
      ];
      await new Promise((resolve) => setTimeout(resolve, 50));
      await running.kill();
      await reader.read().catch(() => undefined);
      await Promise.all(inFlight);

      // 2. Killed while the background queue embeds and chunks long turns.
      running = await start();
      upstream.onChat((request) => textReply(request, `${LONG_TEXT} (answer)`));
      const answers = await Promise.all(
        Array.from({ length: 6 }, (_, index) =>
          chat(
            running.origin,
            `long-${index}`,
            `${LONG_TEXT} (question ${index})`,
            index % 2 === 0,
          ),
        ),
      );
      expect(answers.every((answer) => answer.ok)).toBe(true);
      // The answers are out; their embeddings and chunks are what the queue works on now.
      await running.kill();
      const interrupted = await target.open();
      const left = await orphanCounts(interrupted, [partition], target.neo4j);
      await interrupted.close();
      // The kill really landed in the middle of background work.
      expect(left.messagesWithoutEmbedding).toBeGreaterThan(0);

      // 3. Restart: the startup sweep finishes what is missing; nothing is half-written.
      running = await start();
      for (let waited = 0; (await pending(running.origin)) > 0; waited += 100) {
        if (waited > 60_000) throw new Error('the startup sweep did not finish');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect((await chat(running.origin, 'after', 'still working?', false)).status).toBe(200);
      await running.stop();
      proxy = null;
      const store = await target.open();
      try {
        expect(await orphanCounts(store, [partition], target.neo4j)).toMatchObject({
          chunksWithoutParent: 0,
          messagesWithoutEmbedding: 0,
          toolCallsWithoutEmbedding: 0,
          seqGaps: 0,
          countersBehind: 0,
        });
        for (const instance of [
          'stream',
          'json',
          'stream-2',
          'after',
          ...Array.from({ length: 6 }, (_, index) => `long-${index}`),
        ]) {
          const turns = await expectConsistentTree(store, { partition, instance });
          // Ingest comes before upstream: a question whose answer the kill cut off is still there.
          if (instance === 'stream') expect(turns[0]?.content).toBe('start a long answer');
        }
      } finally {
        await store.close();
      }
    },
  );
}

describe('crash safety: SIGKILL the real proxy (embedded store)', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'memory-proxy-crash-'));
  crashSuite(
    async () => ({
      name: 'sqlite',
      env: { DATA_DIR: dataDir, NEO4J_URI: '' },
      neo4j: null,
      async open() {
        const store = new SqliteStore({ dataDir });
        await store.init({ embeddingDimensions: TEST_DIMENSIONS });
        return store;
      },
    }),
    async () => undefined,
  );
});

describe.skipIf(neo4jTestConfig() === null)(
  'crash safety: SIGKILL the real proxy (Neo4j, own server)',
  () => {
    let neo4j: OwnNeo4j;
    crashSuite(
      async () => {
        neo4j = ownNeo4j(OWN_NEO4J_PORT);
        await neo4j.start();
        return {
          name: 'neo4j',
          env: {
            NEO4J_URI: neo4j.config.uri,
            NEO4J_USER: 'neo4j',
            NEO4J_PASSWORD: '',
            NEO4J_DATABASE: 'neo4j',
          },
          neo4j: neo4j.config,
          async open() {
            const store = new Neo4jStore(neo4j.config);
            await store.init({ embeddingDimensions: TEST_DIMENSIONS });
            return store;
          },
        };
      },
      async () => neo4j?.destroy(),
    );
  },
);
