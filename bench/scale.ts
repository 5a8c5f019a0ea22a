/**
 * Scale: how long building a request's context takes (ingest, recent window, running summary,
 * hybrid retrieval, memory index, assembly; no upstream) as one instance grows to 10^3, 10^4,
 * 10^5 and 10^6 stored messages, and with 10^6 spread over 1,000 instances; the bulk-load rate
 * (with embeddings) that got it there, and the process's RSS.
 *   npm run bench:scale -- [--stores sqlite,neo4j] [--sizes 1e3,1e4,1e5,1e6] [--neo4j-sizes 1e3,1e4,1e5]
 *     [--instances 1000] [--instance-turns 1000] [--requests 200] [--no-multi] [--neo4j-multi] [--no-fresh-load]
 *     [--server-warmup 600]   (context builds in a scratch instance before the first row; 0: none)
 *     [--settle 0]   (after each one-instance row, idles this many seconds and times the row again)
 *     [--suffix multi]   (results in scale-<store>-<suffix>-<date>.md, beside the day's other runs)
 * prepareRequest is called directly, as the chat route calls it; after each request an answer is
 * stored and embedded like the proxy's background work does (not timed). On the embedded store
 * the largest size is then loaded once more into a new instance nobody searches meanwhile: the
 * one-instance rows load into an instance whose vector index is live in this process, and
 * keeping that index current (placing every new vector, retraining as it grows) is part of
 * their rate (--no-fresh-load skips it).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { memoryWriter } from '../src/app';
import { loadConfig } from '../src/config/load-config';
import { LocalEmbedder } from '../src/embeddings/local-embedder';
import { embedAndLink } from '../src/memory/embed-and-link';
import { createMemoryContext } from '../src/memory/memory-context';
import { prepareRequest } from '../src/memory/prepare-request';
import { memoryToolDefinitions } from '../src/memory/tools/memory-tools';
import { storeAnswer } from '../src/proxy/store-answer';
import type { MemoryStore } from '../src/store/memory-store';
import type { Scope } from '../src/store/types';
import { BENCH_DIMENSIONS, numberList, openBenchStore, parseArguments, storeList, type StoreName } from './perf/bench-store';
import { bulkLoad } from './perf/bulk-load';
import { Corpus } from './perf/corpus';
import { mib, ms, summarize } from './perf/percentiles';
import { postChat, closeConnections } from './perf/chat-client';
import { startProxyChild } from './perf/proxy-child';
import { startReport, writeReport, type Table } from './perf/report';
import { SERVER_WARMUP_REQUESTS, warmUpServer } from './perf/server-warm-up';
import { startFakeUpstream, textReply } from '../test/support/fake-upstream';

const options = parseArguments(process.argv.slice(2));
const requests = Number(options.get('requests') ?? 200);
const warmup = Number(options.get('warmup') ?? 20);
const instances = Number(options.get('instances') ?? 1000);
const instanceTurns = Number(options.get('instance-turns') ?? 1000);
const config = loadConfig({ LOG_LEVEL: 'silent', EMBEDDING_DIMENSIONS: String(BENCH_DIMENSIONS) });
const embedder = new LocalEmbedder({ dimensions: BENCH_DIMENSIONS });
const tools = memoryToolDefinitions(new Set());
/** Questions the vector search's recall is measured with. */
const RECALL_QUERIES = 20;
const serverWarmup = Number(options.get('server-warmup') ?? SERVER_WARMUP_REQUESTS);
/**
 * Seconds to idle before timing a one-instance row again: a bulk load may leave the server busy
 * for a while (merging index segments), which a store that grows at a chat's pace never meets.
 */
const settleSeconds = Number(options.get('settle') ?? 0);
const suffix = options.get('suffix');

for (const storeName of storeList(options.get('stores'))) await runStore(storeName);
closeConnections();

async function runStore(storeName: StoreName): Promise<void> {
  const machine = startReport();
  const sizes =
    storeName === 'sqlite'
      ? numberList(options.get('sizes'), [1e3, 1e4, 1e5, 1e6])
      : numberList(options.get('neo4j-sizes'), [1e3, 1e4, 1e5]);
  // The spread over many instances runs on the embedded store unless --no-multi, on Neo4j with --neo4j-multi.
  const multi = storeName === 'sqlite' ? !options.has('no-multi') : options.has('neo4j-multi');
  const bench = await openBenchStore(storeName);
  const partition = `bench-scale-${Date.now().toString(36)}`;
  const scope: Scope = { partition, instance: 'one' };
  const scopes: Scope[] = [scope];
  const rows: (string | number)[][] = [];
  const tables: Table[] = [];
  const enrich = createMemoryContext({ store: bench.store, embedder, config });
  const warmUpScope: Scope = { partition, instance: 'warm-up' };
  // Purged again with the rest if the run fails before the warm-up purges it.
  scopes.push(warmUpScope);
  let warmedUp = 'none';
  try {
    warmedUp = await warmUpServer({
      store: bench.store,
      scope: warmUpScope,
      requests: serverWarmup,
      send: async (count) => {
        await buildContexts(bench.store, enrich, () => warmUpScope, count);
      },
    });
    let loaded = 0;
    let leaf: string | null = null;
    for (const size of sizes) {
      const load = await bulkLoad({
        store: bench.store,
        dimensions: BENCH_DIMENSIONS,
        scopes: [scope],
        turnsPerScope: size - loaded,
        firstTurn: loaded,
        continueFrom: leaf === null ? undefined : [leaf],
        label: `${storeName} to ${size}`,
      });
      leaf = load.leaves[0] ?? leaf;
      loaded = size;
      const index = await warmIndex(bench.store, [scope]);
      const recall = await vectorRecall(bench.store, scope);
      // Each timed pass stores a question and an answer per request, which the next size continues.
      const timePass = async (): Promise<number[]> => {
        const timings = await buildContexts(bench.store, enrich, () => scope, requests + warmup);
        leaf = (await bench.store.latestTurn(scope))?.id ?? leaf;
        loaded += 2 * (requests + warmup);
        return timings.slice(warmup);
      };
      rows.push(row(`${size} in one instance`, load, index, await timePass(), recall));
      if (settleSeconds > 0) {
        await sleep(settleSeconds * 1000);
        rows.push(row(`${size} in one instance, after ${settleSeconds} s idle`, null, null, await timePass()));
      }
    }
    if (sizes.length > 0) tables.push(await proxyAtScale(bench.env, scope, loaded));
    if (storeName === 'sqlite' && sizes.length > 0 && !options.has('no-fresh-load')) {
      const fresh: Scope = { partition, instance: 'fresh' };
      scopes.push(fresh);
      const size = Math.max(...sizes);
      const load = await bulkLoad({ store: bench.store, dimensions: BENCH_DIMENSIONS, scopes: [fresh], turnsPerScope: size, label: `${storeName} ${size} into a new instance` });
      rows.push(loadRow(`${size} into a new instance, no search index live while loading`, load));
    }
    if (multi) {
      const spread = Array.from({ length: instances }, (_, index): Scope => ({ partition, instance: `spread-${index}` }));
      scopes.push(...spread);
      const load = await bulkLoad({ store: bench.store, dimensions: BENCH_DIMENSIONS, scopes: spread, turnsPerScope: instanceTurns, label: `${storeName} ${instances} instances` });
      // Requests go to instances in a scattered order; the first pass meets each index cold.
      const pick = (round: number) => spread[(round * 7919) % spread.length]!;
      const cold = await buildContexts(bench.store, enrich, pick, requests);
      const warm = await buildContexts(bench.store, enrich, pick, requests);
      const label = `${instances * instanceTurns} over ${instances} instances`;
      rows.push(row(`${label}, first request of an instance`, load, null, cold));
      rows.push(row(`${label}, instances seen before`, null, null, warm));
    }
  } finally {
    await bench.dispose(scopes);
  }
  writeReport(
    {
      name: `scale-${storeName}`,
      suffix,
      title: `Context build at scale (${storeName})`,
      command: `npm run bench:scale -- --stores ${storeName} --${storeName === 'sqlite' ? 'sizes' : 'neo4j-sizes'} ${sizes.join(',')} --requests ${requests} --server-warmup ${serverWarmup}${settleSeconds > 0 ? ` --settle ${settleSeconds}` : ''}${multiFlag(storeName, multi)}`,
      store: bench.description,
      embedder: `${embedder.model}:${embedder.dimensions}`,
      conditions: {
        requests: `${requests} per row (after ${warmup} warm-up requests in the single instance), one new user message each, an answer stored and embedded after each (not timed)`,
        'server warm-up': warmedUp,
        context: 'DEFAULT_CONTEXT_WINDOW 4096, memory tools offered: the window evicts, so every request runs the summary, hybrid retrieval and the memory index',
        'bulk load': 'appendPath in batches of 1,000 turns (one branch per instance) plus their embeddings (local embedder), through the store interface',
      },
      tables: [
        {
          title: 'Context build time (ms) and memory',
          columns: ['stored messages', 'bulk load msg/s', 'load s', 'vector index', 'recall@10', 'p50', 'p95', 'p99', 'max', 'RSS'],
          rows,
        },
        ...tables,
      ],
      notes: [
        'RSS is the benchmark process after the row (it holds the store, its vector indexes and the loader).',
        'bulk load msg/s of the one-instance rows includes keeping that instance\'s live vector index current in the same process (it was searched at the size before); the new-instance row loads with no index live, as a migration into a proxy that is not serving the instance does.',
        'vector index: loading and training the instance vector index of the embedded store before the first request (a first search does it in the background otherwise).',
        `recall@10: share of the exact 10 nearest turns (brute force over every stored vector) that the index's vector search returns, over ${RECALL_QUERIES} questions.`,
      ],
    },
    machine,
  );
}

/** The option that gives a store's run its multi-instance rows or leaves them out, where it is not the default. */
function multiFlag(storeName: StoreName, multi: boolean): string {
  if (!multi) return storeName === 'sqlite' ? ' --no-multi' : '';
  return `${storeName === 'neo4j' ? ' --neo4j-multi' : ''} --instances ${instances} --instance-turns ${instanceTurns}`;
}

/**
 * A fresh proxy process serving the largest instance: how long its vector index takes to load
 * (embedded store), its RSS, and end-to-end request latency against a fake upstream.
 */
async function proxyAtScale(env: Record<string, string>, scope: Scope, stored: number): Promise<Table> {
  const upstream = await startFakeUpstream();
  upstream.onChat((request) => textReply(request, 'A short answer of a sentence or two, as a chat model gives.'));
  const proxy = await startProxyChild({ ...env, UPSTREAM_BASE_URL: upstream.url, UPSTREAM_API_KEY: 'bench', EMBEDDING_DIMENSIONS: String(BENCH_DIMENSIONS) });
  try {
    const idle = (await proxy.stats()).rss;
    const warmed = await proxy.warm([scope]);
    const loaded = (await proxy.stats()).rss;
    const corpus = new Corpus(777);
    const url = `${proxy.origin}/partition/${scope.partition}/instance/${scope.instance}/v1/chat/completions`;
    const timings: number[] = [];
    let rssMax = loaded;
    for (let round = 0; round < requests; round++) {
      const timing = await postChat(url, { model: 'bench-model', messages: [{ role: 'user', content: corpus.question() }] });
      if (timing.status !== 200) throw new Error(`the proxy answered ${timing.status}`);
      timings.push(timing.totalMs);
      await proxy.drain();
      if (round % 20 === 19) {
        rssMax = Math.max(rssMax, (await proxy.stats()).rss);
        upstream.reset();
        upstream.onChat((request) => textReply(request, 'A short answer of a sentence or two, as a chat model gives.'));
      }
    }
    const stats = summarize(timings);
    return {
      title: `A proxy process serving the instance of ${stored} messages (${requests} requests, background work drained between them)`,
      columns: ['RSS at start', 'index load', 'RSS after index load', 'RSS max under requests', 'request p50 ms', 'request p99 ms'],
      rows: [[mib(idle), warmed.ms === null ? 'server-side' : `${(warmed.ms / 1000).toFixed(1)} s`, mib(loaded), mib(rssMax), ms(stats.p50), ms(stats.p99)]],
    };
  } finally {
    await proxy.stop();
    await upstream.close();
  }
}

/** recall@10 of the store's vector search against its exact search, or '' when it has no exact path. */
async function vectorRecall(store: MemoryStore, scope: Scope): Promise<string> {
  const exact = (store as { exactVectorSearch?: (scope: Scope, vector: number[], k: number) => Promise<{ id: string }[]> }).exactVectorSearch;
  if (!exact) return '';
  const corpus = new Corpus(31337);
  let found = 0;
  let wanted = 0;
  for (let round = 0; round < RECALL_QUERIES; round++) {
    const [vector] = await embedder.embed([corpus.question()]);
    const truth = await exact.call(store, scope, vector!, 10);
    const hits = new Set((await store.vectorSearch(scope, vector!, { k: 10 })).map((hit) => hit.id));
    found += truth.filter((hit) => hits.has(hit.id)).length;
    wanted += truth.length;
  }
  return wanted === 0 ? '' : (found / wanted).toFixed(3);
}

async function warmIndex(store: MemoryStore, scopes: Scope[]): Promise<string> {
  const warm = (store as { warmVectorIndex?: (scope: Scope) => Promise<{ vectors: number; lists: number }> }).warmVectorIndex;
  if (!warm) return 'server-side';
  const started = performance.now();
  let description = '';
  for (const scope of scopes) {
    const result = await warm.call(store, scope);
    description = `${result.vectors} vectors, ${result.lists} lists`;
  }
  return `${description}, ${((performance.now() - started) / 1000).toFixed(1)} s`;
}

async function buildContexts(
  store: MemoryStore,
  enrich: ReturnType<typeof createMemoryContext>,
  scopeFor: (round: number) => Scope,
  count: number,
): Promise<number[]> {
  const corpus = new Corpus(424242);
  const writer = memoryWriter({ store, embedder, config });
  const timings: number[] = [];
  for (let round = 0; round < count; round++) {
    const scope = scopeFor(round);
    const started = performance.now();
    const prepared = await prepareRequest({
      store,
      config,
      scope,
      body: { model: 'bench-model', messages: [{ role: 'user', content: corpus.question() }] },
      requestId: `bench-${round}`,
      contextWindowOverride: null,
      extraTools: tools,
      enrich,
    });
    timings.push(performance.now() - started);
    const answer = await storeAnswer({ store, scope, parent: prepared.leaf, message: { role: 'assistant', content: corpus.turn(1) }, model: 'bench-model', requestId: `bench-${round}` });
    const stored = answer ? [...prepared.created, answer] : prepared.created;
    await embedAndLink(writer, { scope, turns: stored });
    // The work the proxy queues after the answer (the next window's summary), untimed like it.
    for (const job of prepared.afterAnswer) await job.run();
  }
  return timings;
}

function loadRow(label: string, load: { perSecond: number; seconds: number }): (string | number)[] {
  return [label, Math.round(load.perSecond), load.seconds.toFixed(0), '', '', '', '', '', '', mib(process.memoryUsage().rss)];
}

function row(label: string, load: { perSecond: number; seconds: number } | null, index: string | null, timings: number[], recall = ''): (string | number)[] {
  const stats = summarize(timings);
  return [
    label,
    load ? Math.round(load.perSecond) : '',
    load ? load.seconds.toFixed(0) : '',
    index ?? '',
    recall,
    ms(stats.p50),
    ms(stats.p95),
    ms(stats.p99),
    ms(Math.max(...timings)),
    mib(process.memoryUsage().rss),
  ];
}
