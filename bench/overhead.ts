/**
 * Overhead: the same fake upstream called directly and through the proxy, alternating, with
 * 0, 10^4 and 10^5 stored messages in the instance the proxy serves.
 *   npm run bench:overhead -- [--stores sqlite,neo4j] [--sizes 0,1e4,1e5] [--iterations 300] [--suffix noon]
 *     [--server-warmup 600]   (requests to a scratch instance before the first row; 0: none)
 * Non-streaming latency (p50/p95/p99) and, streaming, the time to the first chunk. The proxy
 * runs in its own process (bench/perf/proxy-process.ts); the fake upstream and this client
 * share the benchmark's process. The proxy's background work (embeddings, synapses) is drained
 * between requests, as a person's think time would let it finish.
 */
import { LocalEmbedder } from '../src/embeddings/local-embedder';
import type { Scope } from '../src/store/types';
import { startFakeUpstream, textReply, type FakeUpstream } from '../test/support/fake-upstream';
import { BENCH_DIMENSIONS, numberList, openBenchStore, parseArguments, storeList, type StoreName } from './perf/bench-store';
import { bulkLoad } from './perf/bulk-load';
import { closeConnections, postChat, type ChatTiming } from './perf/chat-client';
import { Corpus } from './perf/corpus';
import { ms, summarize } from './perf/percentiles';
import { startProxyChild } from './perf/proxy-child';
import { startReport, writeReport } from './perf/report';
import { SERVER_WARMUP_REQUESTS, warmUpServer } from './perf/server-warm-up';

const ANSWER = 'Sure. Here is a short answer of a few sentences, the size of a typical chat reply, so that the proxy stores and embeds a realistic turn after each request.';
const MODEL = 'bench-model';

const options = parseArguments(process.argv.slice(2));
const sizes = numberList(options.get('sizes'), [0, 1e4, 1e5]);
const iterations = Number(options.get('iterations') ?? 300);
const warmup = Number(options.get('warmup') ?? 30);
const serverWarmup = Number(options.get('server-warmup') ?? SERVER_WARMUP_REQUESTS);
const suffix = options.get('suffix');

for (const storeName of storeList(options.get('stores'))) await runStore(storeName);
closeConnections();

async function runStore(storeName: StoreName): Promise<void> {
  const machine = startReport();
  const bench = await openBenchStore(storeName);
  const embedder = new LocalEmbedder({ dimensions: BENCH_DIMENSIONS });
  const partition = `bench-overhead-${Date.now().toString(36)}`;
  const scopes = sizes.map((size): Scope => ({ partition, instance: `messages-${size}` }));
  const warmUpScope: Scope = { partition, instance: 'warm-up' };
  const loads: string[] = [];
  for (const [index, size] of sizes.entries()) {
    if (size === 0) continue;
    const load = await bulkLoad({ store: bench.store, dimensions: BENCH_DIMENSIONS, scopes: [scopes[index]!], turnsPerScope: size, label: `${storeName} ${size}` });
    loads.push(`${size} messages loaded at ${Math.round(load.perSecond)}/s`);
  }
  const upstream = await startFakeUpstream();
  const answer = () => upstream.onChat((request) => textReply(request, ANSWER));
  answer();
  const proxy = await startProxyChild({ ...bench.env, UPSTREAM_BASE_URL: upstream.url, UPSTREAM_API_KEY: 'bench', EMBEDDING_DIMENSIONS: String(BENCH_DIMENSIONS) });
  // Background work drained after each request (or round); the fake upstream's records cleared now and then.
  const settle = async (round: number) => {
    await proxy.drain();
    if (round % 50 === 49) resetUpstream(upstream, answer);
  };
  const rows: (string | number)[][] = [];
  let warmedUp = 'none';
  try {
    const warmUpUrl = `${proxy.origin}/partition/${warmUpScope.partition}/instance/${warmUpScope.instance}/v1/chat/completions`;
    const warmUpCorpus = new Corpus(99);
    warmedUp = await warmUpServer({
      store: bench.store,
      scope: warmUpScope,
      requests: serverWarmup,
      send: async (count) => {
        for (let round = 0; round < count; round++) {
          await send(warmUpUrl, { model: MODEL, stream: round % 2 === 1, messages: [{ role: 'user', content: warmUpCorpus.question() }] });
          await settle(round);
        }
      },
    });
    for (const [index, size] of sizes.entries()) {
      const scope = scopes[index]!;
      const warmed = await proxy.warm([scope]);
      const proxyUrl = `${proxy.origin}/partition/${scope.partition}/instance/${scope.instance}/v1/chat/completions`;
      const directUrl = `${upstream.url}/chat/completions`;
      for (const stream of [false, true]) {
        const corpus = new Corpus(1000 + size);
        const direct: ChatTiming[] = [];
        const proxied: ChatTiming[] = [];
        for (let round = 0; round < warmup + iterations; round++) {
          const body = { model: MODEL, stream, messages: [{ role: 'user', content: corpus.question() }] };
          // Alternate which goes first, so neither always meets a warmer cache.
          const order = round % 2 === 0 ? [directUrl, proxyUrl] : [proxyUrl, directUrl];
          for (const url of order) {
            const timing = await send(url, body);
            if (round >= warmup) (url === proxyUrl ? proxied : direct).push(timing);
          }
          await settle(round);
        }
        rows.push(row({ size, stream, direct, proxied, warmMs: warmed.ms }));
      }
    }
  } finally {
    await proxy.stop();
    await upstream.close();
    await bench.dispose([...scopes, warmUpScope]);
  }
  writeReport(
    {
      name: `overhead-${storeName}`,
      suffix,
      title: `Proxy overhead (${storeName})`,
      command: `npm run bench:overhead -- --stores ${storeName} --sizes ${sizes.join(',')} --iterations ${iterations} --server-warmup ${serverWarmup}`,
      store: bench.description,
      embedder: `${embedder.model}:${embedder.dimensions}`,
      conditions: {
        requests: `${iterations} per row and path after ${warmup} warm-up rounds, direct and proxied alternating; background work drained between requests`,
        'server warm-up': warmedUp,
        context: `model not in config/models.json: DEFAULT_CONTEXT_WINDOW 4096, memory tools offered`,
        'bulk loads': loads.join('; ') || 'none',
      },
      tables: [
        {
          title: 'Latency, direct vs through the proxy (ms)',
          columns: ['stored messages', 'mode', 'direct p50', 'direct p95', 'direct p99', 'proxy p50', 'proxy p95', 'proxy p99', 'overhead p50', 'overhead p99', 'ratio p50', 'index load'],
          rows,
        },
      ],
      notes: [
        'json: until the whole body arrived; stream: until the first SSE chunk (the proxy reads ahead to the first delta before answering).',
        'overhead = proxy percentile minus direct percentile; index load = loading the instance vector index before the first measured request (embedded store).',
      ],
    },
    machine,
  );
}

/** POSTs a chat body, failing the run on any answer but 200. */
async function send(url: string, body: unknown): Promise<ChatTiming> {
  const timing = await postChat(url, body);
  if (timing.status !== 200) throw new Error(`${url} answered ${timing.status}`);
  return timing;
}

function resetUpstream(upstream: FakeUpstream, answer: () => void): void {
  // The fake records every request; clearing keeps its memory flat over long runs.
  upstream.reset();
  answer();
}

function row(input: { size: number; stream: boolean; direct: ChatTiming[]; proxied: ChatTiming[]; warmMs: number | null }): (string | number)[] {
  const pick = (timing: ChatTiming) => (input.stream ? timing.firstChunkMs : timing.totalMs);
  const direct = summarize(input.direct.map(pick));
  const proxied = summarize(input.proxied.map(pick));
  return [
    input.size,
    input.stream ? 'stream (first chunk)' : 'json',
    ms(direct.p50),
    ms(direct.p95),
    ms(direct.p99),
    ms(proxied.p50),
    ms(proxied.p95),
    ms(proxied.p99),
    ms(proxied.p50 - direct.p50),
    ms(proxied.p99 - direct.p99),
    `${(proxied.p50 / direct.p50).toFixed(1)}x`,
    input.stream || input.warmMs === null ? '' : `${Math.round(input.warmMs)} ms`,
  ];
}
