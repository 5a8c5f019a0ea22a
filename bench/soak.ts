/**
 * Soak run: the real proxy process under steady mixed traffic (streaming and not, many
 * instances) from a fake upstream on loopback, sampling its RSS, open file descriptors, active
 * handles and background queue over time, to catch leaks a short test cannot see.
 *
 *   npx tsx bench/soak.ts [--minutes 10] [--concurrency 8] [--sample-seconds 10] [--steady]
 *
 * By default every request adds turns, so memory grows with the data (caches hold vectors).
 * --steady repeats a fixed set of questions, whose turns and answers are already stored, so a
 * growing RSS there is a leak. Embedded store in a temporary DATA_DIR (NEO4J_URI set: that
 * Neo4j). Loopback only; bounded by --minutes. Writes bench/results/soak-<mode>-<date>.md/.json.
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { lastUserText, startFakeUpstream, textReply } from '../test/support/fake-upstream';
import { startRealProxy } from '../test/support/real-proxy';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    concurrency: { type: 'string', default: '8' },
    'sample-seconds': { type: 'string', default: '10' },
    instances: { type: 'string', default: '50' },
    steady: { type: 'boolean', default: false },
  },
});
const steady = values.steady;
const minutes = Number(values.minutes);
const concurrency = Number(values.concurrency);
const sampleMs = Number(values['sample-seconds']) * 1000;
const instances = Number(values.instances);

interface Sample {
  second: number;
  requests: number;
  errors: number;
  p50Ms: number;
  p95Ms: number;
  rssMb: number;
  heapMb: number;
  arrayBuffersMb: number;
  openFds: number;
  activeResources: number;
  backgroundPending: number;
}

const upstream = await startFakeUpstream();
upstream.onChat((request) =>
  textReply(
    request,
    `Here is an answer about ${lastUserText(request).slice(0, 60)} with a few more words to stream.`,
  ),
);
const dataDir = mkdtempSync(path.join(tmpdir(), 'memory-proxy-soak-'));
const proxy = await startRealProxy({
  DATA_DIR: dataDir,
  UPSTREAM_BASE_URL: upstream.url,
  ...(process.env['NEO4J_URI'] ? {} : { NEO4J_URI: '' }),
});
const pid = proxy.child.pid!;
const started = Date.now();
const deadline = started + minutes * 60_000;
let latencies: number[] = [];
let requests = 0;
let errors = 0;
let counter = 0;

/** Growth: a new question every time. Steady: one question per instance, asked again and again (stored once). */
function question(worker: number, n: number): string {
  if (steady)
    return `steady question of instance ${n % instances}: tell me about rivers, ledgers and lanterns`;
  return `worker ${worker} message ${n}: tell me about rivers, ledgers and lanterns`;
}

async function worker(id: number): Promise<void> {
  while (Date.now() < deadline) {
    const n = counter++;
    const stream = n % 2 === 0;
    const began = performance.now();
    try {
      // Upstream's chat requests are recorded by the fake; drop them so the bench itself does not grow.
      if (upstream.requests.length > 1000) upstream.requests.length = 0;
      const response = await fetch(
        `${proxy.origin}/partition/soak/instance/i${n % instances}/v1/chat/completions`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            model: 'gpt-4o-mini',
            stream,
            messages: [
              {
                role: 'user',
                content: question(id, n),
              },
            ],
          }),
        },
      );
      const text = await response.text();
      if (!response.ok || (stream && !text.endsWith('data: [DONE]\n\n'))) errors++;
    } catch {
      errors++;
    }
    requests++;
    latencies.push(performance.now() - began);
  }
}

async function sample(): Promise<Sample> {
  const metrics = await (await fetch(`${proxy.origin}/metrics`)).text();
  const read = (name: string) =>
    Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(metrics)?.[1] ?? NaN);
  const rssKb = Number(
    /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN,
  );
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (q: number) =>
    Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0);
  const result: Sample = {
    second: Math.round((Date.now() - started) / 1000),
    requests,
    errors,
    p50Ms: at(0.5),
    p95Ms: at(0.95),
    rssMb: Math.round(rssKb / 1024),
    heapMb: Math.round(read('nodejs_heap_used_bytes') / 1048576),
    arrayBuffersMb: Math.round(read('nodejs_array_buffers_bytes') / 1048576),
    openFds: readdirSync(`/proc/${pid}/fd`).length,
    activeResources: read('nodejs_active_resources'),
    backgroundPending: read('memory_proxy_background_jobs_pending'),
  };
  latencies = [];
  process.stderr.write(`${JSON.stringify(result)}\n`);
  return result;
}

const samples: Sample[] = [await sample()];
const workers = Array.from({ length: concurrency }, (_, id) => worker(id));
const sampler = setInterval(() => void sample().then((s) => samples.push(s)), sampleMs);
await Promise.all(workers);
clearInterval(sampler);
samples.push(await sample());
await proxy.stop();
await upstream.close();

const total = samples.at(-1)!.requests;
const failed = samples.at(-1)!.errors;
const first = samples[1] ?? samples[0]!;
const last = samples.at(-1)!;
const date = new Date().toISOString().slice(0, 16).replace(':', '');
const summary = {
  date: new Date().toISOString(),
  store: process.env['NEO4J_URI'] ? 'neo4j' : 'sqlite',
  mode: steady ? 'steady' : 'growth',
  minutes,
  concurrency,
  instances,
  requests: total,
  errors: failed,
  requestsPerSecond: Math.round(total / ((Date.now() - started) / 1000)),
  rssMb: { first: first.rssMb, last: last.rssMb, max: Math.max(...samples.map((s) => s.rssMb)) },
  openFds: {
    first: first.openFds,
    last: last.openFds,
    max: Math.max(...samples.map((s) => s.openFds)),
  },
  activeResources: {
    first: first.activeResources,
    last: last.activeResources,
    max: Math.max(...samples.map((s) => s.activeResources)),
  },
  samples,
};
const file = path.join(import.meta.dirname, 'results', `soak-${summary.mode}-${date}`);
writeFileSync(`${file}.json`, `${JSON.stringify(summary, null, 2)}\n`);
const rows = samples.map(
  (s) =>
    `| ${s.second} | ${s.requests} | ${s.errors} | ${s.p50Ms} | ${s.p95Ms} | ${s.rssMb} | ${s.heapMb} | ${s.arrayBuffersMb} | ${s.openFds} | ${s.activeResources} | ${s.backgroundPending} |`,
);
writeFileSync(
  `${file}.md`,
  [
    `# Soak run ${summary.date}`,
    '',
    `${summary.store} store, ${summary.mode} mode, ${minutes} min, ${concurrency} concurrent clients over ${instances} instances, half streaming; fake upstream on loopback.`,
    `${total} requests (${summary.requestsPerSecond}/s), ${failed} errors. RSS ${summary.rssMb.first} -> ${summary.rssMb.last} MB (max ${summary.rssMb.max}),`,
    `open fds ${summary.openFds.first} -> ${summary.openFds.last}, active handles ${summary.activeResources.first} -> ${summary.activeResources.last}.`,
    '',
    '| s | requests (total) | errors (total) | p50 ms | p95 ms | RSS MB | heap MB | ArrayBuffers MB | fds | handles | bg pending |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
    '',
  ].join('\n'),
);
process.stderr.write(`wrote ${file}.md\n`);
