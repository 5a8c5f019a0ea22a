import { ulid } from 'ulid';
import { describe, expect, it } from 'vitest';
import { append, freshScope, ids, turn, type StoreGetter } from './contract-fixtures';

/** Records attached to turns or instances: chunks, tool calls, core memory, summaries, meta. */
export function describeRecordContract(getStore: StoreGetter): void {
  describe('chunks', () => {
    it('stores the chunks of a long turn in order and replaces them on the next call', async () => {
      const store = getStore();
      const scope = freshScope();
      const [parent, child] = await append(store, scope, null, [
        turn('assistant', 'a long answer', { timestamp: 1_700_000_000_000 }),
        turn('user', 'next'),
      ]);
      const first = await store.setChunks(scope, parent!.id, [
        { content: 'part one', tokenCount: 2 },
        { content: 'part two', tokenCount: 3 },
      ]);

      expect(first).toHaveLength(2);
      expect(first[0]).toMatchObject({
        role: 'assistant',
        content: 'part one',
        tokenCount: 2,
        isChunk: true,
        chunkIndex: 0,
        chunkParentId: parent!.id,
        seq: 0,
        parentId: null,
        timestamp: 1_700_000_000_000,
        deleted: false,
      });
      expect(first[1]).toMatchObject({ content: 'part two', chunkIndex: 1 });
      expect(await store.getChunks(scope, parent!.id)).toEqual(first);
      expect(await store.getMessage(scope, first[1]!.id)).toEqual(first[1]);

      const replaced = await store.setChunks(scope, parent!.id, [
        { content: 'only part', tokenCount: 4 },
      ]);
      expect(await store.getChunks(scope, parent!.id)).toEqual(replaced);
      expect(await store.getMessages(scope, ids(first))).toEqual([]);
      // Chunks stay out of the conversation tree.
      expect(ids(await store.getChildren(scope, parent!.id))).toEqual([child!.id]);
      expect(ids(await store.getBranch(scope, child!.id, { limit: 10 }))).toEqual([
        child!.id,
        parent!.id,
      ]);
      expect(await store.getChunks(scope, child!.id)).toEqual([]);
    });
  });

  describe('tool calls', () => {
    it('stores the tool calls of a turn once per call id and reads them back', async () => {
      const store = getStore();
      const scope = freshScope();
      const [, answer] = await append(store, scope, null, [
        turn('user', 'q'),
        turn('assistant', 'a'),
      ]);
      const calls = [
        {
          callId: 'call_1',
          toolName: 'vector_search',
          arguments: '{"query":"cats"}',
          result: 'found 2',
          tokenCount: 5,
          durationMs: 12,
          timestamp: 1_700_000_000_000,
        },
        {
          callId: 'call_2',
          toolName: 'get_message_by_id',
          arguments: '{"id":"x"}',
          result: null,
          tokenCount: 3,
          timestamp: 1_700_000_000_001,
        },
      ];
      const stored = await store.addToolCalls(scope, answer!.id, calls);
      expect(stored[0]).toMatchObject({
        partition: scope.partition,
        instance: scope.instance,
        callId: 'call_1',
        toolName: 'vector_search',
        arguments: '{"query":"cats"}',
        result: 'found 2',
        timestamp: 1_700_000_000_000,
        messageId: answer!.id,
        tokenCount: 5,
        durationMs: 12,
      });
      expect(stored[1]).toMatchObject({ callId: 'call_2', result: null, durationMs: null });

      const again = await store.addToolCalls(scope, answer!.id, [calls[0]!]);
      expect(again[0]!.id).toBe(stored[0]!.id);
      expect(await store.getToolCallsByMessage(scope, answer!.id)).toEqual(stored);
      expect(await store.getToolCall(scope, stored[1]!.id)).toEqual(stored[1]);
      expect(await store.getToolCall(scope, 'missing')).toBeNull();
    });
  });

  describe('core memory, summaries and meta', () => {
    it('creates and replaces core-memory blocks, listed by name', async () => {
      const store = getStore();
      const scope = freshScope();
      expect(await store.getCoreMemory(scope)).toEqual([]);
      const persona = { name: 'persona', content: 'Helpful.', tokenCount: 2, updatedAt: 1 };
      const human = { name: 'human', content: 'Alice likes 🍵.', tokenCount: 5, updatedAt: 2 };
      await store.putCoreMemory(scope, persona);
      await store.putCoreMemory(scope, human);
      const updated = { ...persona, content: 'Helpful and brief.', tokenCount: 4, updatedAt: 3 };
      await store.putCoreMemory(scope, updated);
      expect(await store.getCoreMemory(scope)).toEqual([human, updated]);
    });

    it('stores the running summary of a branch per boundary turn', async () => {
      const store = getStore();
      const scope = freshScope();
      const [boundary] = await append(store, scope, null, [turn('user', 'b')]);
      expect(await store.getSummary(scope, boundary!.id)).toBeNull();
      const summary = {
        boundaryId: boundary!.id,
        content: 'They met.',
        tokenCount: 3,
        turns: 4,
        updatedAt: 10,
      };
      expect(await store.putSummary(scope, summary, { epoch: 0 })).toBe(true);
      expect(await store.getSummary(scope, boundary!.id)).toEqual(summary);
      const folded = {
        ...summary,
        content: 'They met and talked.',
        tokenCount: 5,
        turns: 9,
        updatedAt: 20,
      };
      expect(await store.putSummary(scope, folded, { epoch: 0 })).toBe(true);
      expect(await store.getSummary(scope, boundary!.id)).toEqual(folded);
      expect(await store.getSummary(scope, 'other-boundary')).toBeNull();
    });

    it('reads core memory and the summary at a boundary together, as the two reads would', async () => {
      const store = getStore();
      const scope = freshScope();
      const [boundary] = await append(store, scope, null, [turn('user', 'b')]);
      expect(await store.getPinnedMemory(scope, boundary!.id)).toEqual({ coreMemory: [], summary: null });
      const persona = { name: 'persona', content: 'Helpful.', tokenCount: 2, updatedAt: 1 };
      const human = { name: 'human', content: 'Alice likes 🍵.', tokenCount: 5, updatedAt: 2 };
      await store.putCoreMemory(scope, persona);
      await store.putCoreMemory(scope, human);
      const summary = { boundaryId: boundary!.id, content: 'They met.', tokenCount: 3, turns: 4, updatedAt: 10 };
      await store.putSummary(scope, summary, { epoch: 0 });
      expect(await store.getPinnedMemory(scope, boundary!.id)).toEqual({ coreMemory: [human, persona], summary });
      expect(await store.getPinnedMemory(scope, null)).toEqual({ coreMemory: [human, persona], summary: null });
      expect(await store.getPinnedMemory(scope, 'other-boundary')).toEqual({ coreMemory: [human, persona], summary: null });
      expect(await store.getPinnedMemory(freshScope(), boundary!.id)).toEqual({ coreMemory: [], summary: null });
    });

    it('stores store-wide settings', async () => {
      const store = getStore();
      const key = `contract-${ulid()}`;
      expect(await store.getMeta(key)).toBeNull();
      await store.setMeta(key, 'local:384');
      expect(await store.getMeta(key)).toBe('local:384');
      await store.setMeta(key, 'text-embedding-3-small:1536');
      expect(await store.getMeta(key)).toBe('text-embedding-3-small:1536');
    });
  });
}
