import { ulid } from 'ulid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalEmbedder } from '../src/embeddings/local-embedder';
import { createLogger } from '../src/logger';
import { sweepMissingEmbeddings } from '../src/memory/embed-and-link';
import type { MemoryStore } from '../src/store/memory-store';
import { Neo4jStore } from '../src/store/neo4j/neo4j-store';
import type { Scope } from '../src/store/types';
import { startFakeUpstream, textReply, type FakeUpstream } from './support/fake-upstream';
import { expectConsistentTree, orphanCounts } from './support/graph-checks';
import { expectOpenAiError, readAnswer } from './support/http-checks';
import { ownNeo4j, type OwnNeo4j } from './support/own-neo4j';
import { startProxy, type RunningProxy } from './support/proxy-harness';
import { neo4jTestConfig, storeFactories, TEST_DIMENSIONS } from './support/stores';

const sqlite = storeFactories().find((factory) => factory.name === 'sqlite')!;
/** Bolt port of the Neo4j this file starts and kills (the shared one is on 7687). */
const OWN_NEO4J_PORT = 7697;

function chat(
  proxy: RunningProxy,
  scope: Scope,
  content: string,
  stream = false,
): Promise<Response> {
  return fetch(`${proxy.baseUrl(scope.partition, scope.instance)}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'gpt-4o-mini',
      stream,
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content },
      ],
    }),
    signal: AbortSignal.timeout(30_000),
  });
}

/** Error log lines of the proxies, shown when an assertion about a status fails. */
const errorLog: string[] = [];

/** The two failure modes side by side on one store: closed (503) and open (answers without memory). */
async function startBoth(
  store: MemoryStore,
  upstream: FakeUpstream,
): Promise<{ closed: RunningProxy; open: RunningProxy }> {
  const logger = createLogger('error', (line) => errorLog.push(line));
  const closed = await startProxy({ store, upstreamUrl: upstream.url, deps: { logger } });
  const open = await startProxy({
    store,
    upstreamUrl: upstream.url,
    env: { STORE_FAILURE_MODE: 'open' },
    deps: { logger },
  });
  return { closed, open };
}

/** What every outage check asserts: a quick OpenAI-shaped 503, /ready saying why, memoryless answers in open mode. */
async function expectOutageHandled(
  proxies: { closed: RunningProxy; open: RunningProxy },
  upstream: FakeUpstream,
  scope: Scope,
): Promise<void> {
  const started = Date.now();
  const refused = await chat(proxies.closed, scope, 'are you there?');
  expect(Date.now() - started).toBeLessThan(10_000);
  expect((await expectOpenAiError(refused, 503)).error.code).toBe('store_unavailable');
  // Once the outage is known, the next ones do not wait on the store at all.
  const again = Date.now();
  expect((await chat(proxies.closed, scope, 'still there?', true)).status).toBe(503);
  expect(Date.now() - again).toBeLessThan(1_000);
  const ready = await fetch(`${proxies.closed.origin}/ready`);
  expect(ready.status).toBe(503);
  expect(await ready.json()).toMatchObject({
    status: 'unavailable',
    detail: expect.stringMatching(/.{10,}/),
  });
  const metrics = await (await fetch(`${proxies.closed.origin}/metrics`)).text();
  expect(metrics).toMatch(/^memory_proxy_store_up 0$/m);

  upstream.reset();
  for (const stream of [false, true]) {
    const answered = await chat(proxies.open, scope, `answer anyway ${stream}`, stream);
    expect(answered.status).toBe(200);
    expect(answered.headers.get('x-memory-status')).toBe('unavailable');
    expect((await readAnswer(answered)).kind).toBe(stream ? 'stream' : 'json');
  }
  // Without memory the client's messages go upstream exactly as sent.
  expect(upstream.chatRequests().map((request) => request.body.messages)).toEqual(
    [false, true].map((stream) => [
      { role: 'system', content: 'be brief' },
      { role: 'user', content: `answer anyway ${stream}` },
    ]),
  );
}

async function waitUntilServing(proxy: RunningProxy, scope: Scope): Promise<number> {
  const started = Date.now();
  for (;;) {
    const response = await chat(proxy, scope, `back? ${Date.now()}`);
    if (response.status === 200) return Date.now() - started;
    await response.body?.cancel();
    if (Date.now() - started > 90_000)
      throw new Error(`the proxy still answers ${response.status} after 90 s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe('store faults: the embedded store goes away', () => {
  let store: MemoryStore;
  let upstream: FakeUpstream;
  let proxies: { closed: RunningProxy; open: RunningProxy };
  const scope = { partition: `sf-${ulid()}`, instance: 'i' };

  beforeAll(async () => {
    store = await sqlite.create();
    upstream = await startFakeUpstream();
    proxies = await startBoth(store, upstream);
  });
  afterAll(async () => {
    await proxies?.closed.close();
    await proxies?.open.close();
    await upstream?.close();
    await store?.close();
  });

  it('answers 503 quickly (or without memory in open mode), says why on /ready, and resumes when the store is back', async () => {
    expect((await chat(proxies.closed, scope, 'before')).status).toBe(200);
    await proxies.closed.background.drain();
    expect(await (await fetch(`${proxies.closed.origin}/ready`)).json()).toMatchObject({
      status: 'ready',
    });
    await store.close();
    await expectOutageHandled(proxies, upstream, scope);
    await store.init({ embeddingDimensions: TEST_DIMENSIONS });
    expect(await waitUntilServing(proxies.closed, scope)).toBeLessThan(5_000);
    expect((await fetch(`${proxies.closed.origin}/ready`)).status).toBe(200);
    const turns = await expectConsistentTree(store, scope);
    expect(
      turns.filter((turn) => turn.content === 'before' || turn.content.startsWith('answer anyway')),
    ).toHaveLength(1);
  });
});

describe.skipIf(neo4jTestConfig() === null)(
  'store faults: Neo4j is killed during traffic (own server)',
  () => {
    let neo4j: OwnNeo4j;
    let store: Neo4jStore;
    let upstream: FakeUpstream;
    let proxies: { closed: RunningProxy; open: RunningProxy };
    const partition = `kill-${ulid()}`;

    beforeAll(async () => {
      neo4j = ownNeo4j(OWN_NEO4J_PORT);
      await neo4j.start();
      store = new Neo4jStore(neo4j.config);
      await store.init({ embeddingDimensions: TEST_DIMENSIONS });
      upstream = await startFakeUpstream();
      // Each answer takes a while, so the kill lands while requests are in flight.
      upstream.onChat((request) =>
        textReply(request, 'a steady answer in several pieces', { chunkDelayMs: 40 }),
      );
      proxies = await startBoth(store, upstream);
    }, 300_000);
    afterAll(async () => {
      await proxies?.closed.close();
      await proxies?.open.close();
      await upstream?.close();
      await store?.close();
      await neo4j?.destroy();
    }, 120_000);

    it(
      'turns in-flight and later requests into well-formed answers or quick 503s, writes nothing by halves, and resumes after a restart',
      { timeout: 300_000 },
      async () => {
        const scopes = Array.from({ length: 8 }, (_, index) => ({
          partition,
          instance: `i${index}`,
        }));
        for (const scope of scopes)
          expect((await chat(proxies.closed, scope, 'warm up')).status).toBe(200);

        const inFlight = scopes.flatMap((scope, index) => [
          chat(proxies.closed, scope, `during ${index}`, index % 2 === 0),
          chat(proxies.closed, scope, `also during ${index}`),
        ]);
        await new Promise((resolve) => setTimeout(resolve, 60));
        neo4j.kill();
        const settled = await Promise.all(
          inFlight.map(async (pending) => readAnswer(await pending)),
        );
        for (const answer of settled) {
          if (answer.kind === 'error') expect(answer.status, errorLog.join('\n')).toBe(503);
        }

        await expectOutageHandled(proxies, upstream, scopes[0]!);
        upstream.onChat((request) => textReply(request, 'a steady answer in several pieces'));

        await neo4j.start();
        const resumedAfter = await waitUntilServing(proxies.closed, scopes[1]!);
        expect(resumedAfter).toBeLessThan(60_000);
        expect((await fetch(`${proxies.closed.origin}/ready`)).status).toBe(200);

        // Whatever the kill interrupted is either whole or absent: gapless seq, every parent there.
        for (const scope of scopes) await expectConsistentTree(store, scope);
        await Promise.all([proxies.closed.background.drain(), proxies.open.background.drain()]);
        // Embeddings the outage prevented are what the startup sweep is for.
        await sweepMissingEmbeddings({
          store,
          embedder: new LocalEmbedder({ dimensions: TEST_DIMENSIONS }),
          chunkThreshold: 4000,
          synapseThreshold: 0.85,
        });
        expect(await orphanCounts(store, [partition])).toEqual({
          chunksWithoutParent: 0,
          toolCallsWithoutMessage: 0,
          messagesWithoutEmbedding: 0,
          toolCallsWithoutEmbedding: 0,
          seqGaps: 0,
          countersBehind: 0,
        });
      },
    );
  },
);
