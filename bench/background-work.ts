/**
 * Background work: what one exchange costs after its answer, as the proxy queues it (embedding
 * the question and the answer, linking them, writing both at once). An instance is grown one
 * exchange at a time, each question first searched as the retrieval would, and the exchanges
 * after the first `--seed` are timed: wall time (p50, p90) and this process's CPU an exchange.
 *   npm run bench:background -- [--stores sqlite,neo4j] [--seed 300] [--exchanges 200]
 * Not part of `npm run bench`: a profiling aid, not a figure to report.
 */
import { memoryWriter } from '../src/app';
import { loadConfig } from '../src/config/load-config';
import { LocalEmbedder } from '../src/embeddings/local-embedder';
import { embedAndLink } from '../src/memory/embed-and-link';
import { append, turn } from '../test/store/contract-fixtures';
import {
  BENCH_DIMENSIONS,
  openBenchStore,
  parseArguments,
  storeList,
  type StoreName,
} from './perf/bench-store';
import { Corpus } from './perf/corpus';
import { quantile } from './perf/percentiles';

const options = parseArguments(process.argv.slice(2));
const seed = Number(options.get('seed') ?? 300);
const exchanges = Number(options.get('exchanges') ?? 200);

for (const storeName of storeList(options.get('stores') ?? 'sqlite')) await runStore(storeName);

async function runStore(storeName: StoreName): Promise<void> {
  const bench = await openBenchStore(storeName);
  const { store } = bench;
  const scope = { partition: 'bench-background', instance: `i-${Date.now()}` };
  const embedder = new LocalEmbedder({ dimensions: BENCH_DIMENSIONS });
  // The chunk and link thresholds the proxy would use by default.
  const writer = memoryWriter({ store, embedder, config: loadConfig({ LOG_LEVEL: 'silent' }) });
  const corpus = new Corpus(11);
  const walls: number[] = [];
  let cpuMs = 0;
  let parent: string | null = null;
  for (let i = 0; i < seed + exchanges; i++) {
    const [question, answer] = await append(store, scope, parent, [
      turn('user', corpus.turn(2 * i)),
      turn('assistant', corpus.turn(2 * i + 1)),
    ]);
    parent = answer!.id;
    // The retrieval's search for the question, which the proxy hands to the background work.
    const [vector] = await embedder.embed([question!.content]);
    const nearest = new Map([[question!.id, await store.vectorSearch(scope, vector!, { k: 40 })]]);
    const cpu = process.cpuUsage();
    const start = performance.now();
    await embedAndLink(writer, {
      scope,
      turns: [question!, answer!],
      nearest,
      toolCallers: new Set(),
    });
    const wall = performance.now() - start;
    const used = process.cpuUsage(cpu);
    if (i < seed) continue;
    walls.push(wall);
    cpuMs += (used.user + used.system) / 1000;
  }
  console.log(
    `${bench.description}: ${exchanges} exchanges after ${seed}: wall p50 ${quantile(walls, 0.5).toFixed(2)} ms, p90 ${quantile(walls, 0.9).toFixed(2)} ms; CPU ${(cpuMs / exchanges).toFixed(2)} ms an exchange`,
  );
  await bench.dispose([scope]);
}
