import type { Config } from '../config/load-config';
import type { MemoryStore } from './memory-store';
import { Neo4jStore } from './neo4j/neo4j-store';
import { SqliteStore } from './sqlite/sqlite-store';

/** Opens the store the configuration names (Neo4j when NEO4J_URI is set, else embedded) and creates its schema. */
export async function openStore(config: Pick<Config, 'neo4j' | 'dataDir' | 'embeddingDimensions'>): Promise<MemoryStore> {
  const store: MemoryStore = config.neo4j ? new Neo4jStore(config.neo4j) : new SqliteStore({ dataDir: config.dataDir });
  try {
    await store.init({ embeddingDimensions: config.embeddingDimensions });
  } catch (error) {
    await store.close().catch(() => undefined);
    throw error;
  }
  return store;
}
