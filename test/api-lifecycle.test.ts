import { Readable } from 'node:stream';
import Database from 'better-sqlite3';
import { ulid } from 'ulid';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LocalEmbedder } from '../src/embeddings/local-embedder';
import { exportJsonLines, importJsonLines } from '../src/memory/export-import';
import type { MemoryStore } from '../src/store/memory-store';
import { Neo4jRunner } from '../src/store/neo4j/neo4j-runner';
import { SqliteStore } from '../src/store/sqlite/sqlite-store';
import type { Scope } from '../src/store/types';
import { apiClient, instancePath } from './support/api-client';
import { startFakeUpstream, textReply, type FakeUpstream } from './support/fake-upstream';
import { startProxy, type RunningProxy } from './support/proxy-harness';
import { neo4jTestConfig, storeFactories, TEST_DIMENSIONS } from './support/stores';
import { append, turn, uniqueWord } from './store/contract-fixtures';

const embedder = new LocalEmbedder({ dimensions: TEST_DIMENSIONS });

function freshScope(): Scope {
  return { partition: `p-${ulid()}`, instance: `i-${ulid()}` };
}

async function collect(lines: AsyncIterable<string>): Promise<string[]> {
  const all: string[] = [];
  for await (const line of lines) all.push(line);
  return all;
}

/** How many entries the store's own search indexes hold for a word and for a turn's vector. */
async function indexEntries(
  store: MemoryStore,
  probe: { id: string; word: string; vector: number[] },
): Promise<number> {
  if (store instanceof SqliteStore) {
    const db = new Database(store.file, { readonly: true });
    try {
      // Turns are indexed for full text in batches (full-text-queue.ts): a queued turn counts.
      const text = db
        .prepare(
          `SELECT (SELECT count(*) FROM messages_fts WHERE messages_fts MATCH @word)
                + (SELECT count(*) FROM messages_fts_queue q JOIN messages m ON m.pk = q.pk WHERE m.id = @id)`,
        )
        .pluck()
        .get({ word: probe.word, id: probe.id }) as number;
      const vectors = db
        .prepare('SELECT count(*) FROM messages WHERE id = ? AND embedding IS NOT NULL')
        .pluck()
        .get(probe.id) as number;
      return text + vectors;
    } finally {
      db.close();
    }
  }
  const runner = new Neo4jRunner(neo4jTestConfig()!);
  try {
    // The full-text index takes writes in the background; what it will hold is what counts.
    await runner.read('CALL db.index.fulltext.awaitEventuallyConsistentIndexRefresh()');
    const text = await runner.read(
      `CALL db.index.fulltext.queryNodes('message_content_scoped', $word) YIELD node WHERE node.id = $id RETURN count(node) AS count`,
      { word: probe.word, id: probe.id },
    );
    const vectors = await runner.read(
      `CALL db.index.vector.queryNodes('message_embedding', 10, $vector) YIELD node WHERE node.id = $id RETURN count(node) AS count`,
      { vector: probe.vector, id: probe.id },
    );
    return Number(text[0]?.['count']) + Number(vectors[0]?.['count']);
  } finally {
    await runner.close();
  }
}

for (const factory of storeFactories()) {
  describe(`memory lifecycle through the API (${factory.name})`, () => {
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
    beforeEach(() => upstream.reset());

    const chat = async (scope: Scope, content: string) => {
      const response = await fetch(
        `${proxy.baseUrl(scope.partition, scope.instance)}/chat/completions`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }] }),
        },
      );
      expect(response.status).toBe(200);
      await response.json();
      return JSON.stringify(upstream.chatRequests().at(-1)!.body.messages);
    };

    it('a soft-deleted turn never reaches the model; a restored one does again', async () => {
      upstream.onChat((request) => textReply(request, 'Noted.'));
      const scope = freshScope();
      const word = `w${ulid().toLowerCase()}`;
      await chat(scope, `Remember the code word ${word}.`);
      await chat(scope, 'What is the weather like?');
      const secret = (await store.listMessages(scope, { limit: 10 })).find((turn) =>
        turn.content.includes(word),
      )!;

      const deleted = await api.delete(`${instancePath(scope)}/messages/${secret.id}`);
      expect(deleted.body).toMatchObject({ id: secret.id, deleted: true });
      expect(await chat(scope, 'What was the code word?')).not.toContain(word);
      const hidden = await api.post(`${instancePath(scope)}/search`, { query: word });
      expect(
        hidden.body.data.map((hit: { message: { id: string } }) => hit.message.id),
      ).not.toContain(secret.id);

      const restored = await api.post(`${instancePath(scope)}/messages/${secret.id}/restore`);
      expect(restored.body).toMatchObject({ id: secret.id, deleted: false });
      expect(await chat(scope, 'And now?')).toContain(word);
      // A turn deleted before the background embedded it is embedded once restored; until then
      // full-text search alone finds it, and its answer, one graph step away, ties with it.
      await proxy.background.drain();
      const found = await api.post(`${instancePath(scope)}/search`, { query: word });
      expect(found.body.data[0]).toMatchObject({
        message: { id: secret.id },
        matched_by: expect.arrayContaining(['fulltext']),
      });
    });

    it('a turn deleted before it was embedded is embedded once restored, alone or with its instance', async () => {
      const scope = freshScope();
      // Written straight to the store, so no background job embeds them before the deletes.
      const storeProbe = async (role: 'user' | 'assistant', parentId: string | null) => {
        const word = uniqueWord();
        const content = `The parcel number is ${word}.`;
        const [appended] = await append(store, scope, parentId, [turn(role, content)]);
        const [vector] = await embedder.embed([content]);
        return { id: appended!.id, word, vector: vector! };
      };
      const alone = await storeProbe('user', null);
      const withInstance = await storeProbe('assistant', alone.id);

      await api.delete(`${instancePath(scope)}/messages/${alone.id}`);
      await api.delete(`${instancePath(scope)}`);
      await proxy.background.drain();
      expect(await indexEntries(store, withInstance)).toBe(1);

      await api.post(`${instancePath(scope)}/restore`);
      await proxy.background.drain();
      expect(await indexEntries(store, withInstance)).toBe(2);
      expect(await indexEntries(store, alone)).toBe(1);

      await api.post(`${instancePath(scope)}/messages/${alone.id}/restore`);
      await proxy.background.drain();
      expect(await indexEntries(store, alone)).toBe(2);
    });

    it('a purged turn is gone from the store and from its full-text and vector indexes', async () => {
      const scope = freshScope();
      const word = `w${ulid().toLowerCase()}`;
      const text = `The locker combination is ${word}.`;
      const appended = await api.post(`${instancePath(scope)}/messages`, {
        messages: [
          { role: 'user', content: text },
          { role: 'assistant', content: 'Got it.' },
        ],
      });
      const id = appended.body.data[0].id as string;
      await proxy.background.drain();
      const [vector] = await embedder.embed([text]);
      const probe = { id, word, vector: vector! };
      expect(await indexEntries(store, probe)).toBe(2);

      const purged = await api.delete(`${instancePath(scope)}/messages/${id}?purge=true`);
      expect(purged.body).toMatchObject({ id, purged: true, removed: { messages: 1 } });
      expect(await indexEntries(store, probe)).toBe(0);
      expect(await store.fullTextSearch(scope, word, { k: 5 })).toEqual([]);
      expect(
        (await store.vectorSearch(scope, vector!, { k: 5 })).map((hit) => hit.id),
      ).not.toContain(id);
      expect((await api.get(`${instancePath(scope)}/messages/${id}`)).status).toBe(404);
      const rest = await api.get(`${instancePath(scope)}/messages`);
      expect(rest.body.data).toEqual([
        expect.objectContaining({ content: 'Got it.', parent_id: null }),
      ]);
    });

    it('exports and imports JSON Lines: a round trip into an empty scope gives the same graph, twice over', async () => {
      const scope = freshScope();
      const long = Array.from({ length: 120 }, (_, index) => `line ${index} of a long note`).join(
        '. ',
      );
      const turns = await api.post(`${instancePath(scope)}/messages`, {
        messages: [
          { role: 'user', content: long },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'call_1', type: 'function', function: { name: 'save', arguments: '{}' } },
            ],
          },
          { role: 'tool', tool_call_id: 'call_1', content: 'saved' },
          { role: 'assistant', content: 'Saved your note.' },
        ],
      });
      const ids = turns.body.data.map((turn: { id: string }) => turn.id) as string[];
      await api.patch(`${instancePath(scope)}/messages/${ids[3]}`, {
        content: 'Saved your long note.',
      });
      await api.delete(`${instancePath(scope)}/messages/${ids[2]}`);
      await api.post(`${instancePath(scope)}/fork`, {
        message_id: ids[1],
        new_instance: `${scope.instance}-fork`,
      });
      await store.putCoreMemory(scope, {
        name: 'notes',
        content: 'keeps long notes',
        tokenCount: 4,
        updatedAt: 7,
      });
      await proxy.background.drain();
      for (const instance of [scope.instance, `${scope.instance}-fork`]) {
        const jobs = await api.post(`${instancePath({ ...scope, instance })}/maintenance`, {
          jobs: ['topics', 'periods'],
        });
        expect(jobs.status).toBe(200);
      }

      const filter = { partition: scope.partition };
      const exported = await collect(exportJsonLines(store, filter));
      expect(JSON.parse(exported[0]!)).toMatchObject({
        type: 'header',
        format: 'memory-proxy-graph',
        version: 3,
      });
      const types = new Set(exported.slice(1).map((line) => JSON.parse(line).type));
      expect(types).toEqual(
        new Set([
          'Instance',
          'Message',
          'ToolCall',
          'CoreMemory',
          'Topic',
          'PeriodSummary',
          'REPLIES_TO',
          'RESPONDED_WITH',
          'SYNAPSE',
          'BELONGS_TO',
          'CHUNK_OF',
          'CALLED_BY',
        ]),
      );
      const viaHttp = await fetch(`${proxy.origin}/api/v1/export?partition=${scope.partition}`);
      expect(viaHttp.headers.get('content-type')).toContain('application/x-ndjson');
      expect(await viaHttp.text()).toBe(exported.join(''));

      // The embedded store imports into a store of its own; the shared Neo4j into the emptied scopes.
      const target = factory.name === 'sqlite' ? await factory.create() : store;
      try {
        if (target === store) {
          for (const instance of [scope.instance, `${scope.instance}-fork`])
            await store.purgeInstance({ ...scope, instance });
          expect(await collect(exportJsonLines(store, filter))).toHaveLength(1);
        }
        const first = await importJsonLines(target, Readable.from(exported));
        expect(first).toMatchObject({ records: exported.length - 1, embeddingsDropped: false });
        expect(first.created).toBeGreaterThan((exported.length - 1) / 2);
        const roundTrip = await collect(exportJsonLines(target, filter));
        expect([...roundTrip].sort()).toEqual([...exported].sort());
        const second = await importJsonLines(target, Readable.from(exported));
        expect(second).toMatchObject({ created: 0, unchanged: exported.length - 1 });
        expect((await collect(exportJsonLines(target, filter))).sort()).toEqual(
          [...exported].sort(),
        );
      } finally {
        if (target !== store) await target.close();
      }
    });

    it('an import stops at a malformed line and names it', async () => {
      const scope = freshScope();
      await api.post(`${instancePath(scope)}/messages`, {
        messages: [
          { role: 'user', content: 'one' },
          { role: 'assistant', content: 'two' },
        ],
      });
      const lines = (await collect(exportJsonLines(store, scope))).map((line) => line.trimEnd());
      const header = lines[0]!;
      const message = JSON.parse(lines[2]!);
      const cases: [string[], RegExp][] = [
        [[header, lines[1]!, '{not json'], /^line 3: not valid JSON/],
        [
          [header, '', JSON.stringify({ ...message, id: undefined })],
          /^line 3: Message\.id must be a non-empty id/,
        ],
        [[JSON.stringify({ type: 'Tree' })], /^line 1: unknown record type "Tree"/],
        [[lines[1]!, header], /^line 2: the header must be the first line/],
        [
          [
            header,
            JSON.stringify({ type: 'REPLIES_TO', ...scope, from: message.id, to: 'nowhere' }),
          ],
          /^line 2: REPLIES_TO .*nowhere/,
        ],
      ];
      for (const [input, expected] of cases) {
        const error = await importJsonLines(
          store,
          Readable.from(input.map((line) => `${line}\n`)),
        ).catch((caught: unknown) => caught);
        expect((error as Error).message).toMatch(expected);
        expect(error).toMatchObject({ status: 400, code: 'invalid_import_line' });
      }
    });
  });
}
