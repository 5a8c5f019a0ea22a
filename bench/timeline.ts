/**
 * Timeline: where one request's time goes, store call by store call. The real app runs in this
 * process on a real store with every MemoryStore method timed; requests go one at a time (the
 * background work drained between them, as in the overhead benchmark), and each call's start and
 * end are taken relative to its request's start. Prints, per call in the order a request makes
 * them, the median start and end over the requests, and how many requests made it.
 *   npm run bench:timeline -- [--stores sqlite,neo4j] [--turns 10000] [--requests 150]
 *     [--scope partition/instance]   (an instance already stored: nothing is loaded or purged)
 *     [--keep]   (leaves the instance it loaded, and prints its scope for --scope next time)
 *     [--history 8]   (each request resends the conversation's last turns before its new one,
 *                      as chat UIs do, instead of sending the new message alone)
 *     [--slowest 5]   (also prints the calls of the requests slowest to reach the upstream)
 * Not part of `npm run bench`: a profiling aid, not a figure to report.
 */
import { createApp } from '../src/app';
import { loadConfig } from '../src/config/load-config';
import { LocalEmbedder } from '../src/embeddings/local-embedder';
import { listen } from '../src/http/listen';
import { createLogger } from '../src/logger';
import { BackgroundQueue } from '../src/memory/background-queue';
import type { MemoryStore } from '../src/store/memory-store';
import type { Scope } from '../src/store/types';
import { startFakeUpstream, textReply } from '../test/support/fake-upstream';
import {
  BENCH_DIMENSIONS,
  openBenchStore,
  parseArguments,
  storeList,
  type StoreName,
} from './perf/bench-store';
import { bulkLoad } from './perf/bulk-load';
import { closeConnections, postChat } from './perf/chat-client';
import { Corpus } from './perf/corpus';
import { ms, summarize } from './perf/percentiles';

const ANSWER =
  'Sure. Here is a short answer of a few sentences, the size of a typical chat reply, so that the proxy stores and embeds a realistic turn after each request.';

const options = parseArguments(process.argv.slice(2));
const turns = Number(options.get('turns') ?? 10_000);
const requests = Number(options.get('requests') ?? 150);
const warmup = Number(options.get('warmup') ?? 20);
const reused = options.get('scope')?.split('/');
const history = Number(options.get('history') ?? 0);
const slowest = Number(options.get('slowest') ?? 0);

for (const storeName of storeList(options.get('stores') ?? 'sqlite')) await runStore(storeName);
closeConnections();

/** One timed store call. */
interface Span {
  method: string;
  start: number;
  end: number;
}

async function runStore(storeName: StoreName): Promise<void> {
  const bench = await openBenchStore(storeName);
  const scope: Scope = reused
    ? { partition: reused[0] ?? '', instance: reused[1] ?? '' }
    : { partition: `bench-timeline-${Date.now().toString(36)}`, instance: 'timeline' };
  if (!reused && turns > 0)
    await bulkLoad({
      store: bench.store,
      dimensions: BENCH_DIMENSIONS,
      scopes: [scope],
      turnsPerScope: turns,
      label: `load ${turns}`,
    });
  const upstream = await startFakeUpstream();
  let upstreamAt = 0;
  // Requests go one at a time; each answer differs, as a real conversation's do.
  let answer = ANSWER;
  upstream.onChat((request) => {
    upstreamAt = performance.now();
    return textReply(request, answer);
  });
  const spans: Span[] = [];
  const config = loadConfig({
    ...process.env,
    ...bench.env,
    UPSTREAM_BASE_URL: upstream.url,
    UPSTREAM_API_KEY: 'bench',
    LOG_LEVEL: 'silent',
  });
  const background = new BackgroundQueue(createLogger('silent'));
  const app = createApp({
    config,
    store: timed(bench.store, spans),
    embedder: new LocalEmbedder({ dimensions: BENCH_DIMENSIONS }),
    logger: createLogger('silent'),
    background,
  });
  const port = await new Promise<number>((resolve) =>
    listen(app, { port: 0, hostname: '127.0.0.1', keepAliveSeconds: 65 }, resolve),
  );
  const url = `http://127.0.0.1:${port}/partition/${scope.partition}/instance/${scope.instance}/v1/chat/completions`;
  const corpus = new Corpus(77);
  const requestTimelines: { spans: Span[]; upstream: number; total: number }[] = [];
  // The conversation as a chat UI holds it: its turns since the first request.
  const conversation: { role: 'user' | 'assistant'; content: string }[] = [];
  for (let i = 0; i < warmup + requests; i++) {
    await background.drain();
    spans.length = 0;
    const question = { role: 'user' as const, content: corpus.question() };
    answer = `${ANSWER} (${i + 1})`;
    const sent = history > 0 ? [...conversation.slice(-history), question] : [question];
    const started = performance.now();
    const timing = await postChat(url, { model: 'bench-model', messages: sent });
    conversation.push(question, { role: 'assistant', content: answer });
    if (timing.status !== 200) throw new Error(`request ${i}: HTTP ${timing.status}`);
    const answered = performance.now();
    await background.drain();
    if (i < warmup) continue;
    requestTimelines.push({
      spans: spans.map((span) => ({
        ...span,
        start: span.start - started,
        end: span.end - started,
      })),
      upstream: upstreamAt - started,
      total: answered - started,
    });
  }
  await background.stop();
  await upstream.close();
  const keep = reused !== undefined || options.has('keep');
  await bench.dispose(keep ? [] : [scope]);
  if (keep && !reused) console.log(`kept: --scope ${scope.partition}/${scope.instance}`);
  report(storeName, requestTimelines);
  process.exit(0);
}

/** The store with every method call recorded in `spans`. */
function timed(store: MemoryStore, spans: Span[]): MemoryStore {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== 'function' || typeof property !== 'string') return value;
      return (...args: unknown[]) => {
        const start = performance.now();
        const result = (value as (...a: unknown[]) => unknown).apply(target, args);
        if (!(result instanceof Promise)) return result;
        return result.finally(() =>
          spans.push({ method: property, start, end: performance.now() }),
        );
      };
    },
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

function report(
  storeName: string,
  timelines: { spans: Span[]; upstream: number; total: number }[],
): void {
  // A call is named by its method and its occurrence within the request ("getMessages#2").
  const byCall = new Map<string, { starts: number[]; ends: number[]; order: number[] }>();
  for (const timeline of timelines) {
    const seen = new Map<string, number>();
    const sorted = [...timeline.spans].sort((a, b) => a.start - b.start);
    sorted.forEach((span, order) => {
      const n = (seen.get(span.method) ?? 0) + 1;
      seen.set(span.method, n);
      const key = `${span.method}#${n}`;
      const entry = byCall.get(key) ?? { starts: [], ends: [], order: [] };
      entry.starts.push(span.start);
      entry.ends.push(span.end);
      entry.order.push(order);
      byCall.set(key, entry);
    });
  }
  const sends = history > 0 ? `, the last ${history} turns resent with each` : '';
  console.log(`\n${storeName}: ${timelines.length} requests, ${turns} stored turns${sends}`);
  const totals = summarize(timelines.map((t) => t.total));
  const reached = summarize(timelines.map((t) => t.upstream));
  console.log(
    `total p50 ${ms(totals.p50)} / p99 ${ms(totals.p99)} ms, upstream reached at p50 ${ms(reached.p50)} / p99 ${ms(reached.p99)} ms`,
  );
  console.log('call'.padEnd(28), 'requests', 'start', '  end', ' took');
  const rows = [...byCall].sort((a, b) => median(a[1].starts) - median(b[1].starts));
  for (const [key, entry] of rows) {
    const took = median(entry.ends.map((end, i) => end - entry.starts[i]!));
    console.log(
      key.padEnd(28),
      String(entry.starts.length).padStart(8),
      median(entry.starts).toFixed(1).padStart(5),
      median(entry.ends).toFixed(1).padStart(5),
      took.toFixed(1).padStart(5),
    );
  }
  const slow = [...timelines].sort((a, b) => b.upstream - a.upstream).slice(0, slowest);
  for (const timeline of slow) {
    console.log(`\nupstream reached at ${ms(timeline.upstream)} ms:`);
    for (const span of [...timeline.spans].sort((a, b) => a.start - b.start))
      console.log(`  ${span.method.padEnd(26)} ${span.start.toFixed(1).padStart(6)} ${span.end.toFixed(1).padStart(6)}`);
  }
}
