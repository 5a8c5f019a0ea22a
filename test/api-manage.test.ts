import { ulid } from 'ulid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalEmbedder } from '../src/embeddings/local-embedder';
import type { MemoryStore } from '../src/store/memory-store';
import type { Scope } from '../src/store/types';
import { apiClient, instancePath } from './support/api-client';
import { startFakeUpstream, type FakeUpstream } from './support/fake-upstream';
import { startProxy, type RunningProxy } from './support/proxy-harness';
import { storeFactories, TEST_DIMENSIONS } from './support/stores';

const embedder = new LocalEmbedder({ dimensions: TEST_DIMENSIONS });

function freshScope(): Scope {
  return { partition: `p-${ulid()}`, instance: `i-${ulid()}` };
}

for (const factory of storeFactories()) {
  describe(`management API (${factory.name})`, () => {
    let store: MemoryStore;
    let upstream: FakeUpstream;
    let proxy: RunningProxy;
    let api: ReturnType<typeof apiClient>;

    beforeAll(async () => {
      store = await factory.create();
      upstream = await startFakeUpstream();
      proxy = await startProxy({
        store,
        upstreamUrl: upstream.url,
        env: { INDEX_CHUNK_THRESHOLD: '400' },
      });
      api = apiClient(proxy.origin);
    });
    afterAll(async () => {
      await proxy?.close();
      await upstream?.close();
      await store?.close();
    });

    /** Appends turns through the API and returns the stored ones. */
    const append = async (scope: Scope, messages: Record<string, unknown>[], parentId?: string) => {
      const reply = await api.post(`${instancePath(scope)}/messages`, {
        messages,
        ...(parentId ? { parent_id: parentId } : {}),
      });
      expect(reply.status, JSON.stringify(reply.body)).toBe(201);
      return reply.body.data as { id: string; seq: number; content: string }[];
    };
    const conversation = (count: number, prefix: string) =>
      Array.from({ length: count }, (_, index) => ({
        role: index % 2 === 0 ? 'user' : 'assistant',
        content: `${prefix} ${index}`,
      }));

    it('lists partitions, instances and stats, and serves its OpenAPI document', async () => {
      const scope = freshScope();
      await append(scope, conversation(4, 'hello'));
      await append({ ...scope, instance: `${scope.instance}-2` }, conversation(2, 'other'));

      const instances = await api.get(`/api/v1/partitions/${scope.partition}/instances`);
      expect(instances.status).toBe(200);
      expect(
        instances.body.data.map((each: { instance: string; messages: number }) => [
          each.instance,
          each.messages,
        ]),
      ).toEqual([
        [scope.instance, 4],
        [`${scope.instance}-2`, 2],
      ]);
      expect(instances.body.data[0]).toMatchObject({
        object: 'memory.instance',
        deleted: false,
        last_seq: 4,
        tokens: expect.any(Number),
      });
      const partitions = await api.get('/api/v1/partitions');
      expect(
        partitions.body.data.find(
          (each: { partition: string }) => each.partition === scope.partition,
        ),
      ).toMatchObject({
        instances: 2,
        messages: 6,
        last_activity: expect.stringMatching(/^\d{4}-/),
      });
      const stats = await api.get('/api/v1/stats');
      expect(stats.body).toMatchObject({ object: 'memory.stats', store: { kind: factory.name } });
      expect(stats.body.messages_today).toBeGreaterThanOrEqual(6);
      expect(stats.body.active_instances).toBeGreaterThanOrEqual(2);
      if (factory.name === 'sqlite') expect(stats.body.store.size_bytes).toBeGreaterThan(0);

      const openapi = await api.get('/api/v1/openapi.json');
      expect(openapi.body.openapi).toBe('3.1.0');
      expect(Object.keys(openapi.body.paths)).toEqual(
        expect.arrayContaining([
          '/api/v1/partitions/{partition}/instances/{instance}/messages/{id}',
          '/api/v1/partitions/{partition}/instances/{instance}/fork',
          '/api/v1/stats',
        ]),
      );
    });

    it('pages by seq without gaps or repeats while other writers append', async () => {
      const scope = freshScope();
      await append(scope, conversation(30, 'seed'));
      const writers = (async () => {
        for (let index = 0; index < 12; index++)
          await append(scope, [{ role: 'user', content: `concurrent ${index}` }]);
      })();
      const seen: number[] = [];
      let cursor = 0;
      let writing = true;
      void writers.then(() => (writing = false));
      for (;;) {
        const page = await api.get(`${instancePath(scope)}/messages?limit=4&cursor=${cursor}`);
        seen.push(...page.body.data.map((message: { seq: number }) => message.seq));
        cursor = page.body.next_cursor;
        if (!page.body.has_more && !writing) break;
      }
      await writers;
      const tail = await api.get(`${instancePath(scope)}/messages?limit=100&cursor=${cursor}`);
      seen.push(...tail.body.data.map((message: { seq: number }) => message.seq));
      expect(seen).toEqual(Array.from({ length: 42 }, (_, index) => index + 1));
      expect(tail.body.next_cursor).toBe(42);
    });

    it('lists a branch, a token-budgeted window, a role and a point in time', async () => {
      const scope = freshScope();
      const main = await append(scope, conversation(6, 'turn'));
      const side = await append(
        scope,
        [{ role: 'assistant', content: 'a regenerated answer' }],
        main[2]!.id,
      );
      const path = `${instancePath(scope)}/messages`;

      const branch = await api.get(`${path}?leaf=${side[0]!.id}`);
      expect(branch.body.data.map((message: { content: string }) => message.content)).toEqual([
        'turn 0',
        'turn 1',
        'turn 2',
        'a regenerated answer',
      ]);
      const paged = await api.get(`${path}?leaf=${main[5]!.id}&cursor=2&limit=2`);
      expect(paged.body.data.map((message: { seq: number }) => message.seq)).toEqual([3, 4]);
      expect(paged.body).toMatchObject({ next_cursor: 4, has_more: true });

      const tokens = (await store.listMessages(scope, { limit: 10 })).map(
        (message) => message.tokenCount,
      );
      const budget = tokens[5]! + tokens[6]!;
      const window = await api.get(`${path}?token_budget=${budget}`);
      expect(window.body.data.map((message: { seq: number }) => message.seq)).toEqual([6, 7]);
      const users = await api.get(`${path}?role=user`);
      expect(users.body.data.map((message: { role: string }) => message.role)).toEqual([
        'user',
        'user',
        'user',
      ]);

      await api.patch(`${path}/${main[0]!.id}`, { content: 'turn 0, edited' });
      const past = await api.get(`${path}?as_of_seq=2`);
      expect(past.body.data.map((message: { content: string }) => message.content)).toEqual([
        'turn 0',
        'turn 1',
      ]);
      const now = await api.get(`${path}?limit=1`);
      expect(now.body.data[0]).toMatchObject({
        content: 'turn 0, edited',
        edited: true,
        edit_history: [{ content: 'turn 0' }],
      });

      const bad = await api.get(`${path}?as_of_seq=2&leaf=${main[1]!.id}`);
      expect(bad.status).toBe(400);
      expect(bad.body.error).toMatchObject({ type: 'invalid_request_error', param: 'as_of_seq' });
      expect((await api.get(`${path}?role=system`)).body.error.param).toBe('role');
    });

    it('re-embeds an edited turn: vector search finds the new text, not the old', async () => {
      const scope = freshScope();
      const [question] = await append(scope, [
        { role: 'user', content: 'My cat sleeps all day on the warm windowsill.' },
      ]);
      await proxy.background.drain();
      const [oldVector] = await embedder.embed(['My cat sleeps all day on the warm windowsill.']);
      expect((await store.vectorSearch(scope, oldVector!, { k: 1 }))[0]?.id).toBe(question!.id);

      const text = 'Quarterly revenue grew by twelve percent in Norway.';
      const edited = await api.patch(`${instancePath(scope)}/messages/${question!.id}`, {
        content: text,
      });
      expect(edited.body).toMatchObject({
        content: text,
        edited: true,
        edit_history: [{ content: 'My cat sleeps all day on the warm windowsill.' }],
      });
      await proxy.background.drain();

      const [newVector] = await embedder.embed([text]);
      const found = await store.vectorSearch(scope, newVector!, { k: 1 });
      expect(found[0]).toMatchObject({ id: question!.id });
      expect(found[0]!.score).toBeGreaterThan(0.99);
      const old = await store.vectorSearch(scope, oldVector!, { k: 1 });
      expect(old[0]!.score).toBeLessThan(0.5);
      const search = await api.post(`${instancePath(scope)}/search`, {
        query: 'revenue in Norway',
        limit: 5,
      });
      expect(search.body.data[0]).toMatchObject({
        message: { id: question!.id },
        matched_by: expect.arrayContaining(['vector', 'fulltext']),
      });
      const stale = await api.post(`${instancePath(scope)}/search`, { query: 'windowsill' });
      expect(
        stale.body.data.flatMap((hit: { matched_by: string[] }) => hit.matched_by),
      ).not.toContain('fulltext');
    });

    it('shows a message with its chunks, tool calls, answer and synapses, and refuses to edit a chunk', async () => {
      const scope = freshScope();
      const long = Array.from({ length: 120 }, (_, index) => `fact number ${index} about tea`).join(
        '. ',
      );
      const [question, answer] = await append(scope, [
        { role: 'user', content: long },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'call_9',
              type: 'function',
              function: { name: 'lookup', arguments: '{"q":"tea"}' },
            },
          ],
        },
        { role: 'tool', tool_call_id: 'call_9', content: 'green tea' },
      ]);
      await proxy.background.drain();
      const detail = await api.get(`${instancePath(scope)}/messages/${question!.id}`);
      expect(detail.status).toBe(200);
      expect(detail.body.chunks.length).toBeGreaterThan(1);
      expect(detail.body.responded_with).toMatchObject({ id: answer!.id });
      const answerDetail = await api.get(`${instancePath(scope)}/messages/${answer!.id}`);
      expect(answerDetail.body.tool_calls).toEqual([
        expect.objectContaining({ call_id: 'call_9', tool_name: 'lookup', result: 'green tea' }),
      ]);

      const chunkId = detail.body.chunks[0].id as string;
      const refused = await api.patch(`${instancePath(scope)}/messages/${chunkId}`, {
        content: 'x',
      });
      expect(refused.status).toBe(400);
      expect(refused.body.error.message).toContain(question!.id);
      expect((await api.get(`${instancePath(scope)}/messages/01MISSING`)).status).toBe(404);
      expect(
        (await api.get(`/api/v1/partitions/bad%20name/instances/x/messages`)).body.error,
      ).toMatchObject({ param: 'partition', type: 'invalid_request_error' });
    });

    it('forks an instance at a message, and refuses to fork onto one that has turns', async () => {
      const scope = freshScope();
      const turns = await append(scope, conversation(6, 'fork'));
      const target = `${scope.instance}-copy`;
      const fork = await api.post(`${instancePath(scope)}/fork`, {
        message_id: turns[3]!.id,
        new_instance: target,
      });
      expect(fork.status).toBe(201);
      expect(
        fork.body.data.map((message: { seq: number; content: string }) => [
          message.seq,
          message.content,
        ]),
      ).toEqual(turns.slice(0, 4).map((message, index) => [index + 1, message.content]));
      const listed = await api.get(`${instancePath({ ...scope, instance: target })}/messages`);
      expect(listed.body.data.map((message: { id: string }) => message.id)).toEqual(
        fork.body.data.map((message: { id: string }) => message.id),
      );
      expect(
        new Set([...turns, ...fork.body.data].map((message: { id: string }) => message.id)).size,
      ).toBe(10);
      const again = await api.post(`${instancePath(scope)}/fork`, {
        message_id: turns[1]!.id,
        new_instance: target,
      });
      expect(again.status).toBe(409);
      expect(again.body.error).toMatchObject({ code: 'instance_exists', param: 'new_instance' });
    });

    it('soft-deletes, restores and purges a whole instance', async () => {
      const scope = freshScope();
      await append(scope, conversation(4, 'gone'));
      const deleted = await api.delete(instancePath(scope));
      expect(deleted.body).toMatchObject({
        deleted: true,
        messages: 0,
        deleted_messages: 4,
        messages_changed: 4,
      });
      expect((await api.get(`${instancePath(scope)}/messages`)).body.data).toEqual([]);
      const restored = await api.post(`${instancePath(scope)}/restore`);
      expect(restored.body).toMatchObject({ deleted: false, messages: 4 });
      const purged = await api.delete(`${instancePath(scope)}?purge=true`);
      expect(purged.body).toMatchObject({ purged: true, removed: { messages: 4, tool_calls: 0 } });
      expect((await api.get(instancePath(scope))).status).toBe(404);
      expect((await api.delete(instancePath(scope))).status).toBe(404);
    });
  });
}
