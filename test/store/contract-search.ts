import { describe, expect, it } from 'vitest';
import type { StoreFactory } from '../support/stores';
import {
  append,
  combine,
  freshScope,
  ids,
  orthogonalUnitVector,
  randomUnitVector,
  turn,
  uniqueWord,
  type StoreGetter,
} from './contract-fixtures';

/**
 * Texts a user may type that are query syntax in FTS5, Lucene or Cypher; the store must take
 * them as words.
 */
const HOSTILE_QUERIES = (word: string): string[] => [
  `"${word}" AND (bar OR`,
  `x'})-[r]-() ${word}`,
  `NEAR(${word} b)`,
  `${word}* OR title:${word}~2^3`,
  `-${word} +"unterminated`,
  `${word}' OR 1=1 --`,
  `{${word}} [a TO z] \\ / $param`,
];

/** Embeddings, vector search and full-text search. */
export function describeSearchContract(getStore: StoreGetter, factory: StoreFactory): void {
  describe('embeddings and vector search', () => {
    it('stores and returns embeddings of turns and chunks, leaving out those without one', async () => {
      const store = getStore();
      const scope = freshScope();
      const [a, b] = await append(store, scope, null, [turn('user', 'a'), turn('assistant', 'b')]);
      const [chunk] = await store.setChunks(scope, a!.id, [{ content: 'a chunk', tokenCount: 2 }]);
      const vectorA = randomUnitVector();
      const vectorChunk = randomUnitVector();
      await store.setEmbeddings(scope, [
        { kind: 'message', id: a!.id, vector: vectorA },
        { kind: 'message', id: chunk!.id, vector: vectorChunk },
      ]);

      const embeddings = await store.getEmbeddings(scope, [a!.id, b!.id, chunk!.id, 'missing']);
      expect([...embeddings.keys()].sort()).toEqual([a!.id, chunk!.id].sort());
      expectCloseVector(embeddings.get(a!.id)!, vectorA);
      expectCloseVector(embeddings.get(chunk!.id)!, vectorChunk);
    });

    it('stores vectors given as views into one Float32Array, each with exactly its own values', async () => {
      const store = getStore();
      const scope = freshScope();
      const [a, b] = await append(store, scope, null, [turn('user', 'a'), turn('assistant', 'b')]);
      // How a loader holds a batch's vectors: one buffer, a view per turn.
      const vectorA = randomUnitVector();
      const vectorB = orthogonalUnitVector(vectorA);
      const batch = new Float32Array([...vectorA, ...vectorB]);
      await store.setEmbeddings(scope, [
        { kind: 'message', id: a!.id, vector: batch.subarray(0, vectorA.length) },
        { kind: 'message', id: b!.id, vector: batch.subarray(vectorA.length) },
      ]);

      const embeddings = await store.getEmbeddings(scope, [a!.id, b!.id]);
      expectCloseVector(embeddings.get(a!.id)!, vectorA);
      expectCloseVector(embeddings.get(b!.id)!, vectorB);
      const hits = await store.vectorSearch(scope, vectorB, { k: 2 });
      expect(hits.map((hit) => hit.id)).toEqual([b!.id, a!.id]);
      expect(hits[0]!.score).toBeCloseTo(1, 4);
    });

    it('returns the nearest turns first with their cosine similarity', async () => {
      const store = getStore();
      const scope = freshScope();
      const base = randomUnitVector();
      const side = orthogonalUnitVector(base);
      const turns = await append(
        store,
        scope,
        null,
        ['same', 'close', 'halfway', 'orthogonal', 'opposite'].map((text) => turn('user', text)),
      );
      const vectors = [
        base,
        combine(1, base, 1, side),
        combine(0.5, base, Math.sqrt(3) / 2, side),
        side,
        base.map((value) => -value),
      ];
      await store.setEmbeddings(
        scope,
        turns.map((message, index) => ({
          kind: 'message',
          id: message.id,
          vector: vectors[index]!,
        })),
      );

      const hits = await store.vectorSearch(scope, base, { k: 3 });
      expect(ids(hits)).toEqual(ids(turns.slice(0, 3)));
      expect(hits.every((hit) => hit.kind === 'message')).toBe(true);
      expect(hits[0]!.score).toBeCloseTo(1, 4);
      expect(hits[1]!.score).toBeCloseTo(Math.SQRT1_2, 4);
      expect(hits[2]!.score).toBeCloseTo(0.5, 4);

      const all = await store.vectorSearch(scope, base, { k: 10 });
      expect(ids(all)).toEqual(ids(turns));
      expect(all[3]!.score).toBeCloseTo(0, 4);
      expect(all[4]!.score).toBeCloseTo(-1, 4);
    });

    it('searches chunks always and tool calls only on request', async () => {
      const store = getStore();
      const scope = freshScope();
      const query = randomUnitVector();
      const [parent] = await append(store, scope, null, [turn('assistant', 'long')]);
      const [chunk] = await store.setChunks(scope, parent!.id, [
        { content: 'piece', tokenCount: 1 },
      ]);
      const [call] = await store.addToolCalls(scope, parent!.id, [
        { callId: 'c1', toolName: 'search', arguments: '{}', result: 'r', tokenCount: 1 },
      ]);
      await store.setEmbeddings(scope, [
        {
          kind: 'message',
          id: chunk!.id,
          vector: combine(1, query, 0.2, orthogonalUnitVector(query)),
        },
        { kind: 'toolcall', id: call!.id, vector: query },
      ]);

      expect(await store.vectorSearch(scope, query, { k: 5 })).toEqual([
        { id: chunk!.id, kind: 'message', score: expect.closeTo(0.98, 2) },
      ]);
      const withCalls = await store.vectorSearch(scope, query, { k: 5, includeToolCalls: true });
      expect(withCalls.map((hit) => [hit.id, hit.kind])).toEqual([
        [call!.id, 'toolcall'],
        [chunk!.id, 'message'],
      ]);
    });

    it('brings each hit asked withMessages as getMessages reads it, and never a tool call', async () => {
      const store = getStore();
      const scope = freshScope();
      const word = uniqueWord();
      const query = randomUnitVector();
      const [question, answer] = await append(store, scope, null, [
        turn('user', `Where is ${word}?`),
        turn('assistant', `It is ${word}, by the door.`),
      ]);
      const [chunk] = await store.setChunks(scope, answer!.id, [{ content: word, tokenCount: 1 }]);
      const [call] = await store.addToolCalls(scope, answer!.id, [
        { callId: 'c1', toolName: 'search', arguments: '{}', result: 'r', tokenCount: 1 },
      ]);
      await store.setEmbeddings(scope, [
        { kind: 'message', id: question!.id, vector: query },
        { kind: 'message', id: chunk!.id, vector: combine(1, query, 0.5, orthogonalUnitVector(query)) },
        { kind: 'toolcall', id: call!.id, vector: query },
      ]);
      const expectBrought = async (hits: { id: string; message?: unknown }[]) => {
        expect(hits.length).toBeGreaterThan(0);
        const stored = new Map((await store.getMessages(scope, ids(hits))).map((m) => [m.id, m]));
        for (const hit of hits) if (hit.message !== undefined) expect(hit.message).toEqual(stored.get(hit.id));
      };

      const vectorHits = await store.vectorSearch(scope, query, { k: 5, includeToolCalls: true, withMessages: true });
      expect(vectorHits.find((hit) => hit.kind === 'toolcall')).toEqual({ id: call!.id, kind: 'toolcall', score: expect.closeTo(1, 3) });
      await expectBrought(vectorHits.filter((hit) => hit.kind === 'message'));
      await expectBrought(await store.fullTextSearch(scope, word, { k: 5, withMessages: true }));
      await expectBrought(await store.neighbours(scope, [question!.id], { limit: 5, withMessages: true }));
      // Without the option the hits stay ids.
      expect((await store.vectorSearch(scope, query, { k: 5 })).every((hit) => hit.message === undefined)).toBe(true);
    });

    it('lists turns, chunks and tool calls still to embed, and forgets them once embedded', async () => {
      const store = getStore();
      const scope = freshScope();
      const [parent] = await append(store, scope, null, [turn('user', 'please embed me')]);
      const [chunk] = await store.setChunks(scope, parent!.id, [
        { content: 'chunk text', tokenCount: 2 },
      ]);
      const [call] = await store.addToolCalls(scope, parent!.id, [
        { callId: 'c1', toolName: 'lookup', arguments: '{"q":1}', result: 'done', tokenCount: 1 },
      ]);
      const ours = async () =>
        (await store.pendingEmbeddings(100_000)).filter(
          (item) =>
            item.scope.partition === scope.partition && item.scope.instance === scope.instance,
        );

      const pending = await ours();
      expect(pending).toEqual(
        expect.arrayContaining([
          { scope, kind: 'message', id: parent!.id, text: 'please embed me' },
          { scope, kind: 'message', id: chunk!.id, text: 'chunk text' },
          expect.objectContaining({ scope, kind: 'toolcall', id: call!.id }),
        ]),
      );
      expect(pending).toHaveLength(3);

      await store.setEmbeddings(scope, [
        { kind: 'message', id: parent!.id, vector: randomUnitVector() },
        { kind: 'toolcall', id: call!.id, vector: randomUnitVector() },
      ]);
      expect(ids(await ours())).toEqual([chunk!.id]);
    });

    // clearEmbeddings is store-wide: on a database shared with other suites (Neo4j) it would
    // wipe their vectors mid-test, so it runs there only when a job opts in.
    const mayClear =
      factory.name === 'sqlite' || process.env['STORE_CONTRACT_GLOBAL_WRITES'] === '1';
    it.runIf(mayClear)('clears every embedding before a re-embed', async () => {
      const store = getStore();
      const scope = freshScope();
      const [message] = await append(store, scope, null, [turn('user', 'to clear')]);
      await store.setEmbeddings(scope, [
        { kind: 'message', id: message!.id, vector: randomUnitVector() },
      ]);
      await store.clearEmbeddings();
      expect((await store.getEmbeddings(scope, [message!.id])).size).toBe(0);
      expect(await store.vectorSearch(scope, randomUnitVector(), { k: 5 })).toEqual([]);
      expect(ids(await store.pendingEmbeddings(100_000))).toContain(message!.id);
    });
  });

  describe('full-text search', () => {
    it('finds turns by their words, the best match first', async () => {
      const store = getStore();
      const scope = freshScope();
      const [rare, other] = [uniqueWord(), uniqueWord()];
      const [both, one, none] = await append(store, scope, null, [
        turn('user', `Notes about ${rare} and ${other}.`),
        turn('assistant', `Only ${rare} here, in a longer sentence about something else entirely.`),
        turn('user', 'Nothing relevant at all.'),
      ]);

      const hits = await store.fullTextSearch(scope, `${rare} ${other}`, { k: 10 });
      expect(ids(hits)).toEqual([both!.id, one!.id]);
      expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
      expect(ids(await store.fullTextSearch(scope, other.toUpperCase(), { k: 10 }))).toEqual([
        both!.id,
      ]);
      expect(ids(await store.fullTextSearch(scope, `${rare} ${other}`, { k: 1 }))).toEqual([
        both!.id,
      ]);
      expect(ids(await store.fullTextSearch(scope, 'relevant', { k: 10 }))).toEqual([none!.id]);
    });

    it('finds a stored turn without waiting for fresh indexing once that has caught up', async () => {
      const store = getStore();
      const scope = freshScope();
      const word = uniqueWord();
      const [target] = await append(store, scope, null, [turn('user', `The ${word} is here.`)]);
      // A store that indexes words in the background may miss the turn for a moment, no longer.
      const deadline = Date.now() + 10_000;
      let found = await store.fullTextSearch(scope, word, { k: 5, fresh: false });
      while (found.length === 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        found = await store.fullTextSearch(scope, word, { k: 5, fresh: false });
      }
      expect(ids(found)).toEqual([target!.id]);
    });

    it('takes query syntax in user text as plain words, never throwing', async () => {
      const store = getStore();
      const scope = freshScope();
      const word = uniqueWord();
      const [target] = await append(store, scope, null, [turn('user', `The ${word} is here.`)]);
      for (const query of HOSTILE_QUERIES(word)) {
        expect(ids(await store.fullTextSearch(scope, query, { k: 5 })), query).toContain(
          target!.id,
        );
      }
      for (const query of ['*:*', '*', '()', '""', "'", '-', ' ', '', '🦊🦊', '\\', 'AND', 'NOT']) {
        await expect(store.fullTextSearch(scope, query, { k: 5 }), query).resolves.toBeInstanceOf(
          Array,
        );
      }
      expect(await store.fullTextSearch(scope, '*:* () "" !!! -', { k: 5 })).toEqual([]);
    });

    it('finds words in non-Latin scripts and in a 1 MB turn', async () => {
      const store = getStore();
      const scope = freshScope();
      const word = uniqueWord();
      const [greek, big] = await append(store, scope, null, [
        turn('user', 'Καλημέρα κόσμε, привет мир'),
        turn('assistant', `${'filler text '.repeat(90_000)} ${word}`),
      ]);
      expect(ids(await store.fullTextSearch(scope, 'привет', { k: 5 }))).toEqual([greek!.id]);
      expect(ids(await store.fullTextSearch(scope, word, { k: 5 }))).toEqual([big!.id]);
    });
  });
}

function expectCloseVector(actual: number[], expected: number[]): void {
  expect(actual).toHaveLength(expected.length);
  actual.forEach((value, index) => expect(value).toBeCloseTo(expected[index]!, 5));
}
