import { describe, expect, it } from 'vitest';
import type { MemoryStore } from '../../src/store/memory-store';
import type { Scope } from '../../src/store/types';
import {
  append,
  freshScope,
  randomUnitVector,
  turn,
  uniqueWord,
  type StoreGetter,
} from './contract-fixtures';

interface Written {
  scope: Scope;
  word: string;
  vector: number[];
  question: string;
  answer: string;
  chunk: string;
  toolCall: string;
  contentHash: string;
}

/** Writes one of everything into a scope. */
async function writeEverything(store: MemoryStore): Promise<Written> {
  const scope = freshScope();
  const word = uniqueWord();
  const vector = randomUnitVector();
  const questionTurn = turn('user', `secret ${word}`);
  const [question, answer] = await append(store, scope, null, [
    questionTurn,
    turn('assistant', `reply ${word}`),
  ]);
  const [chunk] = await store.setChunks(scope, answer!.id, [
    { content: `chunk ${word}`, tokenCount: 2 },
  ]);
  const [toolCall] = await store.addToolCalls(scope, answer!.id, [
    { callId: 'c1', toolName: 'lookup', arguments: '{}', result: word, tokenCount: 1 },
  ]);
  await store.setEmbeddings(scope, [
    { kind: 'message', id: question!.id, vector },
    { kind: 'message', id: chunk!.id, vector },
    { kind: 'toolcall', id: toolCall!.id, vector },
  ]);
  await store.addSynapses(scope, [{ fromId: question!.id, toId: answer!.id, score: 0.9 }]);
  await store.putCoreMemory(scope, { name: 'human', content: word, tokenCount: 1, updatedAt: 1 });
  await store.putSummary(
    scope,
    {
      boundaryId: answer!.id,
      content: word,
      tokenCount: 1,
      turns: 1,
      updatedAt: 1,
    },
    { epoch: await store.summaryEpoch(scope) },
  );
  return {
    scope,
    word,
    vector,
    question: question!.id,
    answer: answer!.id,
    chunk: chunk!.id,
    toolCall: toolCall!.id,
    contentHash: questionTurn.contentHash,
  };
}

/** What every read method shows from `scope` of the things `written` put elsewhere. */
async function visibleFrom(store: MemoryStore, scope: Scope, written: Written): Promise<unknown[]> {
  const allIds = [written.question, written.answer, written.chunk];
  return [
    await store.getMessage(scope, written.question),
    await store.getMessage(scope, written.chunk),
    await store.getMessages(scope, allIds),
    await store.latestTurn(scope),
    await store.findByHash(scope, written.contentHash, 10),
    await store.getBranch(scope, written.answer, { limit: 10 }),
    await store.getChildren(scope, written.question),
    await store.getRespondedWith(scope, written.question),
    await store.listMessages(scope, { limit: 10, includeDeleted: true }),
    await store.countMessages(scope),
    await store.getChunks(scope, written.answer),
    await store.getToolCall(scope, written.toolCall),
    await store.getToolCallsByMessage(scope, written.answer),
    [...(await store.getEmbeddings(scope, allIds)).keys()],
    await store.vectorSearch(scope, written.vector, { k: 10, includeToolCalls: true }),
    await store.fullTextSearch(scope, written.word, { k: 10 }),
    await store.getSynapses(scope, written.question),
    await store.neighbours(scope, [written.question], { limit: 10 }),
    await store.getCoreMemory(scope),
    await store.getSummary(scope, written.answer),
    await store.getPinnedMemory(scope, written.answer),
  ];
}

const NOTHING = [
  null,
  null,
  [],
  null,
  [],
  [],
  [],
  null,
  [],
  0,
  [],
  null,
  [],
  [],
  [],
  [],
  [],
  [],
  [],
  null,
  { coreMemory: [], summary: null },
];

/** No read or write crosses a partition or an instance. */
export function describeIsolationContract(getStore: StoreGetter): void {
  describe('scope isolation', () => {
    it('hides everything written in partition A / instance X from A/Y and B/X', async () => {
      const store = getStore();
      const written = await writeEverything(store);
      const otherInstance = {
        partition: written.scope.partition,
        instance: `${written.scope.instance}-y`,
      };
      const otherPartition = {
        partition: `${written.scope.partition}-b`,
        instance: written.scope.instance,
      };

      expect(await visibleFrom(store, otherInstance, written)).toEqual(NOTHING);
      expect(await visibleFrom(store, otherPartition, written)).toEqual(NOTHING);
      // The same reads in the writing scope do see it: the emptiness above is not vacuous.
      const own = await visibleFrom(store, written.scope, written);
      own.forEach((result, index) => expect(result, `read #${index}`).not.toEqual(NOTHING[index]));
    });

    it('lets no write in one scope touch or link to turns of another', async () => {
      const store = getStore();
      const written = await writeEverything(store);
      const intruder = {
        partition: written.scope.partition,
        instance: `${written.scope.instance}-y`,
      };
      const [own] = await append(store, intruder, null, [turn('user', 'intruder turn')]);
      const settle = (promise: Promise<unknown>) => promise.catch(() => undefined);

      await expect(
        store.appendPath(intruder, {
          parentId: written.answer,
          messages: [turn('user', 'hijack')],
        }),
      ).rejects.toThrow();
      await settle(store.setChunks(intruder, written.answer, [{ content: 'x', tokenCount: 1 }]));
      await settle(
        store.addToolCalls(intruder, written.answer, [
          { callId: 'c2', toolName: 't', arguments: '{}', result: null, tokenCount: 1 },
        ]),
      );
      await settle(
        store.setEmbeddings(intruder, [
          { kind: 'message', id: written.question, vector: randomUnitVector() },
        ]),
      );
      await settle(
        store.addSynapses(intruder, [{ fromId: own!.id, toId: written.question, score: 0.99 }]),
      );

      expect(
        (await store.getChunks(written.scope, written.answer)).map((chunk) => chunk.id),
      ).toEqual([written.chunk]);
      expect(await store.getToolCallsByMessage(written.scope, written.answer)).toHaveLength(1);
      const embedding = (await store.getEmbeddings(written.scope, [written.question])).get(
        written.question,
      );
      embedding!.forEach((value, index) => expect(value).toBeCloseTo(written.vector[index]!, 5));
      expect(await store.getSynapses(written.scope, written.question)).toHaveLength(1);
      expect(await store.neighbours(intruder, [own!.id], { limit: 10 })).toEqual([]);
      expect(await store.countMessages(intruder)).toBe(1);
      expect(await store.countMessages(written.scope)).toBe(2);
    });
  });
}
