import type { Config } from '../../config/load-config';
import type { Embedder } from '../../embeddings/embedder';
import type { MaintenanceRunner } from '../../memory/maintenance/maintenance-runner';
import type { MemoryEditor } from '../../memory/manage-messages';
import type { MemoryStore } from '../../store/memory-store';

/** What the management API is built from. */
export interface ApiDeps {
  config: Pick<Config, 'maxBodyBytes' | 'maxMessages'>;
  store: MemoryStore;
  /** Embeds search queries, as the chat path embeds its own. */
  embedder: Embedder;
  /** Where written and edited turns go to be embedded, chunked and linked (the background queue). */
  editor: MemoryEditor;
  now: () => number;
  /** Jobs the background queue still holds (shown by /stats). */
  backgroundPending: () => number;
  /** Runs topics, period summaries, cleanup and retention on request (POST /maintenance). */
  maintenance: MaintenanceRunner;
}

/** The prefix of every management route. */
export const API_PREFIX = '/api/v1';
/** The path of an instance under the prefix. */
export const INSTANCE_PATH = `${API_PREFIX}/partitions/:partition/instances/:instance`;
