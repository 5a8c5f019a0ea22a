import { describe, expect, it } from 'vitest';
import type { MemoryStore } from '../store/memory-store';
import { EMBEDDING_MODEL_META_KEY, ensureEmbeddingModel } from './ensure-embedding-model';

type ModelStore = Pick<MemoryStore, 'getMeta' | 'setMeta' | 'clearEmbeddings'>;

/** The three store methods ensureEmbeddingModel uses, in memory; the stores are tested elsewhere. */
function fakeStore(recorded: string | null): {
  store: ModelStore;
  meta: Map<string, string>;
  cleared: () => number;
} {
  const meta = new Map<string, string>();
  if (recorded !== null) meta.set(EMBEDDING_MODEL_META_KEY, recorded);
  let clears = 0;
  const store: ModelStore = {
    getMeta: (key) => Promise.resolve(meta.get(key) ?? null),
    setMeta: (key, value) => {
      meta.set(key, value);
      return Promise.resolve();
    },
    clearEmbeddings: () => {
      clears++;
      return Promise.resolve();
    },
  };
  return { store, meta, cleared: () => clears };
}

const local = { model: 'local-v1', dimensions: 384 };

describe('ensureEmbeddingModel', () => {
  it('records the model and dimensions of a new store', async () => {
    const { store, meta, cleared } = fakeStore(null);
    expect(await ensureEmbeddingModel(store, local, { onMismatch: 'refuse' })).toEqual({
      changed: false,
      previous: null,
    });
    expect(meta.get(EMBEDDING_MODEL_META_KEY)).toBe('local-v1:384');
    expect(cleared()).toBe(0);
  });

  it('starts without touching vectors made by the same model', async () => {
    const { store, cleared } = fakeStore('local-v1:384');
    expect(await ensureEmbeddingModel(store, local, { onMismatch: 'refuse' })).toEqual({
      changed: false,
      previous: 'local-v1:384',
    });
    expect(cleared()).toBe(0);
  });

  it('refuses another model, naming both and how to re-embed', async () => {
    const { store, meta, cleared } = fakeStore('text-embedding-3-small:1536');
    const starting = ensureEmbeddingModel(store, local, { onMismatch: 'refuse' });
    await expect(starting).rejects.toThrow(/"text-embedding-3-small" with 1536 dimensions/);
    await expect(starting).rejects.toThrow(/"local-v1" with 384 dimensions/);
    await expect(starting).rejects.toThrow(/EMBEDDING_REEMBED=true/);
    expect(meta.get(EMBEDDING_MODEL_META_KEY)).toBe('text-embedding-3-small:1536');
    expect(cleared()).toBe(0);
  });

  it('refuses the same model with other dimensions', async () => {
    const { store } = fakeStore('local-v1:768');
    await expect(ensureEmbeddingModel(store, local, { onMismatch: 'refuse' })).rejects.toThrow(
      /768 dimensions/,
    );
  });

  it('drops the old vectors and records the new model when asked to re-embed', async () => {
    const { store, meta, cleared } = fakeStore('text-embedding-3-small:1536');
    expect(await ensureEmbeddingModel(store, local, { onMismatch: 'reembed' })).toEqual({
      changed: true,
      previous: 'text-embedding-3-small:1536',
    });
    expect(cleared()).toBe(1);
    expect(meta.get(EMBEDDING_MODEL_META_KEY)).toBe('local-v1:384');
  });
});
