import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  MEMORY_TOOL_NAMES,
  memoryToolDefinitions,
  runMemoryTool,
  type MemoryToolContext,
} from '../src/memory/tools/memory-tools';
import {
  runTool,
  seedConversation,
  testContext,
  withDeleted,
  YESTERDAY,
  CHUNKS,
  type Seeded,
} from '../src/memory/tools/seed-conversation.fixture';
import type { MemoryStore } from '../src/store/memory-store';
import { storeFactories } from './support/stores';

for (const factory of storeFactories()) {
  describe(`memory tools: ${factory.name}`, () => {
    let store: MemoryStore;
    let seeded: Seeded;
    let other: Seeded;
    let context: MemoryToolContext;
    const ids = () => seeded.turns.map((turn) => turn.id);
    const run = (name: string, args: unknown, overrides: Partial<MemoryToolContext> = {}) =>
      runTool({ ...context, ...overrides }, name, args);

    beforeAll(async () => {
      store = await factory.create();
      seeded = await seedConversation(store);
      // Another instance with the same words: it must never show up.
      other = await seedConversation(store);
      context = testContext(store, seeded.scope);
    });

    afterAll(async () => {
      await store?.close();
    });

    it('offers every tool of the spec with strict-shaped schemas, leaving out client tool names', () => {
      expect(MEMORY_TOOL_NAMES).toEqual([
        'get_message_by_id',
        'get_messages_by_ids',
        'get_message_with_chunks',
        'vector_search',
        'search_and_retrieve',
        'get_cluster',
        'get_period_messages',
        'get_conversation_thread',
        'get_tool_call',
        'get_tool_calls_by_message',
        'core_memory_append',
        'core_memory_replace',
      ]);
      for (const tool of memoryToolDefinitions()) {
        expect(tool.type).toBe('function');
        expect(tool.function.parameters).toMatchObject({
          type: 'object',
          additionalProperties: false,
        });
        expect((tool.function.parameters['required'] as string[]).length).toBeGreaterThan(0);
        expect(tool.function.description.length).toBeGreaterThan(60);
      }
      const names = memoryToolDefinitions(new Set(['vector_search', 'my_tool'])).map(
        (tool) => tool.function.name,
      );
      expect(names).toHaveLength(11);
      expect(names).not.toContain('vector_search');
    });

    it('get_message_by_id returns the spec Message of the turn', async () => {
      const first = seeded.turns[0]!;
      const { result, json } = await run('get_message_by_id', { message_id: first.id });
      expect(result).toMatchObject({ ok: true, truncated: false });
      expect(json.message).toEqual({
        id: first.id,
        role: 'user',
        content: 'What is a good name for my golden retriever puppy?',
        timestamp: '2025-03-04T10:00:00.000Z',
        seq: 1,
        parent_id: null,
        token_count: first.tokenCount,
        is_chunk: false,
        chunk_index: null,
        chunk_parent_id: null,
        edited: false,
      });
    });

    it('get_messages_by_ids keeps the order asked and names ids it cannot find', async () => {
      const asked = [ids()[2]!, ids()[0]!, 'nope', other.turns[0]!.id];
      const { result, json } = await run('get_messages_by_ids', { message_ids: asked });
      expect(result.ok).toBe(true);
      expect(json.messages.map((message: { id: string }) => message.id)).toEqual([
        ids()[2],
        ids()[0],
      ]);
      expect(json.not_found).toEqual(['nope', other.turns[0]!.id]);
    });

    it('get_message_with_chunks returns the turn as a preview and its chunks in order, from the turn or a chunk id', async () => {
      for (const id of [seeded.turns[7]!.id, seeded.chunks[1]!.id]) {
        const { json } = await run('get_message_with_chunks', { message_id: id });
        expect(json.message).toMatchObject({ id: seeded.turns[7]!.id, content_truncated: true });
        expect(json.chunk_count).toBe(3);
        expect(json.chunks.map((chunk: { content: string }) => chunk.content)).toEqual(CHUNKS);
        expect(json.chunks.map((chunk: { chunk_index: number }) => chunk.chunk_index)).toEqual([
          0, 1, 2,
        ]);
        expect(json.chunks[0]).toMatchObject({
          is_chunk: true,
          chunk_parent_id: seeded.turns[7]!.id,
        });
      }
      const { json } = await run('get_message_with_chunks', { message_id: seeded.turns[0]!.id });
      expect(json).toMatchObject({
        chunk_count: 0,
        chunks: [],
        message: { id: seeded.turns[0]!.id },
      });
    });

    it('get_cluster opens a seq range of the index, pages it, and links a message to its synapses', async () => {
      const all = await run('get_cluster', { cluster_id: 'c:1-2' });
      expect(all.json.messages.map((message: { seq: number }) => message.seq)).toEqual([1, 2]);
      const paged = await run('get_cluster', { cluster_id: 'c:3-7', limit: 2 });
      expect(paged.json.messages.map((message: { seq: number }) => message.seq)).toEqual([3, 4]);
      expect(paged.json.next_cluster_id).toBe('c:5-7');
      const linked = await run('get_cluster', { cluster_id: ids()[2] });
      expect(linked.json.messages.map((message: { id: string }) => message.id)).toEqual([
        ids()[2],
        ids()[5],
      ]);
      expect(linked.json.links).toEqual([{ id: ids()[5], score: 0.88 }]);
      for (const bad of ['c:500-600', 'c:5-3', 'nonsense']) {
        const { result, json } = await run('get_cluster', { cluster_id: bad });
        expect(result.ok).toBe(false);
        expect(json.error).toMatch(/cluster/);
      }
    });

    it('get_period_messages lists the turns of named periods and explicit ranges, with paging', async () => {
      const seqs = (json: { messages: { seq: number }[] }) =>
        json.messages.map((message) => message.seq);
      expect(seqs((await run('get_period_messages', { period: 'today' })).json)).toEqual([7, 8]);
      expect(seqs((await run('get_period_messages', { period: 'yesterday' })).json)).toEqual([
        3, 4, 5, 6, 9,
      ]);
      expect(seqs((await run('get_period_messages', { period: 'last_week' })).json)).toEqual([
        1, 2,
      ]);
      expect(seqs((await run('get_period_messages', { period: 'this_week' })).json)).toEqual([
        3, 4, 5, 6, 7, 8, 9,
      ]);
      expect(
        seqs((await run('get_period_messages', { period: '2025-03-04..2025-03-04' })).json),
      ).toEqual([1, 2]);
      const first = await run('get_period_messages', {
        period: { start: '2025-03-11', end: '2025-03-12' },
        limit: 3,
      });
      expect(seqs(first.json)).toEqual([3, 4, 5]);
      expect(first.json.period).toEqual({
        start: '2025-03-11T00:00:00.000Z',
        end: '2025-03-13T00:00:00.000Z',
      });
      const next = await run('get_period_messages', {
        period: { start: first.json.next_start, end: '2025-03-12' },
        limit: 3,
      });
      expect(seqs(next.json)).toEqual([6, 7, 8]);
      const empty = await run('get_period_messages', { period: 'last_month' });
      expect(empty.json).toMatchObject({
        messages: [],
        note: expect.stringMatching(/no messages/),
      });
      const bad = await run('get_period_messages', { period: 'the other day' });
      expect(bad.result.ok).toBe(false);
      expect(bad.json.error).toMatch(/not understood.*yesterday/);
    });

    it('get_conversation_thread returns the branch oldest first and the direct replies', async () => {
      const { json } = await run('get_conversation_thread', { message_id: ids()[5] });
      expect(json.thread.map((message: { seq: number }) => message.seq)).toEqual([
        1, 2, 3, 4, 5, 6,
      ]);
      expect(json.replies.map((message: { seq: number }) => message.seq)).toEqual([7]);
      const short = await run('get_conversation_thread', { message_id: ids()[5], depth: 2 });
      expect(short.json.thread.map((message: { seq: number }) => message.seq)).toEqual([5, 6]);
      const fork = await run('get_conversation_thread', { message_id: ids()[2], depth: 1 });
      expect(fork.json.replies.map((message: { id: string }) => message.id)).toEqual([
        ids()[3],
        seeded.alternative.id,
      ]);
    });

    it('get_tool_call and get_tool_calls_by_message return the spec ToolCall', async () => {
      const expected = {
        id: seeded.call.id,
        call_id: 'call_weather_1',
        tool_name: 'get_weather',
        arguments: '{"city":"Lisbon"}',
        result: 'Sunny, 24C',
        timestamp: new Date(YESTERDAY + 1500).toISOString(),
        message_id: ids()[3],
      };
      expect((await run('get_tool_call', { tool_call_id: seeded.call.id })).json.tool_call).toEqual(
        expected,
      );
      expect(
        (await run('get_tool_calls_by_message', { message_id: ids()[3] })).json.tool_calls,
      ).toEqual([expected]);
      // The tool result turn leads to the call it answers.
      expect(
        (await run('get_tool_calls_by_message', { message_id: ids()[4] })).json.tool_calls,
      ).toEqual([expected]);
      expect(
        (await run('get_tool_calls_by_message', { message_id: ids()[0] })).json.tool_calls,
      ).toEqual([]);
      const missing = await run('get_tool_call', { tool_call_id: 'call_weather_1' });
      expect(missing.result.ok).toBe(false);
      expect(missing.json.error).toMatch(/get_tool_calls_by_message/);
    });

    it('never returns another instance, even when asked for its ids', async () => {
      const foreign = other.turns.map((turn) => turn.id);
      for (const [name, args] of [
        ['get_message_by_id', { message_id: foreign[0] }],
        ['get_message_with_chunks', { message_id: foreign[7] }],
        ['get_conversation_thread', { message_id: foreign[5] }],
        ['get_tool_calls_by_message', { message_id: foreign[3] }],
        ['get_tool_call', { tool_call_id: other.call.id }],
        ['get_cluster', { cluster_id: foreign[2] }],
      ] as const) {
        const { result, json } = await run(name, args);
        expect(result.ok, name).toBe(false);
        expect(json.error).toMatch(/no stored|neither/);
      }
      const query = 'golden retriever Lisbon Kubernetes etcd weather';
      for (const [name, args] of [
        ['vector_search', { query, limit: 50 }],
        ['search_and_retrieve', { query, limit: 50 }],
        ['get_cluster', { cluster_id: 'c:1-100', limit: 50 }],
        ['get_period_messages', { period: '2025-01-01..2025-12-31', limit: 50 }],
      ] as const) {
        const { result, json } = await run(name, args);
        expect(JSON.stringify(json)).toContain(ids()[0]);
        expect(result.ok).toBe(true);
        for (const id of [...foreign, ...other.chunks.map((chunk) => chunk.id), other.call.id])
          expect(result.content).not.toContain(id);
      }
    });

    it('answers bad arguments with ok:false and a message the model can act on, never a throw', async () => {
      const cases: [string, string, RegExp][] = [
        ['get_message_by_id', '{"message_id": ', /not valid JSON/],
        ['get_message_by_id', '"just a string"', /must be a JSON object/],
        ['get_message_by_id', '{}', /message_id is required/],
        ['get_message_by_id', '{"message_id": 7}', /message_id must be a string/],
        [
          'get_message_by_id',
          '{"message_id": "01NOTANID"}',
          /no stored message has id "01NOTANID".*memory index/,
        ],
        ['get_messages_by_ids', '{"message_ids": "a,b"}', /message_ids must be an array/],
        ['vector_search', '{"query": "x", "limit": 500}', /limit must be at most 50/],
        ['vector_search', '{"query": "x", "k": 5}', /k is not a parameter/],
        ['get_conversation_thread', '{"message_id": "nope", "depth": 3}', /no stored message/],
        [
          'core_memory_append',
          '{"block": "My Notes", "content": "x"}',
          /block "My Notes" does not match/,
        ],
        ['forget_everything', '{}', /not a memory tool.*get_message_by_id/],
      ];
      for (const [name, json, message] of cases) {
        const result = await runMemoryTool(context, name, json);
        expect(result.ok, `${name} ${json}`).toBe(false);
        expect(JSON.parse(result.content).error).toMatch(message);
      }
    });

    it('turns store failures into an error result', async () => {
      const closed = await factory.create();
      await closed.close();
      const result = await runMemoryTool(
        { ...context, store: closed },
        'get_message_by_id',
        JSON.stringify({ message_id: ids()[0] }),
      );
      expect(result.ok).toBe(false);
      expect(JSON.parse(result.content).error).toMatch(/get_message_by_id failed: .*try again/);
    });

    it('cuts a result that is too large to whole items and names the ids left out', async () => {
      // Ids are random ULIDs whose token counts vary by some 40 tokens over a result: the limits
      // below held for thousands of seeded conversations on both stores (the whole list is 825+).
      const { result, json } = await run(
        'get_messages_by_ids',
        { message_ids: ids() },
        { maxResultTokens: 380 },
      );
      expect(result).toMatchObject({ ok: true, truncated: true });
      const shown = json.messages.map((message: { id: string }) => message.id);
      expect(shown.length).toBeGreaterThan(0);
      expect([...shown, ...json.omitted_ids]).toEqual(ids());
      expect(json.note).toMatch(/get_messages_by_ids/);
      // Each shown item is whole.
      for (const message of json.messages) expect(message.content_truncated).toBeUndefined();
      const thread = await run(
        'get_conversation_thread',
        { message_id: ids()[7] },
        { maxResultTokens: 500 },
      );
      expect(thread.result.truncated).toBe(true);
      // A cut thread keeps the turns nearest the message, shown oldest first.
      const kept = thread.json.thread.map((message: { seq: number }) => message.seq);
      expect(kept.at(-1)).toBe(8);
      expect(kept).toEqual([...kept].sort((a, b) => a - b));
      expect(thread.json.omitted_ids).toContain(ids()[0]);
      // When not one whole item fits, the first is shown shortened, with the nearest ids to page on.
      const tight = await run(
        'get_conversation_thread',
        { message_id: ids()[7] },
        { maxResultTokens: 290 },
      );
      expect(tight.json.thread).toEqual([
        expect.objectContaining({ id: ids()[7], content_truncated: true }),
      ]);
      expect(tight.json.omitted_ids.slice(0, 2)).toEqual([ids()[6], ids()[5]]);
      expect(tight.json.note).toMatch(/shown shortened.*7 of 8 items left out/);
    });

    it('never returns a deleted turn, its chunks or its tool calls', async () => {
      const deleted = new Set([ids()[0]!, ids()[7]!, ids()[3]!]);
      const view = { store: withDeleted(store, deleted) };
      expect((await run('get_message_by_id', { message_id: ids()[0] }, view)).result.ok).toBe(
        false,
      );
      expect(
        (await run('get_message_by_id', { message_id: seeded.chunks[0]!.id }, view)).result.ok,
      ).toBe(false);
      expect((await run('get_tool_call', { tool_call_id: seeded.call.id }, view)).result.ok).toBe(
        false,
      );
      const many = await run(
        'get_messages_by_ids',
        { message_ids: [ids()[0], ids()[1], seeded.chunks[2]!.id] },
        view,
      );
      expect(many.json.messages.map((message: { id: string }) => message.id)).toEqual([ids()[1]]);
      expect(many.json.not_found).toEqual([ids()[0], seeded.chunks[2]!.id]);
      const search = await run(
        'vector_search',
        { query: 'rotate etcd encryption keys golden retriever puppy', limit: 50 },
        view,
      );
      const found = search.json.results.map((hit: { message: { id: string } }) => hit.message.id);
      expect(found.length).toBeGreaterThan(0);
      for (const id of deleted) expect(found).not.toContain(id);
    });
  });
}
