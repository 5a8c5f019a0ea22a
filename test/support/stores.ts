import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Neo4jConfig } from '../../src/config/load-config';
import type { MemoryStore } from '../../src/store/memory-store';
import { Neo4jStore } from '../../src/store/neo4j/neo4j-store';
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
        // Searching on a thread of its own, as the proxy's store does by default.
        const store = new SqliteStore({ dataDir, searchThread: true });
        await store.init({ embeddingDimensions: TEST_DIMENSIONS });
        return store;
      },
    },
  ];
  if (process.env['REQUIRE_NEO4J'] === '1' && !process.env['NEO4J_URI']) {
    throw new Error('REQUIRE_NEO4J=1 but NEO4J_URI is not set: the Neo4j suites would be skipped');
  }
  const neo4j = neo4jTestConfig();
  if (neo4j) {
    factories.push({
      name: 'neo4j',
      // One shared database (Community has one): suites isolate themselves by scope ids.
      async create() {
        const store = new Neo4jStore(neo4j);
        try {
          await store.init({ embeddingDimensions: TEST_DIMENSIONS });
        } catch (error) {
          await store.close();
          throw error;
        }
        return store;
      },
    });
  }
  return factories;
}

/** The Neo4j connection the test suites use, from NEO4J_URI (and NEO4J_USER/PASSWORD/DATABASE); null when unset. */
export function neo4jTestConfig(): Neo4jConfig | null {
  const uri = process.env['NEO4J_URI'];
  if (!uri) return null;
  return {
    uri,
    user: process.env['NEO4J_USER'] || 'neo4j',
    password: process.env['NEO4J_PASSWORD'] ?? '',
    database: process.env['NEO4J_DATABASE'] || 'neo4j',
  };
}
