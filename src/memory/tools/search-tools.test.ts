import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeFactories } from '../../../test/support/stores';
import type { MemoryStore } from '../../store/memory-store';
import { toNewMessage } from '../normalize-message';
import type { MemoryToolContext } from './memory-tools';
import {
  CHUNKS,
  freshScope,
  runTool,
  seedConversation,
  testContext,
  testEmbedder,
  TODAY,
  type Seeded,
} from './seed-conversation.fixture';

for (const factory of storeFactories()) {
  describe(`memory search tools: ${factory.name}`, () => {
    let store: MemoryStore;
    let seeded: Seeded;
    let context: MemoryToolContext;
    const ids = () => seeded.turns.map((turn) => turn.id);
    const run = (name: string, args: unknown, overrides: Partial<MemoryToolContext> = {}) =>
      runTool({ ...context, ...overrides }, name, args);

    beforeAll(async () => {
      store = await factory.create();
      seeded = await seedConversation(store);
      context = testContext(store, seeded.scope);
    });

    afterAll(async () => {
      await store?.close();
    });

    it('vector_search ranks by meaning and maps chunk and tool-call hits to their turn', async () => {
      const puppy = await run('vector_search', {
        query: 'name for a golden retriever puppy',
        limit: 3,
      });
      expect(puppy.json.results[0]).toMatchObject({
        message: { id: ids()[0] },
        matched_by: ['vector'],
      });
      expect(puppy.json.results.length).toBeLessThanOrEqual(3);
      expect(puppy.json.results[0].score).toBeGreaterThan(puppy.json.results[2].score);

      const etcd = await run('vector_search', { query: 'rotate etcd encryption keys snapshot' });
      expect(etcd.json.results[0]).toMatchObject({
        message: { id: ids()[7], content_truncated: true },
        excerpt: CHUNKS[1],
        chunk_id: seeded.chunks[1]!.id,
      });
      const turnIds = etcd.json.results.map((hit: { message: { id: string } }) => hit.message.id);
      expect(new Set(turnIds).size).toBe(turnIds.length);

      const weather = await run('vector_search', { query: 'get_weather city Lisbon sunny' });
      expect(weather.json.results).toContainEqual(
        expect.objectContaining({
          tool_call_id: seeded.call.id,
          message: expect.objectContaining({ id: ids()[3] }),
        }),
      );
      const without = await run(
        'vector_search',
        { query: 'get_weather city Lisbon sunny' },
        { includeToolCalls: false },
      );
      expect(without.json.results.some((hit: { tool_call_id?: string }) => hit.tool_call_id)).toBe(
        false,
      );
    });

    it('search_and_retrieve fuses vector, full text and graph, whole turns when few hits', async () => {
      const { result, json } = await run('search_and_retrieve', {
        query: 'Kubernetes deployment checklist',
      });
      expect(result.ok).toBe(true);
      expect(json.format).toBe('full');
      const top = json.results
        .slice(0, 2)
        .map((hit: { message: { id: string } }) => hit.message.id);
      expect(top.sort()).toEqual([ids()[6], ids()[7]].sort());
      const question = json.results.find(
        (hit: { message: { id: string } }) => hit.message.id === ids()[6],
      );
      expect(question.matched_by).toEqual(expect.arrayContaining(['vector', 'fulltext']));
      expect(question.message.content).toBe('Remind me of the Kubernetes deployment checklist.');
      expect(json.results.length).toBeLessThanOrEqual(5);
      const fixed = await run('search_and_retrieve', {
        query: 'Kubernetes deployment checklist',
        auto_limit: false,
        limit: 1,
      });
      expect(fixed.json.results).toHaveLength(1);
    });

    it('search_and_retrieve switches to snippets when there are many hits', async () => {
      const scope = freshScope();
      const notes = Array.from({ length: 12 }, (_, index) => ({
        ...toNewMessage({
          role: 'user',
          content: `Garden note ${index}: the tomato plants need water every morning, and the basil ${'grows '.repeat(20)}`,
        }),
        timestamp: TODAY + index,
      }));
      const stored = (await store.appendPath(scope, { parentId: null, messages: notes })).map(
        (entry) => entry.message,
      );
      const vectors = await testEmbedder.embed(stored.map((message) => message.content));
      await store.setEmbeddings(
        scope,
        stored.map((message, index) => ({
          kind: 'message' as const,
          id: message.id,
          vector: vectors[index]!,
        })),
      );
      const { json } = await run(
        'search_and_retrieve',
        { query: 'tomato plants water', limit: 10 },
        { scope },
      );
      expect(json.format).toBe('snippets');
      expect(json.results).toHaveLength(10);
      for (const hit of json.results) {
        expect(hit.message.content.length).toBeLessThanOrEqual(61);
        expect(hit.message.content_truncated).toBe(true);
      }
      expect(json.hint).toMatch(/get_message_by_id/);
    });
  });
}
