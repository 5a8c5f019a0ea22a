import type { MemoryStore } from '../store/memory-store';
import type { Embedder } from './embedder';

/** The store setting that names the model and dimensions every stored vector was made with. */
export const EMBEDDING_MODEL_META_KEY = 'embedding_model';

/** What to do when the store's vectors come from another model or dimensions. */
export interface EnsureEmbeddingModelOptions {
  /** 'reembed': drop every vector so the startup sweep embeds again; 'refuse': stop with an error. */
  onMismatch: 'reembed' | 'refuse';
}

/** Whether the recorded model changed, and what was recorded before (null: nothing yet). */
export interface EnsureEmbeddingModelResult {
  /** true only when vectors of another model were dropped for re-embedding. */
  changed: boolean;
  previous: string | null;
}

/**
 * Makes sure stored vectors and the configured embedder agree, since cosine between vectors of
 * different models or lengths is meaningless: records `model:dimensions` on first start, and
 * on a mismatch re-embeds or refuses to start.
 */
export async function ensureEmbeddingModel(
  store: Pick<MemoryStore, 'getMeta' | 'setMeta' | 'clearEmbeddings'>,
  embedder: Pick<Embedder, 'model' | 'dimensions'>,
  options: EnsureEmbeddingModelOptions,
): Promise<EnsureEmbeddingModelResult> {
  const configured = `${embedder.model}:${embedder.dimensions}`;
  const previous = await store.getMeta(EMBEDDING_MODEL_META_KEY);
  if (previous === configured) return { changed: false, previous };
  if (previous === null) {
    await store.setMeta(EMBEDDING_MODEL_META_KEY, configured);
    return { changed: false, previous };
  }
  if (options.onMismatch === 'refuse') {
    throw new Error(
      `The store's vectors were made with embedding model ${describe(previous)}, but the configured ` +
        `embedder is ${describe(configured)}. Set EMBEDDING_MODEL and EMBEDDING_DIMENSIONS back to ` +
        `match, or set EMBEDDING_REEMBED=true to drop the stored vectors and re-embed every message ` +
        `with the new model (search quality is reduced until that finishes).`,
    );
  }
  // Clear before recording: if the process dies in between, the next start clears again
  // instead of trusting vectors of the old model under the new name.
  await store.clearEmbeddings();
  await store.setMeta(EMBEDDING_MODEL_META_KEY, configured);
  return { changed: true, previous };
}

/** "text-embedding-3-small:1536" -> "text-embedding-3-small with 1536 dimensions". */
function describe(recorded: string): string {
  const separator = recorded.lastIndexOf(':');
  if (separator <= 0) return `"${recorded}"`;
  return `"${recorded.slice(0, separator)}" with ${recorded.slice(separator + 1)} dimensions`;
}
