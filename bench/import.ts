/**
 * Import: how fast an export with its vectors goes back into a store, the bulk load a user runs
 * from a terminal (`memory-proxy import FILE`). Turns are loaded into a scratch embedded store
 * (bulkLoad), exported with `exportJsonLines` (what `memory-proxy export` writes), and the file
 * is imported into a new empty store `--rounds` times with `importJsonLines` (what `memory-proxy
 * import` calls, less the command's start-up).
 *   npm run bench:import -- [--stores sqlite,neo4j] [--turns 100000] [--instances 1] [--rounds 2]
 *     [--suffix name]   (results in import-<suffix>-<date>.md, beside the day's other runs)
 */
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { exportJsonLines, importJsonLines } from '../src/memory/export-import';
import type { Scope } from '../src/store/types';
import { BENCH_DIMENSIONS, openBenchStore, parseArguments, storeList } from './perf/bench-store';
import { bulkLoad } from './perf/bulk-load';
import { mib } from './perf/percentiles';
import { startReport, writeReport } from './perf/report';

const options = parseArguments(process.argv.slice(2));
const turns = Number(options.get('turns') ?? 100_000);
const instances = Number(options.get('instances') ?? 1);
const rounds = Number(options.get('rounds') ?? 2);
const stores = storeList(options.get('stores') ?? 'sqlite');
const suffix = options.get('suffix');
const machine = startReport();

const partition = `bench-import-${Date.now().toString(36)}`;
const scopes = Array.from({ length: instances }, (_, index): Scope => ({ partition, instance: `import-${index}` }));
const folder = mkdtempSync(path.join(tmpdir(), 'memory-proxy-import-'));
const file = path.join(folder, 'export.jsonl');

const source = await openBenchStore('sqlite');
const load = await bulkLoad({
  store: source.store,
  dimensions: BENCH_DIMENSIONS,
  scopes,
  turnsPerScope: Math.ceil(turns / instances),
  label: `load ${turns} turns`,
});
let exported = 0;
const exportStarted = performance.now();
await pipeline(
  Readable.from(exportJsonLines(source.store, { partition, onProgress: ({ records }) => (exported = records) })),
  createWriteStream(file),
);
const exportSeconds = (performance.now() - exportStarted) / 1000;
await source.dispose(scopes);
const bytes = statSync(file).size;

const rows: (string | number)[][] = [];
const descriptions = new Set<string>();
for (const storeName of stores) {
  for (let round = 1; round <= rounds; round++) {
    const target = await openBenchStore(storeName);
    descriptions.add(target.description.replace(/\(\/tmp\/[^)]*\)/, '(a new file in /tmp)'));
    const started = performance.now();
    const rssBefore = process.memoryUsage().rss;
    let rssMax = rssBefore;
    const sampler = setInterval(() => (rssMax = Math.max(rssMax, process.memoryUsage().rss)), 200);
    const summary = await importJsonLines(target.store, createReadStream(file));
    clearInterval(sampler);
    const seconds = (performance.now() - started) / 1000;
    await target.dispose(scopes);
    rows.push([
      storeName,
      round,
      summary.records,
      summary.created,
      seconds.toFixed(1),
      Math.round(load.messages / seconds),
      Math.round(summary.records / seconds),
      mib(rssMax),
    ]);
    process.stderr.write(`${storeName} round ${round}: ${seconds.toFixed(1)} s\n`);
  }
}
rmSync(folder, { recursive: true, force: true });

writeReport(
  {
    name: 'import',
    suffix,
    title: 'Import of an export with its vectors',
    command: `npm run bench:import -- --stores ${stores.join(',')} --turns ${turns} --instances ${instances} --rounds ${rounds}`,
    store: [...descriptions].join('; '),
    embedder: `local-v1:${BENCH_DIMENSIONS} (vectors made by the bulk load, carried by the file)`,
    conditions: {
      file: `${exported} records (${load.messages} turns in ${instances} instance${instances === 1 ? '' : 's'}, their links), ${mib(bytes)}`,
      export: `${exportSeconds.toFixed(1)} s from an embedded store (${Math.round(exported / exportSeconds)} records/s)`,
    },
    tables: [
      {
        title: 'Import into an empty store',
        columns: ['store', 'round', 'records', 'created', 'seconds', 'turns/s', 'records/s', 'RSS max'],
        rows,
      },
    ],
    notes: [
      'Each round imports the same file into a new empty store (a new SQLite file; on Neo4j the instances are purged after each round).',
      'turns/s counts the turns of the file over the whole import, their links and the instance records included.',
    ],
  },
  machine,
);
