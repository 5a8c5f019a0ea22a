import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { MemoryStore } from '../../src/store/memory-store';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store';

/** A way to open a fresh, real store for a test suite. */
export interface StoreFactory {
  name: 'sqlite' | 'neo4j';
  create(): Promise<MemoryStore>;
}

/** Embedding dimensions the store suites use. */
export const TEST_DIMENSIONS = 384;

/** The embedded store always; Neo4j whenever NEO4J_URI is set (CI sets it, with REQUIRE_NEO4J=1). */
export function storeFactories(): StoreFactory[] {
  const factories: StoreFactory[] = [
    {
      name: 'sqlite',
      async create() {
        const dataDir = mkdtempSync(path.join(tmpdir(), 'memory-proxy-test-'));
        const store = new SqliteStore({ dataDir });
        await store.init({ embeddingDimensions: TEST_DIMENSIONS });
        return store;
      },
    },
  ];
  if (process.env['REQUIRE_NEO4J'] === '1' && !process.env['NEO4J_URI']) {
    throw new Error('REQUIRE_NEO4J=1 but NEO4J_URI is not set: the Neo4j suites would be skipped');
  }
  return factories;
}
