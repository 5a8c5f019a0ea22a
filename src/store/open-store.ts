import type { Config } from '../config/load-config';
import type { MemoryStore } from './memory-store';

/** Opens the store the configuration names (Neo4j when NEO4J_URI is set, else embedded) and creates its schema. */
export async function openStore(config: Pick<Config, 'neo4j' | 'dataDir' | 'embeddingDimensions' | 'searchThread' | 'groupCommit'>): Promise<MemoryStore> {
  // Only the adapter in use is loaded: the embedded store never pays for the Neo4j driver (a
  // short CLI command notices), nor Neo4j for the native SQLite module.
  const store: MemoryStore = config.neo4j
    ? new (await import('./neo4j/neo4j-store')).Neo4jStore(config.neo4j)
    : new (await import('./sqlite/sqlite-store')).SqliteStore({
        dataDir: config.dataDir,
        searchThread: config.searchThread,
        groupCommit: config.groupCommit,
      });
  try {
    await store.init({ embeddingDimensions: config.embeddingDimensions });
  } catch (error) {
    await store.close().catch(() => undefined);
    throw error;
  }
  return store;
}
