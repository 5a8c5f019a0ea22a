/**
 * Search plans on Neo4j: the full-text and vector searches of one instance, with the scope inside
 * the index query (the plan for an instance that is a small part of the store) and without it,
 * over-fetched and kept to the scope afterwards (the plan from a tenth of the store up), on the
 * same questions, the two plans alternating. The instance grows through the sizes given.
 * Beside them, what a retrieval's graph expansion costs as a statement of its own: the
 * neighbours of a question's 8 nearest turns against its 16 nearest (what each search would have
 * to expand to take the expansion into its own statement), and against a one-row read (the
 * fixed cost of a statement).
 *   npm run bench:search-plans -- [--sizes 100000,1000000] [--questions 100]
 */
import { LocalEmbedder } from '../src/embeddings/local-embedder';
import { fullTextSearch } from '../src/store/neo4j/full-text-search';
import { Neo4jRunner } from '../src/store/neo4j/neo4j-runner';
import type { Neo4jStore } from '../src/store/neo4j/neo4j-store';
import { ScopeShares } from '../src/store/neo4j/scope-share';
import { vectorSearch } from '../src/store/neo4j/vector-search';
import type { Scope } from '../src/store/types';
import {
  BENCH_DIMENSIONS,
  benchNeo4jConfig,
  numberList,
  openBenchStore,
  parseArguments,
} from './perf/bench-store';
import { bulkLoad } from './perf/bulk-load';
import { Corpus } from './perf/corpus';
import { ms, summarize } from './perf/percentiles';
import { startReport, writeReport } from './perf/report';

const options = parseArguments(process.argv.slice(2));
const sizes = numberList(options.get('sizes'), [1e5, 1e6]);
const questions = Number(options.get('questions') ?? 100);
const warmup = 10;
const K = 40;

const machine = startReport();
const bench = await openBenchStore('neo4j');
const store = bench.store as Neo4jStore;
const runner = new Neo4jRunner(benchNeo4jConfig());
const embedder = new LocalEmbedder({ dimensions: BENCH_DIMENSIONS });
const scope: Scope = { partition: `bench-plans-${Date.now().toString(36)}`, instance: 'one' };
const corpus = new Corpus(4242);
const texts = Array.from({ length: questions + warmup }, () => corpus.question());
const vectors = await embedder.embed(texts);

type Plan = { name: string; run: (index: number) => Promise<unknown[]> };
/** The pairs of plans at one size; `nearest`: each question's 16 nearest turns there (the graph expansion's seeds). */
const plans = (shareUnscoped: number, nearest: string[][]): [Plan, Plan][] => {
  const text = (share: number) => (index: number) =>
    fullTextSearch(
      { runner, scope },
      { text: texts[index]!, k: K, withMessages: true, fresh: false, share },
    );
  const vector = (share: number) => (index: number) =>
    vectorSearch({
      runner,
      scope,
      vector: vectors[index]!,
      k: K,
      includeToolCalls: false,
      withMessages: true,
      strategy: store.vectorStrategy,
      fullPrecision: store.vectorFullPrecision,
      dimensions: BENCH_DIMENSIONS,
      exactScanLimit: 5_000,
      share,
    });
  // Expands from the nearest turns as the store's own plan ranks them.
  const expand = (seeds: number) => (index: number) =>
    store.neighbours(scope, nearest[index]!.slice(0, seeds), { limit: K, withMessages: true });
  return [
    [
      { name: 'full text, scope in the query', run: text(0) },
      { name: 'full text, scope kept afterwards', run: text(shareUnscoped) },
    ],
    [
      { name: 'vector, filter in the index', run: vector(0) },
      { name: 'vector, scope kept afterwards', run: vector(shareUnscoped) },
    ],
    [
      { name: 'graph expansion of the 8 nearest', run: expand(8) },
      { name: 'graph expansion of the 16 nearest', run: expand(16) },
    ],
    [
      { name: 'the newest turn (a one-row read)', run: async () => [await store.latestTurn(scope)] },
      { name: 'graph expansion of the 8 nearest', run: expand(8) },
    ],
  ];
};

const rows: (string | number)[][] = [];
let stored = 0;
let leaf = '';
for (const size of sizes) {
  const load = await bulkLoad({
    store,
    dimensions: BENCH_DIMENSIONS,
    scopes: [scope],
    turnsPerScope: size - stored,
    firstTurn: stored,
    continueFrom: stored > 0 ? [leaf] : undefined,
    label: `neo4j to ${size}`,
  });
  leaf = load.leaves[0]!;
  stored = size;
  // As the store plans: a new ScopeShares, since one remembers a share for a minute.
  const share = await new ScopeShares(runner).of(scope);
  const nearest = await Promise.all(
    vectors.map(async (vector) => (await store.vectorSearch(scope, vector, { k: 16 })).map((hit) => hit.id)),
  );
  for (const [first, second] of plans(share, nearest)) {
    const times = new Map<string, number[]>([
      [first.name, []],
      [second.name, []],
    ]);
    for (let index = 0; index < texts.length; index++) {
      // Alternating which plan goes first, so neither always meets the other's warm caches.
      const order = index % 2 === 0 ? [first, second] : [second, first];
      for (const plan of order) {
        const started = performance.now();
        const hits = await plan.run(index);
        if (index >= warmup) times.get(plan.name)!.push(performance.now() - started);
        if (hits.length === 0) throw new Error(`${plan.name}: no hits for question ${index}`);
      }
    }
    const a = summarize(times.get(first.name)!);
    const b = summarize(times.get(second.name)!);
    rows.push([
      size,
      share.toFixed(2),
      first.name,
      ms(a.p50),
      ms(a.p99),
      second.name,
      ms(b.p50),
      ms(b.p99),
      (a.p50 / b.p50).toFixed(1),
    ]);
  }
}
await runner.close();
await bench.dispose([scope]);

writeReport(
  {
    name: 'search-plans-neo4j',
    title: 'Neo4j search plans by the instance share of the store',
    command: `npm run bench:search-plans -- --sizes ${sizes.join(',')} --questions ${questions}`,
    store: bench.description,
    embedder: `${embedder.model}:${embedder.dimensions}`,
    conditions: {
      questions: `${questions} per row after ${warmup} warm-up, the two plans alternating; k ${K}, hits with their turns`,
      instance:
        'one, grown through the sizes (the store held nothing else unless another run left data)',
    },
    tables: [
      {
        title: 'Search time (ms)',
        columns: [
          'turns in the instance',
          'share of the store',
          'plan A',
          'A p50',
          'A p99',
          'plan B',
          'B p50',
          'B p99',
          'A/B p50',
        ],
        rows,
      },
    ],
    notes: [
      "plan B is what the store uses from a share of 0.1 up (scope-share.ts); it falls back to plan A when its over-fetch held fewer than k of the instance's hits.",
      'graph expansion: MemoryStore.neighbours of the question\'s nearest turns (vector search, the plan the store picks), up to k neighbours with their turns, as a retrieval expands its 8 best fused hits.',
    ],
  },
  machine,
);
process.exit(0);
