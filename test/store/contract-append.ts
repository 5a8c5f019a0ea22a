import { describe, expect, it } from 'vitest';
import { append, freshScope, ids, turn, type StoreGetter } from './contract-fixtures';

/** appendPath: storing paths, dedupe of retries, sibling branches, RESPONDED_WITH, concurrency. */
export function describeAppendContract(getStore: StoreGetter): void {
  describe('appendPath', () => {
    it('stores a path as a chain of complete turns with gapless seq and running branch tokens', async () => {
      const store = getStore();
      const scope = freshScope();
      const appended = await store.appendPath(scope, {
        parentId: null,
        messages: [
          turn('user', 'What is a  graph?\n\nExplain.', {
            model: 'gpt-test',
            traceId: 'trace-1',
            metadata: { client: 'sdk', tags: ['a', 'b'] },
            timestamp: 1_700_000_000_000,
          }),
          turn('assistant', 'Nodes and edges.', { tokenCount: 7 }),
          turn('user', 'Thanks'),
        ],
      });

      expect(appended.map((entry) => entry.created)).toEqual([true, true, true]);
      const [question, answer, thanks] = appended.map((entry) => entry.message);
      expect(question).toMatchObject({
        partition: scope.partition,
        instance: scope.instance,
        role: 'user',
        content: 'What is a  graph?\n\nExplain.',
        raw: { role: 'user', content: 'What is a  graph?\n\nExplain.' },
        snippet: 'What is a graph? Explain.',
        timestamp: 1_700_000_000_000,
        seq: 1,
        parentId: null,
        model: 'gpt-test',
        traceId: 'trace-1',
        metadata: { client: 'sdk', tags: ['a', 'b'] },
        edited: false,
        deleted: false,
        editHistory: [],
        isChunk: false,
        chunkIndex: null,
        chunkParentId: null,
      });
      expect(answer).toMatchObject({ seq: 2, parentId: question!.id, model: null, traceId: null });
      expect(thanks).toMatchObject({ seq: 3, parentId: answer!.id });
      expect(typeof answer!.timestamp).toBe('number');
      expect(answer!.metadata).toEqual({});
      expect(answer!.branchTokens).toBe(question!.tokenCount + 7);
      expect(thanks!.branchTokens).toBe(answer!.branchTokens + thanks!.tokenCount);
      expect(new Set([question!.id, answer!.id, thanks!.id]).size).toBe(3);
      // What appendPath returns is what a later read returns.
      for (const message of [question, answer, thanks]) {
        expect(await store.getMessage(scope, message!.id)).toEqual(message);
      }
    });

    it('stores nothing twice when a path is retried, returning the same turns', async () => {
      const store = getStore();
      const scope = freshScope();
      const path = [turn('user', 'hello'), turn('assistant', 'hi there')];
      const first = await store.appendPath(scope, { parentId: null, messages: path });
      const retry = await store.appendPath(scope, { parentId: null, messages: path });

      expect(retry.map((entry) => entry.created)).toEqual([false, false]);
      expect(retry.map((entry) => entry.message)).toEqual(first.map((entry) => entry.message));
      expect(await store.countMessages(scope)).toBe(2);
    });

    it('stores only the unseen tail when a client resends its full history', async () => {
      const store = getStore();
      const scope = freshScope();
      const history = [turn('user', 'one'), turn('assistant', 'two')];
      const first = await append(store, scope, null, history);
      const resent = await store.appendPath(scope, {
        parentId: null,
        messages: [...history, turn('user', 'three')],
      });

      expect(resent.map((entry) => entry.created)).toEqual([false, false, true]);
      expect(resent[2]!.message).toMatchObject({ parentId: first[1]!.id, seq: 3 });
      expect(await store.countMessages(scope)).toBe(3);
    });

    it('keeps an edited question and a regenerated answer as siblings, never overwriting', async () => {
      const store = getStore();
      const scope = freshScope();
      const [root, reply, question] = await append(store, scope, null, [
        turn('user', 'start'),
        turn('assistant', 'ok'),
        turn('user', 'question'),
      ]);
      const [answerA] = await append(store, scope, question!.id, [turn('assistant', 'answer A')]);
      const [answerB] = await append(store, scope, question!.id, [turn('assistant', 'answer B')]);
      const [edited] = await append(store, scope, reply!.id, [turn('user', 'question, edited')]);

      expect(ids(await store.getChildren(scope, question!.id))).toEqual([answerA!.id, answerB!.id]);
      expect(ids(await store.getChildren(scope, reply!.id))).toEqual([question!.id, edited!.id]);
      expect(ids(await store.getBranch(scope, answerB!.id, { limit: 10 }))).toEqual([
        answerB!.id,
        question!.id,
        reply!.id,
        root!.id,
      ]);
      expect(ids(await store.getBranch(scope, edited!.id, { limit: 10 }))).toEqual([
        edited!.id,
        reply!.id,
        root!.id,
      ]);
      expect((await store.getMessage(scope, answerA!.id))?.content).toBe('answer A');
      expect((await store.getMessage(scope, question!.id))?.content).toBe('question');
      expect(await store.countMessages(scope)).toBe(6);
    });

    it('treats the same content under another parent as a new turn', async () => {
      const store = getStore();
      const scope = freshScope();
      const [first] = await append(store, scope, null, [turn('user', 'again')]);
      const [second] = await append(store, scope, first!.id, [turn('user', 'again')]);
      expect(second!.id).not.toBe(first!.id);
      expect(second!.parentId).toBe(first!.id);
    });

    it('rejects a parent that does not exist and stores nothing', async () => {
      const store = getStore();
      const scope = freshScope();
      await expect(
        store.appendPath(scope, {
          parentId: '01ARZ3NDEKTSV4RRFFQ69G5FAV',
          messages: [turn('user', 'x')],
        }),
      ).rejects.toThrow();
      expect(await store.countMessages(scope)).toBe(0);
    });

    it('returns nothing for an empty path', async () => {
      expect(await getStore().appendPath(freshScope(), { parentId: null, messages: [] })).toEqual(
        [],
      );
    });

    it('links a user turn and its answer over RESPONDED_WITH in both directions', async () => {
      const store = getStore();
      const scope = freshScope();
      const [question, answer, toolResult, final] = await append(store, scope, null, [
        turn('user', 'weather?'),
        turn('assistant', 'calling a tool'),
        turn('tool', '{"temp": 20}'),
        turn('assistant', 'It is 20 degrees.'),
      ]);

      expect((await store.getRespondedWith(scope, question!.id))?.id).toBe(answer!.id);
      expect((await store.getRespondedWith(scope, answer!.id))?.id).toBe(question!.id);
      expect(await store.getRespondedWith(scope, toolResult!.id)).toBeNull();
      expect(await store.getRespondedWith(scope, final!.id)).toBeNull();

      const [regenerated] = await append(store, scope, question!.id, [turn('assistant', 'again')]);
      expect((await store.getRespondedWith(scope, question!.id))?.id).toBe(regenerated!.id);
      expect((await store.getRespondedWith(scope, regenerated!.id))?.id).toBe(question!.id);
    });

    it('hands out seq 1..N without gaps or duplicates to 50 concurrent appends', async () => {
      const store = getStore();
      const scope = freshScope();
      const [root] = await append(store, scope, null, [turn('user', 'root')]);
      await Promise.all(
        Array.from({ length: 50 }, (_, index) =>
          store.appendPath(scope, {
            parentId: index % 2 === 0 ? root!.id : null,
            messages: [turn('user', `concurrent ${index}`), turn('assistant', `reply ${index}`)],
          }),
        ),
      );

      const listed = await store.listMessages(scope, { limit: 1000 });
      expect(listed.map((message) => message.seq)).toEqual(
        Array.from({ length: 101 }, (_, index) => index + 1),
      );
      expect(await store.countMessages(scope)).toBe(101);
    });

    it('stores a turn once when identical appends race', async () => {
      const store = getStore();
      const scope = freshScope();
      const path = [turn('user', 'same question'), turn('assistant', 'same answer')];
      const results = await Promise.all(
        Array.from({ length: 10 }, () =>
          store.appendPath(scope, { parentId: null, messages: path }),
        ),
      );

      const firstIds = ids(results[0]!.map((entry) => entry.message));
      for (const result of results)
        expect(ids(result.map((entry) => entry.message))).toEqual(firstIds);
      const created = results.flat().filter((entry) => entry.created);
      expect(created).toHaveLength(2);
      expect(await store.countMessages(scope)).toBe(2);
      expect((await store.latestTurn(scope))?.seq).toBe(2);
    });
  });

  describe('continueLatest', () => {
    it('starts an empty instance and replies to the latest turn, with RESPONDED_WITH, seq and branch tokens', async () => {
      const store = getStore();
      const scope = freshScope();
      const first = await store.continueLatest(scope, turn('user', 'hello there'));
      expect(first.created).toBe(true);
      expect(first.message).toMatchObject({
        seq: 1,
        parentId: null,
        role: 'user',
        content: 'hello there',
      });
      expect(await store.getMessage(scope, first.message.id)).toEqual(first.message);

      const answer = await store.continueLatest(scope, turn('assistant', 'hi', { tokenCount: 3 }));
      expect(answer.created).toBe(true);
      expect(answer.message).toMatchObject({
        seq: 2,
        parentId: first.message.id,
        branchTokens: first.message.tokenCount + 3,
      });
      expect(await store.getMessage(scope, answer.message.id)).toEqual(answer.message);
      expect((await store.getRespondedWith(scope, first.message.id))?.id).toBe(answer.message.id);
      expect(ids(await store.getBranch(scope, answer.message.id, { limit: 10 }))).toEqual([
        answer.message.id,
        first.message.id,
      ]);
    });

    it('stores nothing for a retry of the latest turn or of the question the latest answer answered', async () => {
      const store = getStore();
      const scope = freshScope();
      const [question, answer] = await append(store, scope, null, [
        turn('user', 'what is a graph?'),
        turn('assistant', 'nodes and edges'),
      ]);
      const retried = await store.continueLatest(scope, turn('user', 'what is a graph?'));
      expect(retried).toEqual({ message: question, created: false });
      const answerAgain = await store.continueLatest(scope, turn('assistant', 'nodes and edges'));
      expect(answerAgain).toEqual({ message: answer, created: false });
      // The same words in another role are a new turn.
      const echoed = await store.continueLatest(scope, turn('assistant', 'what is a graph?'));
      expect(echoed.created).toBe(true);
      expect(echoed.message).toMatchObject({ seq: 3, parentId: answer!.id });
      expect(await store.countMessages(scope)).toBe(3);
    });

    it('stores the question again when the one the latest answer answered was deleted', async () => {
      const store = getStore();
      const scope = freshScope();
      const [question, answer] = await append(store, scope, null, [
        turn('user', 'remember this'),
        turn('assistant', 'noted'),
      ]);
      await store.setMessageDeleted(scope, question!.id, true);
      const again = await store.continueLatest(scope, turn('user', 'remember this'));
      expect(again.created).toBe(true);
      expect(again.message).toMatchObject({ seq: 3, parentId: answer!.id });
    });

    it('stores a message once and keeps seq gapless when the same and different messages race', async () => {
      const store = getStore();
      const scope = freshScope();
      await store.continueLatest(scope, turn('user', 'root'));
      const same = await Promise.all(
        Array.from({ length: 8 }, () =>
          store.continueLatest(scope, turn('user', 'again and again')),
        ),
      );
      expect(new Set(same.map((result) => result.message.id)).size).toBe(1);
      expect(same.filter((result) => result.created)).toHaveLength(1);
      await Promise.all(
        Array.from({ length: 20 }, (_, index) =>
          store.continueLatest(scope, turn('user', `distinct ${index}`)),
        ),
      );
      const listed = await store.listMessages(scope, { limit: 100 });
      expect(listed.map((message) => message.seq)).toEqual(
        Array.from({ length: 22 }, (_, index) => index + 1),
      );
      // Each one replied to the turn that was latest when it was stored: one chain, no siblings.
      const leaf = await store.latestTurn(scope);
      expect(await store.getBranch(scope, leaf!.id, { limit: 100 })).toHaveLength(22);
    });
  });
}
