import { describe, expect, it } from 'vitest';
import { ConflictError, InvalidRequestError, NotFoundError } from '../../src/errors';
import type { MemoryStore } from '../../src/store/memory-store';
import type { MessageEdit } from '../../src/store/management-types';
import type { Scope, StoredMessage } from '../../src/store/types';
import {
  append,
  freshScope,
  ids,
  randomUnitVector,
  turn,
  uniqueWord,
  type StoreGetter,
} from './contract-fixtures';

/** A conversation with everything a turn can have: embeddings, chunks, a tool call, synapses. */
export async function seedConversation(store: MemoryStore, scope: Scope, word = uniqueWord()) {
  const turns = await append(store, scope, null, [
    turn('user', `first question about ${word}`, { timestamp: 1_000 }),
    turn('assistant', 'first answer', { timestamp: 2_000 }),
    turn('user', 'second question', { timestamp: 3_000 }),
    turn('assistant', 'second answer, a long one', { timestamp: 4_000 }),
  ]);
  const vectors = new Map(turns.map((stored) => [stored.id, randomUnitVector()]));
  await store.setEmbeddings(
    scope,
    turns.map((stored) => ({
      kind: 'message' as const,
      id: stored.id,
      vector: vectors.get(stored.id)!,
    })),
  );
  const chunks = await store.setChunks(scope, turns[3]!.id, [
    { content: `chunk one ${word}`, tokenCount: 3 },
    { content: 'chunk two', tokenCount: 2 },
  ]);
  const chunkVector = randomUnitVector();
  await store.setEmbeddings(scope, [{ kind: 'message', id: chunks[0]!.id, vector: chunkVector }]);
  const [call] = await store.addToolCalls(scope, turns[1]!.id, [
    {
      callId: 'call_1',
      toolName: 'lookup',
      arguments: '{"q":1}',
      result: 'found',
      tokenCount: 5,
      timestamp: 2_000,
    },
  ]);
  await store.addSynapses(scope, [
    { fromId: turns[0]!.id, toId: turns[2]!.id, score: 0.91 },
    { fromId: turns[1]!.id, toId: turns[3]!.id, score: 0.88 },
  ]);
  return { turns, chunks, call: call!, vectors, chunkVector, word };
}

/** An edit as the memory layer would normalize it. */
export function edit(content: string): MessageEdit {
  const normalized = turn('user', content);
  return {
    content,
    raw: normalized.raw,
    contentHash: normalized.contentHash,
    tokenCount: normalized.tokenCount,
  };
}

/** Listing, edits and versions, soft deletes, purges and forks. */
export function describeManageContract(getStore: StoreGetter): void {
  describe('management', () => {
    it('lists instances and partitions with counts, tokens and last activity', async () => {
      const store = getStore();
      const scope = freshScope();
      const other = { partition: scope.partition, instance: `${scope.instance}-b` };
      const { turns } = await seedConversation(store, scope);
      await append(store, other, null, [turn('user', 'elsewhere', { timestamp: 9_000 })]);
      await store.setMessageDeleted(scope, turns[2]!.id, true);

      const instances = await store.listInstances(scope.partition);
      expect(instances).toEqual([
        {
          ...scope,
          messages: 3,
          deletedMessages: 1,
          tokens: turns[0]!.tokenCount + turns[1]!.tokenCount + turns[3]!.tokenCount,
          firstActivity: 1_000,
          lastActivity: 4_000,
          lastSeq: 4,
          deletedAt: null,
        },
        expect.objectContaining({ ...other, messages: 1, lastActivity: 9_000, lastSeq: 1 }),
      ]);
      const partition = (await store.listPartitions()).find(
        (each) => each.partition === scope.partition,
      );
      expect(partition).toEqual({
        partition: scope.partition,
        instances: 2,
        messages: 4,
        tokens: instances[0]!.tokens + instances[1]!.tokens,
        lastActivity: 9_000,
      });
      expect(await store.listInstances(`${scope.partition}-none`)).toEqual([]);
    });

    it('edits a turn: keeps the old text in history and drops its embedding, chunks and synapses', async () => {
      const store = getStore();
      const scope = freshScope();
      const { turns, word } = await seedConversation(store, scope);
      const target = turns[3]!;
      const fresh = uniqueWord();
      const edited = await store.editMessage(scope, target.id, edit(`rewritten ${fresh} answer`));

      expect(edited).toMatchObject({
        id: target.id,
        content: `rewritten ${fresh} answer`,
        edited: true,
        seq: 4,
      });
      expect(edited.editHistory).toEqual([
        { content: 'second answer, a long one', timestamp: expect.any(Number) },
      ]);
      expect(edited.contentHash).toBe(edit(`rewritten ${fresh} answer`).contentHash);
      expect(edited.branchTokens - target.branchTokens).toBe(edited.tokenCount - target.tokenCount);
      expect((await store.getEmbeddings(scope, [target.id])).has(target.id)).toBe(false);
      expect(await store.getChunks(scope, target.id)).toEqual([]);
      expect(await store.getSynapses(scope, target.id)).toEqual([]);
      expect(ids(await store.fullTextSearch(scope, fresh, { k: 5 }))).toEqual([target.id]);
      expect(ids(await store.fullTextSearch(scope, 'long', { k: 5 }))).toEqual([]);
      // The chunk that carried the unique word went with the old text.
      expect(ids(await store.fullTextSearch(scope, word, { k: 5 }))).toEqual([turns[0]!.id]);
      expect((await store.pendingEmbeddings(100_000)).some((item) => item.id === target.id)).toBe(
        true,
      );

      const again = await store.editMessage(scope, target.id, edit('third version'));
      expect(again.editHistory.map((entry) => entry.content)).toEqual([
        'second answer, a long one',
        `rewritten ${fresh} answer`,
      ]);
    });

    it("keeps no vector, link or chunk made from a turn's text before its edit", async () => {
      const store = getStore();
      const scope = freshScope();
      const turns = await append(store, scope, null, [
        turn('user', 'the old question'),
        turn('assistant', 'the old answer'),
      ]);
      const [question, answer] = turns as [StoredMessage, StoredMessage];
      const edited = await store.editMessage(scope, answer.id, edit('the new answer'));
      // What a background job that read the turns before the edit would write.
      const link = { fromId: answer.id, toId: question.id, score: 0.9 };
      await store.setEmbeddings(
        scope,
        turns.map((stored) => ({
          kind: 'message' as const,
          id: stored.id,
          vector: randomUnitVector(),
          contentHash: stored.contentHash,
        })),
        [link],
      );
      const chunks = [{ content: 'the old', tokenCount: 2 }];
      expect(
        await store.setChunks(scope, answer.id, chunks, { parentHash: answer.contentHash }),
      ).toEqual([]);

      const embedded = await store.getEmbeddings(scope, [question.id, answer.id]);
      expect([...embedded.keys()]).toEqual([question.id]);
      expect(await store.getSynapses(scope, answer.id)).toEqual([]);
      expect(await store.getChunks(scope, answer.id)).toEqual([]);

      // The same writes made from the edited text are kept.
      const item = { kind: 'message' as const, id: answer.id, vector: randomUnitVector() };
      await store.setEmbeddings(scope, [{ ...item, contentHash: edited.contentHash }], [link]);
      const kept = await store.setChunks(scope, answer.id, chunks, {
        parentHash: edited.contentHash,
      });
      expect(kept).toHaveLength(1);
      expect((await store.getEmbeddings(scope, [answer.id])).has(answer.id)).toBe(true);
      expect(await store.getSynapses(scope, answer.id)).toEqual([link]);
    });

    it('stores no summary built before an edit, delete, restore or purge changed the turns', async () => {
      const store = getStore();
      const scope = freshScope();
      const turns = await append(store, scope, null, [
        turn('user', 'first question'),
        turn('assistant', 'first answer'),
        turn('user', 'second question'),
        turn('assistant', 'second answer'),
        turn('user', 'third question'),
      ]);
      const boundary = turns[4]!.id;
      const summary = (content: string) => ({
        boundaryId: boundary,
        content,
        tokenCount: 3,
        turns: 4,
        updatedAt: 1,
      });
      const changes: [string, () => Promise<unknown>][] = [
        ['edit', () => store.editMessage(scope, turns[1]!.id, edit('first answer, edited'))],
        ['delete', () => store.setMessageDeleted(scope, turns[2]!.id, true)],
        ['restore', () => store.setMessageDeleted(scope, turns[2]!.id, false)],
        ['purge', () => store.purgeMessage(scope, turns[3]!.id)],
        ['instance delete', () => store.setInstanceDeleted(scope, true)],
      ];
      for (const [name, change] of changes) {
        // A summary job reads the epoch, then the turns; the change commits before its write.
        const epoch = await store.summaryEpoch(scope);
        await change();
        expect(await store.summaryEpoch(scope), name).toBeGreaterThan(epoch);
        expect(
          await store.putSummary(scope, summary(`built before the ${name}`), { epoch }),
          name,
        ).toBe(false);
        expect(await store.getSummary(scope, boundary), name).toBeNull();
        // One built after the change is stored, while its boundary turn is live.
        const current = await store.summaryEpoch(scope);
        const written = await store.putSummary(scope, summary(`built after the ${name}`), {
          epoch: current,
        });
        expect(written, name).toBe(name !== 'instance delete');
        expect((await store.getSummary(scope, boundary))?.content, name).toBe(
          written ? `built after the ${name}` : undefined,
        );
      }
      // The other instances' epochs stay where they were.
      expect(await store.summaryEpoch(freshScope())).toBe(0);
    });

    it('stores no summary under a deleted or purged boundary turn', async () => {
      const store = getStore();
      const scope = freshScope();
      const turns = await append(store, scope, null, [
        turn('user', 'a question'),
        turn('assistant', 'an answer'),
      ]);
      const summary = (boundaryId: string) => ({
        boundaryId,
        content: 'earlier',
        tokenCount: 2,
        turns: 1,
        updatedAt: 1,
      });
      await store.setMessageDeleted(scope, turns[1]!.id, true);
      await store.purgeMessage(scope, turns[0]!.id);
      const epoch = await store.summaryEpoch(scope);
      for (const stored of turns) {
        expect(await store.putSummary(scope, summary(stored.id), { epoch })).toBe(false);
        expect(await store.getSummary(scope, stored.id)).toBeNull();
      }
      expect(await store.putSummary(scope, summary('no-such-turn'), { epoch })).toBe(false);
    });

    it('moves the branch totals below an edited turn by the change in tokens', async () => {
      const store = getStore();
      const scope = freshScope();
      const { turns } = await seedConversation(store, scope);
      const edited = await store.editMessage(
        scope,
        turns[1]!.id,
        edit('a much much longer first answer than before'),
      );
      const delta = edited.tokenCount - turns[1]!.tokenCount;
      const below = await store.getMessages(scope, [turns[2]!.id, turns[3]!.id]);
      expect(below.map((message) => message.branchTokens)).toEqual([
        turns[2]!.branchTokens + delta,
        turns[3]!.branchTokens + delta,
      ]);
    });

    it('refuses to edit, delete or purge a chunk, naming the turn to change instead', async () => {
      const store = getStore();
      const scope = freshScope();
      const { turns, chunks } = await seedConversation(store, scope);
      for (const attempt of [
        () => store.editMessage(scope, chunks[0]!.id, edit('x')),
        () => store.setMessageDeleted(scope, chunks[0]!.id, true),
        () => store.purgeMessage(scope, chunks[0]!.id),
      ]) {
        const error = await attempt().catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(InvalidRequestError);
        expect((error as Error).message).toContain(turns[3]!.id);
      }
      await expect(store.editMessage(scope, 'missing', edit('x'))).rejects.toBeInstanceOf(
        NotFoundError,
      );
      await expect(store.editMessage(freshScope(), turns[0]!.id, edit('x'))).rejects.toBeInstanceOf(
        NotFoundError,
      );
    });

    it('soft-deletes a turn out of every read the chat path makes, and restores it', async () => {
      const store = getStore();
      const scope = freshScope();
      const { turns, vectors, chunks, chunkVector, word } = await seedConversation(store, scope);
      const [question, , , answer] = turns;
      await store.setMessageDeleted(scope, question!.id, true);
      await store.setMessageDeleted(scope, answer!.id, true);

      expect(ids(await store.listMessages(scope, { limit: 10 }))).toEqual([
        turns[1]!.id,
        turns[2]!.id,
      ]);
      expect(ids(await store.getBranch(scope, answer!.id, { limit: 10 }))).toEqual([
        turns[2]!.id,
        turns[1]!.id,
      ]);
      // The limit counts live turns: the deleted leaf is walked through, not counted.
      expect(ids(await store.getBranch(scope, answer!.id, { limit: 1 }))).toEqual([turns[2]!.id]);
      expect((await store.latestTurn(scope))?.id).toBe(turns[2]!.id);
      expect(await store.fullTextSearch(scope, word, { k: 5 })).toEqual([]);
      const hits = ids(await store.vectorSearch(scope, vectors.get(question!.id)!, { k: 10 }));
      expect(hits).not.toContain(question!.id);
      expect(ids(await store.vectorSearch(scope, chunkVector, { k: 10 }))).not.toContain(
        chunks[0]!.id,
      );
      expect(ids(await store.neighbours(scope, [turns[2]!.id], { limit: 10 }))).not.toContain(
        question!.id,
      );
      expect((await store.getMessage(scope, question!.id))?.deleted).toBe(true);
      expect(await store.countMessages(scope)).toBe(2);

      const restored = await store.setMessageDeleted(scope, question!.id, false);
      await store.setMessageDeleted(scope, answer!.id, false);
      expect(restored.deleted).toBe(false);
      expect(ids(await store.listMessages(scope, { limit: 10 }))).toEqual(ids(turns));
      expect(ids(await store.fullTextSearch(scope, word, { k: 5 })).sort()).toEqual(
        [question!.id, chunks[0]!.id].sort(),
      );
      expect(ids(await store.vectorSearch(scope, chunkVector, { k: 1 }))).toEqual([chunks[0]!.id]);
    });

    it('soft-deletes and restores a whole instance, leaving turns deleted on their own deleted', async () => {
      const store = getStore();
      const scope = freshScope();
      const { turns } = await seedConversation(store, scope);
      await store.setMessageDeleted(scope, turns[0]!.id, true);
      expect(await store.setInstanceDeleted(scope, true)).toBe(3 + 2);
      expect(await store.listMessages(scope, { limit: 10 })).toEqual([]);
      const [listed] = await store.listInstances(scope.partition);
      expect(listed).toMatchObject({
        messages: 0,
        deletedMessages: 4,
        deletedAt: expect.any(Number),
      });

      expect(await store.setInstanceDeleted(scope, false)).toBe(3 + 2);
      expect(ids(await store.listMessages(scope, { limit: 10 }))).toEqual(ids(turns.slice(1)));
      expect((await store.listInstances(scope.partition))[0]?.deletedAt).toBeNull();
      await expect(store.setInstanceDeleted(freshScope(), true)).rejects.toBeInstanceOf(
        NotFoundError,
      );
    });

    it('purges a turn with its chunks and tool calls; its child replies to its parent', async () => {
      const store = getStore();
      const scope = freshScope();
      const { turns, chunks, call, vectors } = await seedConversation(store, scope);
      const first = await store.purgeMessage(scope, turns[1]!.id);
      expect(first).toEqual({ messages: 1, toolCalls: 1 });
      expect(await store.getMessage(scope, turns[1]!.id)).toBeNull();
      expect(await store.getToolCall(scope, call.id)).toBeNull();
      const child = await store.getMessage(scope, turns[2]!.id);
      expect(child).toMatchObject({
        parentId: turns[0]!.id,
        branchTokens: turns[2]!.branchTokens - turns[1]!.tokenCount,
      });
      expect(ids(await store.getBranch(scope, turns[3]!.id, { limit: 10 }))).toEqual([
        turns[3]!.id,
        turns[2]!.id,
        turns[0]!.id,
      ]);
      expect(
        ids(await store.vectorSearch(scope, vectors.get(turns[1]!.id)!, { k: 10 })),
      ).not.toContain(turns[1]!.id);

      expect(await store.purgeMessage(scope, turns[3]!.id)).toEqual({ messages: 3, toolCalls: 0 });
      expect(await store.getChunks(scope, turns[3]!.id)).toEqual([]);
      expect(await store.getMessage(scope, chunks[0]!.id)).toBeNull();
      expect(await store.getSynapses(scope, turns[0]!.id)).toEqual([
        { fromId: turns[0]!.id, toId: turns[2]!.id, score: expect.closeTo(0.91, 6) },
      ]);
      await expect(store.purgeMessage(scope, turns[3]!.id)).rejects.toBeInstanceOf(NotFoundError);
    });

    it('keeps vector search answering in a scope whose vectors left the index', async () => {
      const store = getStore();
      const scope = freshScope();
      const turns = await append(store, scope, null, [
        turn('user', 'kept'),
        turn('assistant', 'purged'),
        turn('user', 'edited'),
      ]);
      const vectors = turns.map(() => randomUnitVector());
      await store.setEmbeddings(
        scope,
        turns.map((stored, index) => ({
          kind: 'message' as const,
          id: stored.id,
          vector: vectors[index]!,
        })),
      );
      await store.purgeMessage(scope, turns[1]!.id);
      await store.editMessage(scope, turns[2]!.id, edit('edited, not embedded yet'));
      expect(ids(await store.vectorSearch(scope, vectors[0]!, { k: 5 }))).toEqual([turns[0]!.id]);
      await store.purgeInstance(scope);
      expect(await store.vectorSearch(scope, vectors[0]!, { k: 5 })).toEqual([]);
    });

    it('purges a whole instance and nothing of its neighbour', async () => {
      const store = getStore();
      const scope = freshScope();
      const neighbour = { partition: scope.partition, instance: `${scope.instance}-kept` };
      const { word } = await seedConversation(store, scope);
      await seedConversation(store, neighbour, word);
      await store.putCoreMemory(scope, {
        name: 'facts',
        content: 'x',
        tokenCount: 1,
        updatedAt: 1,
      });

      expect(await store.purgeInstance(scope)).toEqual({ messages: 6, toolCalls: 1 });
      expect(await store.listMessages(scope, { limit: 10, includeDeleted: true })).toEqual([]);
      expect(await store.getCoreMemory(scope)).toEqual([]);
      expect(await store.fullTextSearch(scope, word, { k: 5 })).toEqual([]);
      // Vector search still answers in a scope whose vectors all left the index.
      expect(await store.vectorSearch(scope, randomUnitVector(), { k: 5 })).toEqual([]);
      expect((await store.listInstances(scope.partition)).map((each) => each.instance)).toEqual([
        neighbour.instance,
      ]);
      expect(await store.fullTextSearch(neighbour, word, { k: 5 })).toHaveLength(2);
      expect(await store.purgeInstance(scope)).toEqual({ messages: 0, toolCalls: 0 });
    });

    it('forks the live branch up to a turn into a new instance with new ids and seq 1..n', async () => {
      const store = getStore();
      const scope = freshScope();
      const { turns, chunks, vectors } = await seedConversation(store, scope);
      await store.setMessageDeleted(scope, turns[2]!.id, true);
      const target = { partition: scope.partition, instance: `${scope.instance}-fork` };
      const copied = await store.forkInstance(scope, {
        messageId: turns[3]!.id,
        newInstance: target.instance,
      });

      const kept = [turns[0]!, turns[1]!, turns[3]!];
      expect(copied.map((message) => [message.seq, message.role, message.content])).toEqual(
        kept.map((message, index) => [index + 1, message.role, message.content]),
      );
      expect(copied.every((message, index) => message.id !== kept[index]!.id)).toBe(true);
      expect(copied.map((message) => message.parentId)).toEqual([
        null,
        copied[0]!.id,
        copied[1]!.id,
      ]);
      expect((await store.getRespondedWith(target, copied[0]!.id))?.id).toBe(copied[1]!.id);
      expect(
        (await store.getEmbeddings(target, [copied[0]!.id])).get(copied[0]!.id)?.[0],
      ).toBeCloseTo(vectors.get(turns[0]!.id)![0]!, 5);
      expect((await store.getChunks(target, copied[2]!.id)).map((chunk) => chunk.content)).toEqual(
        chunks.map((chunk) => chunk.content),
      );
      expect(
        (await store.getToolCallsByMessage(target, copied[1]!.id)).map((call) => call.callId),
      ).toEqual(['call_1']);
      expect(copied[0]!.metadata['forked_from']).toEqual({ ...scope, message_id: turns[0]!.id });
      expect((await store.latestTurn(target))?.id).toBe(copied[2]!.id);
      const [next] = await append(store, target, copied[2]!.id, [turn('user', 'after the fork')]);
      expect(next!.seq).toBe(4);
      expect(await store.countMessages(scope)).toBe(3);

      await expect(
        store.forkInstance(scope, { messageId: turns[1]!.id, newInstance: target.instance }),
      ).rejects.toBeInstanceOf(ConflictError);
      await expect(
        store.forkInstance(scope, { messageId: chunks[0]!.id, newInstance: 'x' }),
      ).rejects.toBeInstanceOf(InvalidRequestError);
    });

    it('lists an instance as of a seq, with the text each turn had then', async () => {
      const store = getStore();
      const scope = freshScope();
      const { turns } = await seedConversation(store, scope);
      await store.editMessage(scope, turns[0]!.id, edit('edited later'));
      const [later] = await append(store, scope, turns[3]!.id, [turn('user', 'after the edit')]);

      const past = await store.messagesAsOf(scope, { seq: 2, limit: 10 });
      expect(
        past.map((message: StoredMessage) => [message.seq, message.content, message.edited]),
      ).toEqual([
        [1, turns[0]!.content, false],
        [2, 'first answer', false],
      ]);
      expect(past[0]!.editHistory).toEqual([]);
      // Turn 4 was stored before the edit, turn 5 after it.
      expect((await store.messagesAsOf(scope, { seq: 4, limit: 1 }))[0]?.content).toBe(
        turns[0]!.content,
      );
      const now = await store.messagesAsOf(scope, { seq: 5, limit: 2 });
      expect(now.map((message) => [message.content, message.edited])).toEqual([
        ['edited later', true],
        ['first answer', false],
      ]);
      expect(ids(await store.messagesAsOf(scope, { seq: 5, afterSeq: 3, limit: 10 }))).toEqual([
        turns[3]!.id,
        later!.id,
      ]);
    });
  });
}
