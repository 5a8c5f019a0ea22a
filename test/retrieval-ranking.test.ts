import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { retrieve } from '../src/memory/retrieve';
import type { MemoryStore } from '../src/store/memory-store';
import { append, freshScope, turn, uniqueWord } from './store/contract-fixtures';
import { storeFactories } from './support/stores';

describe.each(storeFactories())('retrieval ranking ($name)', (factory) => {
  let store: MemoryStore;
  beforeAll(async () => {
    store = await factory.create();
  });
  afterAll(async () => {
    await store.close();
  });

  it('ranks a turn that matched the words above its answer, which only the graph found', async () => {
    const scope = freshScope();
    const word = uniqueWord();
    // No vectors: the question is a full-text hit only, its newer answer a graph neighbour.
    const [question, answer] = await append(store, scope, null, [
      turn('user', `Where did I leave the ${word}?`),
      turn('assistant', 'In the kitchen drawer.'),
    ]);
    const hits = await retrieve({
      store,
      scope,
      text: word,
      vector: null,
      exclude: new Set(),
      limit: 10,
    });

    expect(hits.map((hit) => [hit.message.id, hit.sources])).toEqual([
      [question!.id, ['fulltext']],
      [answer!.id, ['graph']],
    ]);
    expect(hits[1]!.score).toBeLessThan(hits[0]!.score);
  });
});
