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

describe('retrieval ranking on the embedded store', () => {
  let store: MemoryStore;
  beforeAll(async () => {
    store = await storeFactories()[0]!.create();
  });
  afterAll(async () => {
    await store.close();
  });

  it('ranks by the function words of a question where they are rare, as a first-person fact', async () => {
    const scope = freshScope();
    // Two turns apart, so neither reaches the other through the graph.
    const [fact, , other] = await append(store, scope, null, [
      turn('user', 'My favourite colour is teal, by the way.'),
      turn('assistant', 'Noted.'),
      turn('user', 'Favourite colour of the logo: orange.'),
    ]);
    const hits = await retrieve({
      store,
      scope,
      text: 'What is my favourite colour?',
      vector: null,
      exclude: new Set(),
      limit: 10,
    });

    // "my" and "is" are in one turn of three here: the fact outranks the shorter turn that shares
    // only "favourite colour" with the question.
    const ranked = hits.map((hit) => hit.message.id);
    expect(ranked[0]).toBe(fact!.id);
    expect(ranked.indexOf(other!.id)).toBeGreaterThan(0);
  });
});
