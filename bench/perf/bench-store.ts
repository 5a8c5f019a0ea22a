import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig, type Neo4jConfig } from '../../src/config/load-config';
import type { MemoryStore } from '../../src/store/memory-store';
import { Neo4jRunner } from '../../src/store/neo4j/neo4j-runner';
import { Neo4jStore } from '../../src/store/neo4j/neo4j-store';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store';
import type { Scope } from '../../src/store/types';

/** The stores a benchmark can run against. */
export type StoreName = 'sqlite' | 'neo4j';

/** Embedding dimensions of the benchmarks (the local embedder's default). */
export const BENCH_DIMENSIONS = 384;

/** A store opened for a benchmark, with what a proxy process needs to open the same one. */
export interface BenchStore {
  name: StoreName;
  store: MemoryStore;
  /** Environment that points a proxy at the same data (DATA_DIR or NEO4J_*). */
  env: Record<string, string>;
  /** "sqlite (memory.sqlite in /tmp/...)" or the Neo4j server's agent. */
  description: string;
  /** Closes the store and removes what the benchmark stored (the SQLite folder, or its Neo4j instances). */
  dispose(scopes: Scope[]): Promise<void>;
}

/** The Neo4j the benchmarks use: NEO4J_URI, else the development server of scripts/neo4j.sh. */
export function benchNeo4jConfig(): Neo4jConfig {
  return {
    uri: process.env['NEO4J_URI'] || 'bolt://127.0.0.1:7687',
    user: process.env['NEO4J_USER'] || 'neo4j',
    password: process.env['NEO4J_PASSWORD'] ?? '',
    database: process.env['NEO4J_DATABASE'] || 'neo4j',
  };
}

/** Opens a fresh SQLite store in a temporary folder, or the configured Neo4j. */
export async function openBenchStore(name: StoreName): Promise<BenchStore> {
  if (name === 'sqlite') {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'memory-proxy-bench-'));
    // Searching on its own thread unless SEARCH_THREAD says otherwise, as the proxy does.
    const searchThread = loadConfig({ SEARCH_THREAD: process.env['SEARCH_THREAD'] }).searchThread;
    const store = new SqliteStore({ dataDir, searchThread });
    await store.init({ embeddingDimensions: BENCH_DIMENSIONS });
    return {
      name,
      store,
      // An empty NEO4J_URI: a shell that exported one for the Neo4j runs must not turn the
      // embedded store's proxy into a Neo4j one.
      env: { DATA_DIR: dataDir, NEO4J_URI: '' },
      description: `sqlite (${store.file}${searchThread ? ', searching on its own thread' : ''})`,
      async dispose() {
        await store.close();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
  const config = benchNeo4jConfig();
  const store = new Neo4jStore(config);
  await store.init({ embeddingDimensions: BENCH_DIMENSIONS });
  const health = await store.health();
  const pageCache = await neo4jPageCache(config);
  return {
    name,
    store,
    env: { NEO4J_URI: config.uri, NEO4J_USER: config.user, NEO4J_PASSWORD: config.password, NEO4J_DATABASE: config.database },
    description: `neo4j (${health.detail}, ${config.uri}, page cache ${pageCache})`,
    async dispose(scopes) {
      // Purging arrived with the management API; without it the bench instances stay (their
      // partitions start with "bench-").
      const purge = (store as { purgeInstance?: (scope: Scope) => Promise<unknown> }).purgeInstance;
      if (purge) for (const scope of scopes) await purge.call(store, scope).catch(() => undefined);
      await store.close();
    },
  };
}

/** Parses `--name value` and `--flag` arguments. */
export function parseArguments(argv: string[]): Map<string, string> {
  const options = new Map<string, string>();
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index]!;
    if (!argument.startsWith('--')) continue;
    const next = argv[index + 1];
    if (next === undefined || next.startsWith('--')) options.set(argument.slice(2), 'true');
    else {
      options.set(argument.slice(2), next);
      index++;
    }
  }
  return options;
}

/** A comma-separated list of numbers like "1e3,1e4" from an argument. */
export function numberList(value: string | undefined, fallback: number[]): number[] {
  if (!value) return fallback;
  return value.split(',').map((part) => Number(part));
}

/** The stores named by --stores (default both). */
export function storeList(value: string | undefined): StoreName[] {
  const names = (value ?? 'sqlite,neo4j').split(',');
  for (const name of names) if (name !== 'sqlite' && name !== 'neo4j') throw new Error(`unknown store ${name}`);
  return names as StoreName[];
}

/**
 * The server's page cache size: it decides whether a large store's nodes and properties are read
 * from memory, so the results must say it (scripts/neo4j.sh defaults to 256 MiB for tests).
 */
async function neo4jPageCache(config: Neo4jConfig): Promise<string> {
  const runner = new Neo4jRunner(config);
  try {
    const [row] = await runner.read(
      "SHOW SETTINGS YIELD name, value WHERE name = 'server.memory.pagecache.size' RETURN value",
    );
    return String(row?.['value'] ?? 'unknown');
  } catch {
    return 'unknown';
  } finally {
    await runner.close();
  }
}
