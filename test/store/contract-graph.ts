import { describe, expect, it } from 'vitest';
import { NEIGHBOUR_SCORES } from '../../src/store/memory-store';
import { append, freshScope, randomUnitVector, turn, type StoreGetter } from './contract-fixtures';

/** SYNAPSE links and graph expansion over SYNAPSE, RESPONDED_WITH and REPLIES_TO. */
export function describeGraphContract(getStore: StoreGetter): void {
  describe('graph', () => {
    it('keeps synapses once per direction pair, updating the score, visible from both ends', async () => {
      const store = getStore();
      const scope = freshScope();
      const [a, b, c] = await append(store, scope, null, [
        turn('user', 'a'),
        turn('assistant', 'b'),
        turn('user', 'c'),
      ]);
      await store.addSynapses(scope, [
        { fromId: a!.id, toId: b!.id, score: 0.86 },
        { fromId: c!.id, toId: a!.id, score: 0.9 },
      ]);
      await store.addSynapses(scope, [{ fromId: a!.id, toId: b!.id, score: 0.95 }]);

      expect(await store.getSynapses(scope, a!.id)).toEqual([
        { fromId: a!.id, toId: b!.id, score: expect.closeTo(0.95, 6) },
        { fromId: c!.id, toId: a!.id, score: expect.closeTo(0.9, 6) },
      ]);
      expect(await store.getSynapses(scope, b!.id)).toEqual([
        { fromId: a!.id, toId: b!.id, score: expect.closeTo(0.95, 6) },
      ]);
      expect(await store.getSynapses(scope, 'missing')).toEqual([]);
    });

    it('writes vectors and the links made from them together, as addSynapses would write the links', async () => {
      const store = getStore();
      const scope = freshScope();
      const [question, answer] = await append(store, scope, null, [
        turn('user', 'question'),
        turn('assistant', 'answer'),
      ]);
      const [earlier] = await append(store, scope, null, [turn('user', 'earlier')]);
      const vector = randomUnitVector();
      await store.setEmbeddings(
        scope,
        [
          { kind: 'message', id: question!.id, vector },
          { kind: 'message', id: answer!.id, vector },
        ],
        [
          { fromId: question!.id, toId: answer!.id, score: 0.8 },
          { fromId: earlier!.id, toId: question!.id, score: 0.7 },
          { fromId: answer!.id, toId: answer!.id, score: 1 },
        ],
      );
      // Links alone, as a later batch with no new vectors writes them: the score is updated.
      await store.setEmbeddings(
        scope,
        [],
        [{ fromId: earlier!.id, toId: question!.id, score: 0.75 }],
      );

      expect(
        [...(await store.getEmbeddings(scope, [question!.id, answer!.id])).keys()].sort(),
      ).toEqual([question!.id, answer!.id].sort());
      expect(
        (await store.vectorSearch(scope, vector, { k: 2 })).map((hit) => hit.id).sort(),
      ).toEqual([question!.id, answer!.id].sort());
      expect(await store.getSynapses(scope, question!.id)).toEqual([
        { fromId: question!.id, toId: answer!.id, score: expect.closeTo(0.8, 6) },
        { fromId: earlier!.id, toId: question!.id, score: expect.closeTo(0.75, 6) },
      ]);
      expect(await store.getSynapses(scope, answer!.id)).toEqual([
        { fromId: question!.id, toId: answer!.id, score: expect.closeTo(0.8, 6) },
      ]);
    });

    it('expands turns to their neighbours, strongest link first, each neighbour once', async () => {
      const store = getStore();
      const scope = freshScope();
      const [question, answer, followUp] = await append(store, scope, null, [
        turn('user', 'question'),
        turn('assistant', 'answer'),
        turn('user', 'follow-up'),
      ]);
      const [related, weak] = await append(store, scope, null, [
        turn('user', 'related elsewhere'),
        turn('assistant', 'weakly related'),
      ]);
      await store.addSynapses(scope, [
        { fromId: answer!.id, toId: related!.id, score: 0.95 },
        { fromId: weak!.id, toId: answer!.id, score: 0.5 },
      ]);

      const expected = [
        {
          id: question!.id,
          fromId: answer!.id,
          via: 'RESPONDED_WITH',
          score: NEIGHBOUR_SCORES.RESPONDED_WITH,
        },
        { id: related!.id, fromId: answer!.id, via: 'SYNAPSE', score: expect.closeTo(0.95, 6) },
        {
          id: followUp!.id,
          fromId: answer!.id,
          via: 'REPLIES_TO',
          score: NEIGHBOUR_SCORES.REPLIES_TO,
        },
        { id: weak!.id, fromId: answer!.id, via: 'SYNAPSE', score: expect.closeTo(0.5, 6) },
      ];
      expect(await store.neighbours(scope, [answer!.id], { limit: 10 })).toEqual(expected);
      expect(await store.neighbours(scope, [answer!.id], { limit: 2 })).toEqual(
        expected.slice(0, 2),
      );

      const fromBoth = await store.neighbours(scope, [question!.id, answer!.id], { limit: 10 });
      expect(fromBoth.map((neighbour) => neighbour.id)).toEqual([
        related!.id,
        followUp!.id,
        weak!.id,
      ]);

      expect(await store.neighbours(scope, [followUp!.id], { limit: 10 })).toEqual([
        {
          id: answer!.id,
          fromId: followUp!.id,
          via: 'REPLIES_TO',
          score: NEIGHBOUR_SCORES.REPLIES_TO,
        },
      ]);
      expect(await store.neighbours(scope, [], { limit: 10 })).toEqual([]);
    });
  });
}
