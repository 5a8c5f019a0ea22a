/**
 * Throughput: 64 concurrent clients for 30 s, non-streaming, then 256 concurrent streams, each
 * client in its own instance seeded with stored turns, so every request builds a context with
 * retrieval. Requests per second, latency percentiles, errors (must be 0) and the proxy's RSS.
 *   npm run bench:throughput -- [--stores sqlite,neo4j] [--seconds 30] [--warm-seconds 20] [--clients 64]
 *     [--streams 256] [--seed-turns 1000] [--stream-seed-turns 200] [--workers 1] [--suffix fresh]
 *     (results in throughput-<store>-<suffix>-<date>.md)
 * Each phase first runs the same load untimed for --warm-seconds, then lets the proxy finish its
 * queued background work: a process just started spends the first tens of seconds under load
 * compiling its code (V8's optimizing compiler took ~14% of the proxy's CPU in the first 15 s,
 * ~3% after 35 s; bench/NOTES.md), and a proxy runs for hours. `--warm-seconds 0` times a cold
 * process, as runs before 12-02 did.
 * The proxy runs in its own process; the fake upstream and the clients share this one, all on
 * 127.0.0.1.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { LocalEmbedder } from '../src/embeddings/local-embedder';
import type { Scope } from '../src/store/types';
import { startFakeUpstream, textReply } from '../test/support/fake-upstream';
import { BENCH_DIMENSIONS, openBenchStore, parseArguments, storeList, type StoreName } from './perf/bench-store';
import { bulkLoad } from './perf/bulk-load';
import { closeConnections, postChat, type ChatTiming } from './perf/chat-client';
import { Corpus } from './perf/corpus';
import { mib, ms, summarize } from './perf/percentiles';
import { startProxyGroup, type ProxyGroup } from './perf/proxy-child';
import { startReport, writeReport } from './perf/report';

const ANSWER = 'Sure. Here is a short answer of a few sentences, the size of a typical chat reply, so that the proxy stores and embeds a realistic turn after each request.';

const options = parseArguments(process.argv.slice(2));
const seconds = Number(options.get('seconds') ?? 30);
/** Untimed load before each timed phase (see above). */
const warmSeconds = Number(options.get('warm-seconds') ?? 20);
const clients = Number(options.get('clients') ?? 64);
const streams = Number(options.get('streams') ?? 256);
const seedTurns = Number(options.get('seed-turns') ?? 1000);
const streamSeedTurns = Number(options.get('stream-seed-turns') ?? 200);
/** Wait before each streamed chunk of the fake upstream, so streams stay open like real ones. */
const chunkDelayMs = Number(options.get('chunk-delay') ?? 5);
const suffix = options.get('suffix');
/** Proxy processes, as WORKERS=n runs them. */
const workers = Number(options.get('workers') ?? 1);

for (const storeName of storeList(options.get('stores') ?? 'sqlite')) await runStore(storeName);
closeConnections();

interface PhaseResult {
  label: string;
  concurrency: number;
  timings: ChatTiming[];
  errors: number;
  errorSample: string;
  seconds: number;
  rssMax: number;
  /** Background jobs (embeddings, synapses) still queued when the load stopped. */
  backlog: number;
  /** Seconds the proxy took to finish them, with no requests coming in. */
  drainSeconds: number;
  /** CPU time the proxy processes used for the phase, its queued background work included. */
  proxyCpuMs: number;
  /** CPU time this process (the clients and the fake upstream) used during the load. */
  loadCpuMs: number;
  /** Requests answered and failed in the untimed load before it. */
  warmRequests: number;
  warmErrors: number;
}

async function runStore(storeName: StoreName): Promise<void> {
  const machine = startReport();
  const bench = await openBenchStore(storeName);
  const embedder = new LocalEmbedder({ dimensions: BENCH_DIMENSIONS });
  const partition = `bench-throughput-${Date.now().toString(36)}`;
  const jsonScopes = Array.from({ length: clients }, (_, index): Scope => ({ partition, instance: `client-${index}` }));
  const streamScopes = Array.from({ length: streams }, (_, index): Scope => ({ partition, instance: `stream-${index}` }));
  const loadJson = await bulkLoad({ store: bench.store, dimensions: BENCH_DIMENSIONS, scopes: jsonScopes, turnsPerScope: seedTurns, label: `seed ${clients} clients` });
  const loadStreams = await bulkLoad({ store: bench.store, dimensions: BENCH_DIMENSIONS, scopes: streamScopes, turnsPerScope: streamSeedTurns, label: `seed ${streams} streams` });
  // The embedded store this process seeded is closed before the load, as a proxy deployed alone
  // has no other connection to its file: left open, its full-text queue indexed the turns the
  // proxy queued (racing the proxy's own), and each of its commits sent the proxy's searches to
  // catch up with another writer (a tenth of the search thread's time in a profile). Neo4j's is
  // kept: removing the instances afterwards needs it.
  if (storeName === 'sqlite') await bench.store.close();
  const upstream = await startFakeUpstream();
  const answer = () => upstream.onChat((request) => textReply(request, ANSWER, { chunkDelayMs }));
  answer();
  // The fake records every request; clearing it each second keeps its memory flat.
  const resetTimer = setInterval(() => {
    upstream.reset();
    answer();
  }, 1000);
  const proxy = await startProxyGroup({ ...bench.env, UPSTREAM_BASE_URL: upstream.url, UPSTREAM_API_KEY: 'bench', EMBEDDING_DIMENSIONS: String(BENCH_DIMENSIONS) }, workers);
  const phases: PhaseResult[] = [];
  let idleRss = 0;
  let firstRequests: ChatTiming[] = [];
  try {
    await proxy.warm(jsonScopes);
    await proxy.warm(streamScopes);
    idleRss = (await proxy.stats()).rss;
    firstRequests = await firstRequestOfEach(proxy, jsonScopes);
    await proxy.drain();
    firstRequests.push(...(await firstRequestOfEach(proxy, streamScopes)));
    await proxy.drain();
    phases.push(await warmThenTime({ proxy, scopes: jsonScopes, stream: false, label: `${clients} clients, non-streaming`, profile: 'json' }));
    phases.push(await warmThenTime({ proxy, scopes: streamScopes, stream: true, label: `${streams} concurrent streams`, profile: 'streams' }));
  } finally {
    clearInterval(resetTimer);
    await proxy.stop();
    await upstream.close();
    await bench.dispose([...jsonScopes, ...streamScopes]);
  }
  writeReport(
    {
      name: `throughput-${storeName}`,
      suffix,
      title: `Throughput (${storeName})`,
      command: `npm run bench:throughput -- --stores ${storeName} --seconds ${seconds} --warm-seconds ${warmSeconds} --clients ${clients} --streams ${streams} --seed-turns ${seedTurns} --stream-seed-turns ${streamSeedTurns}${workers > 1 ? ` --workers ${workers}` : ''}`,
      store: bench.description,
      embedder: `${embedder.model}:${embedder.dimensions}`,
      conditions: {
        instances: `one per client: ${clients} seeded with ${seedTurns} turns (${Math.round(loadJson.perSecond)}/s), ${streams} with ${streamSeedTurns} (${Math.round(loadStreams.perSecond)}/s)`,
        upstream: `fake, answers at once; streams send ${ANSWER.split(' ').length} chunks ${chunkDelayMs} ms apart`,
        context: 'DEFAULT_CONTEXT_WINDOW 4096, memory tools offered, background work (embeddings, synapses) included',
        'proxy processes': workers === 1 ? '1' : `${workers} on the same store (as WORKERS=${workers} runs them); RSS is their sum`,
        'proxy RSS before the load': mib(idleRss),
      },
      tables: [
        {
          title: `${seconds} s of closed-loop load`,
          columns: ['load', 'requests', 'req/s', 'req/s with the backlog done', 'backlog at the end', 'p50 ms', 'p95 ms', 'p99 ms', 'first chunk p50 ms', 'first chunk p99 ms', 'errors', 'proxy RSS max', 'proxy CPU ms a request', 'clients and upstream CPU ms a request'],
          rows: phases.map((phase) => {
            const total = summarize(phase.timings.map((timing) => timing.totalMs));
            const first = summarize(phase.timings.map((timing) => timing.firstChunkMs));
            return [
              phase.label,
              phase.timings.length,
              (phase.timings.length / phase.seconds).toFixed(0),
              (phase.timings.length / (phase.seconds + phase.drainSeconds)).toFixed(0),
              `${phase.backlog} jobs, ${phase.drainSeconds.toFixed(1)} s`,
              ms(total.p50),
              ms(total.p95),
              ms(total.p99),
              ms(first.p50),
              ms(first.p99),
              phase.errors === 0 ? 0 : `${phase.errors} (${phase.errorSample})`,
              mib(phase.rssMax),
              ms(phase.proxyCpuMs / phase.timings.length),
              ms(phase.loadCpuMs / phase.timings.length),
            ];
          }),
        },
      ],
      notes: [
        'Closed loop: each client sends its next request as soon as the previous one has been answered.',
        'Background work (embeddings, synapses) runs after each answer and falls behind under saturation: "req/s with the backlog done" counts the time the proxy then took to finish what was still queued, the rate it can keep up for good.',
        `CPU ms a request: CPU time (user and system, every thread) over the requests answered; the proxy's includes the background work it finished after the load. The machine has ${machine.cores} cores, so N req/s leave ${machine.cores} x 1000 / N ms of CPU to each request, load generator included (${(machine.cores * 2).toFixed(0)} ms at 500 req/s).`,
        `Before the timed load each client sent one request, those of each phase all at once (not in the table): the first request of an instance folds its evicted history into the running summary. Those ${firstRequests.length} took p50 ${ms(summarize(firstRequests.map((timing) => timing.totalMs)).p50)} ms, max ${ms(Math.max(0, ...firstRequests.map((timing) => timing.totalMs)))} ms.`,
        warmSeconds > 0
          ? `Then each phase ran the same load for ${warmSeconds} s untimed, with other questions, and the proxy finished the background work it left (not in the table; errors there: ${phases.map((phase) => phase.warmErrors).join(' and ')}, in ${phases.map((phase) => phase.warmRequests).join(' and ')} requests): the figures are those of a process past compiling its code, as a proxy runs for hours.`
          : 'No untimed load ran before the timed one (--warm-seconds 0): the figures include the proxy compiling its code in its first seconds under load.',
      ],
    },
    machine,
  );
}

/** One request per instance, all at once: what a cold start costs, kept out of the steady-state figures. */
async function firstRequestOfEach(proxy: ProxyGroup, scopes: Scope[]): Promise<ChatTiming[]> {
  return Promise.all(
    scopes.map((scope, index) =>
      postChat(`${proxy.originFor(index)}/partition/${scope.partition}/instance/${scope.instance}/v1/chat/completions`, {
        model: 'bench-model',
        messages: [{ role: 'user', content: new Corpus(9000 + index).question() }],
      }),
    ),
  );
}

interface PhaseInput {
  proxy: ProxyGroup;
  scopes: Scope[];
  stream: boolean;
  label: string;
}

/** The untimed load, the proxy's queued work finished, then the timed phase (profiled when asked). */
async function warmThenTime(input: PhaseInput & { profile: string }): Promise<PhaseResult> {
  let warm = { timings: [] as ChatTiming[], errors: 0 };
  if (warmSeconds > 0) {
    // Other questions than the timed load's, so no count or cache the warm-up filled answers them.
    warm = await runLoad(input, warmSeconds, 7000);
    await input.proxy.drain();
  }
  const phase = await input.proxy.profiled(input.profile, () => runPhase(input));
  return { ...phase, warmRequests: warm.timings.length, warmErrors: warm.errors };
}

/** Closed-loop load for `duration` seconds: each client's questions come from Corpus(corpusSeed + its index). */
async function runLoad(input: PhaseInput, duration: number, corpusSeed: number) {
  const timings: ChatTiming[] = [];
  let errors = 0;
  let errorSample = '';
  const end = performance.now() + duration * 1000;
  await Promise.all(
    input.scopes.map(async (scope, index) => {
      const corpus = new Corpus(corpusSeed + index);
      const url = `${input.proxy.originFor(index)}/partition/${scope.partition}/instance/${scope.instance}/v1/chat/completions`;
      while (performance.now() < end) {
        const body = { model: 'bench-model', stream: input.stream, messages: [{ role: 'user', content: corpus.question() }] };
        try {
          const timing = await postChat(url, body);
          if (timing.status === 200) timings.push(timing);
          else {
            errors++;
            errorSample ||= `HTTP ${timing.status}`;
          }
        } catch (error) {
          errors++;
          errorSample ||= (error as Error).message;
        }
      }
    }),
  );
  return { timings, errors, errorSample };
}

async function runPhase(input: PhaseInput): Promise<Omit<PhaseResult, 'warmRequests' | 'warmErrors'>> {
  let rssMax = 0;
  const proxyCpuStart = (await input.proxy.stats()).cpuMs;
  const loadCpuStart = process.cpuUsage();
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      rssMax = Math.max(rssMax, (await input.proxy.stats()).rss);
      await sleep(1000);
    }
  })();
  const started = performance.now();
  const { timings, errors, errorSample } = await runLoad(input, seconds, 5000);
  const elapsed = (performance.now() - started) / 1000;
  const loadCpu = process.cpuUsage(loadCpuStart);
  sampling = false;
  await sampler;
  const backlog = (await input.proxy.stats()).background;
  const drainStarted = performance.now();
  await input.proxy.drain();
  const drainSeconds = (performance.now() - drainStarted) / 1000;
  const proxyCpuMs = (await input.proxy.stats()).cpuMs - proxyCpuStart;
  const loadCpuMs = (loadCpu.user + loadCpu.system) / 1000;
  return { label: input.label, concurrency: input.scopes.length, timings, errors, errorSample, seconds: elapsed, rssMax, backlog, drainSeconds, proxyCpuMs, loadCpuMs };
}
