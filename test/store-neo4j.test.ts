import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../src/errors';
import type { Neo4jConfig } from '../src/config/load-config';
import type { Scope } from '../src/store/types';
import { Neo4jRunner } from '../src/store/neo4j/neo4j-runner';
import { Neo4jStore, type Neo4jStoreOptions } from '../src/store/neo4j/neo4j-store';
import {
  combine,
  freshScope,
  ids,
  orthogonalUnitVector,
  randomUnitVector,
  turn,
  uniqueWord,
} from './store/contract-fixtures';
import { edit } from './store/contract-manage';
import { neo4jTestConfig, storeFactories, TEST_DIMENSIONS } from './support/stores';

// Throws when REQUIRE_NEO4J=1 and NEO4J_URI is unset, so CI can never skip this file silently.
storeFactories();
const config = neo4jTestConfig();

const NOISE_VECTORS = 3_000;
const NOISE_BATCH = 500;

async function openStore(options: Partial<Neo4jStoreOptions> = {}): Promise<Neo4jStore> {
  const store = new Neo4jStore({ ...(config as Neo4jConfig), ...options });
  await store.init({ embeddingDimensions: TEST_DIMENSIONS });
  return store;
}

function cosine(a: readonly number[], b: readonly number[]): number {
  let dot = 0;
  let normA = 0;
  let normB = 0;
  a.forEach((value, index) => {
    const other = b[index] ?? 0;
    dot += value * other;
    normA += value * value;
    normB += other * other;
  });
  return dot / Math.sqrt(normA * normB);
}

/** Expects a StoreUnavailableError (the HTTP layer's 503) well before a client would give up. */
async function expectQuickUnavailable(operation: Promise<unknown>): Promise<void> {
  const started = Date.now();
  await expect(operation).rejects.toBeInstanceOf(StoreUnavailableError);
  // Connection and acquisition timeouts (3-5 s) plus one retry, never an open-ended wait.
  expect(Date.now() - started).toBeLessThan(15_000);
}

/** A local TCP port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe.skipIf(!config)('Neo4jStore on a real server', () => {
  let store: Neo4jStore;
  let runner: Neo4jRunner;

  beforeAll(async () => {
    store = await openStore();
    runner = new Neo4jRunner(config as Neo4jConfig);
  });

  afterAll(async () => {
    await store?.close();
    await runner?.close();
  });

  it('fails a statement the server rejects with its code and message, and leaves other errors their stacks', async () => {
    const limit = Error.stackTraceLimit;
    const failed = await runner.read('RETURN $missing + ', {}).catch((error: unknown) => error);
    expect(failed).toMatchObject({ code: 'Neo.ClientError.Statement.SyntaxError' });
    expect((failed as Error).message).toMatch(/Invalid input|Unexpected end of input/i);
    const inTransaction = await runner
      .writeTransaction((transaction) => transaction.run('MATCH (n) RETURN n.nothing +'))
      .catch((error: unknown) => error);
    expect(inTransaction).toMatchObject({ code: 'Neo.ClientError.Statement.SyntaxError' });
    expect(Error.stackTraceLimit).toBe(limit);
    expect(new Error('here').stack).toContain('store-neo4j.test.ts');
  });

  it('creates its schema idempotently, also when two processes start at once', async () => {
    const schema = async () => ({
      constraints: (await runner.read('SHOW CONSTRAINTS YIELD name RETURN name ORDER BY name')).map(
        (row) => row['name'],
      ),
      indexes: await runner.read(
        `SHOW INDEXES YIELD name, type, state, properties, options
         WHERE type IN ['RANGE', 'FULLTEXT', 'VECTOR']
         RETURN name, type, state, properties, options.indexConfig['vector.dimensions'] AS dimensions,
                options.indexConfig['fulltext.eventually_consistent'] AS eventuallyConsistent
         ORDER BY name`,
      ),
    });
    const before = await schema();
    const [first, second] = [
      new Neo4jStore(config as Neo4jConfig),
      new Neo4jStore(config as Neo4jConfig),
    ];
    try {
      await Promise.all(
        [first, second].map((each) => each.init({ embeddingDimensions: TEST_DIMENSIONS })),
      );
      await store.init({ embeddingDimensions: TEST_DIMENSIONS });
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
    const after = await schema();

    expect(after).toEqual(before);
    expect(after.constraints).toEqual(
      expect.arrayContaining([
        'message_id',
        'toolcall_id',
        'topic_id',
        'instance_scope',
        'core_memory_name',
        'meta_key',
      ]),
    );
    const byName = new Map(after.indexes.map((row) => [row['name'], row]));
    for (const name of [
      'message_scope_seq',
      'message_scope_hash',
      'message_content_scoped',
      'toolcall_text',
    ]) {
      expect(byName.get(name), name).toMatchObject({ state: 'ONLINE' });
    }
    // Writes do not wait for full-text indexing; a search waits unless told it need not.
    for (const name of ['message_content_scoped', 'toolcall_text']) {
      expect(byName.get(name), name).toMatchObject({ type: 'FULLTEXT', eventuallyConsistent: true });
    }
    const vector = byName.get('message_embedding');
    expect(vector).toMatchObject({ type: 'VECTOR', state: 'ONLINE', dimensions: TEST_DIMENSIONS });
    const filters = store.vectorStrategy === 'filtered' ? ['partition', 'instance', 'deleted'] : [];
    expect(vector?.['properties']).toEqual(['embedding', ...filters]);
  });

  it('marks only turns waiting for an embedding, and drops the marks earlier versions left at startup', async () => {
    const scope = freshScope();
    const [question, toolsOnly, answer] = await store.appendPath(scope, {
      parentId: null,
      messages: [turn('user', 'a question'), turn('assistant', ''), turn('assistant', 'an answer')],
    });
    const turnIds = [question!.message.id, toolsOnly!.message.id, answer!.message.id];
    const marks = async () =>
      (
        await runner.read(
          'UNWIND $ids AS id MATCH (m:Message {id: id}) RETURN m.needs_embedding AS mark',
          { ids: turnIds },
        )
      ).map((row) => row['mark']);
    expect(await marks()).toEqual([true, null, true]);
    const embed = (id: string) =>
      store.setEmbeddings(scope, [{ kind: 'message', id, vector: randomUnitVector() }]);
    await embed(turnIds[0]!);
    // Embedded: the mark is gone, not false, so the flag's index holds pending turns only.
    expect(await marks()).toEqual([null, null, true]);
    await store.editMessage(scope, turnIds[0]!, edit('a question, edited'));
    expect(await marks()).toEqual([true, null, true]);

    // A store written by an earlier version set the flag false once a turn was embedded.
    await embed(turnIds[2]!);
    await runner.write('MATCH (m:Message {id: $id}) SET m.needs_embedding = false', {
      id: turnIds[2],
    });
    const reopened = await openStore();
    await reopened.close();
    expect(await marks()).toEqual([true, null, null]);
    const left = await runner.read(
      'MATCH (m:Message) WHERE m.needs_embedding = false RETURN count(m) AS count',
    );
    expect(Number(left[0]?.['count'])).toBe(0);
  });

  describe('vector search in a small instance beside a big one', () => {
    const small = freshScope();
    const noise = freshScope();
    const query = randomUnitVector();
    let expected: { id: string; score: number }[] = [];

    beforeAll(async () => {
      // Every noise vector is closer to the query than any turn of the small instance.
      for (let batch = 0; batch < NOISE_VECTORS / NOISE_BATCH; batch += 1) {
        const texts = Array.from({ length: NOISE_BATCH }, (_, index) => `noise ${batch}-${index}`);
        const turns = await store.appendPath(noise, {
          parentId: null,
          messages: texts.map((text) => turn('user', text)),
        });
        await store.setEmbeddings(
          noise,
          turns.map(({ message }) => ({
            kind: 'message' as const,
            id: message.id,
            vector: combine(1, query, 0.05, orthogonalUnitVector(query)),
          })),
        );
      }
      const turns = await store.appendPath(small, {
        parentId: null,
        messages: Array.from({ length: 12 }, (_, index) =>
          turn(index % 2 === 0 ? 'user' : 'assistant', `small ${index}`),
        ),
      });
      const vectors = turns.map((_, index) =>
        combine(0.9 - index * 0.15, query, 1, orthogonalUnitVector(query)),
      );
      await store.setEmbeddings(
        small,
        turns.map(({ message }, index) => ({
          kind: 'message' as const,
          id: message.id,
          vector: vectors[index]!,
        })),
      );
      expected = turns
        .map(({ message }, index) => ({ id: message.id, score: cosine(query, vectors[index]!) }))
        .sort((a, b) => b.score - a.score);
    }, 120_000);

    afterAll(async () => {
      // Keep the shared database small: the noise is this file's own, nobody else reads it.
      await store.purgeInstance(noise);
    });

    const strategies: [string, Partial<Neo4jStoreOptions>][] = [
      ['the detected strategy', {}],
      ['the scoped strategy, exact scan', { vectorStrategy: 'scoped' }],
      ['the scoped strategy, growing over-fetch', { vectorStrategy: 'scoped', exactScanLimit: 5 }],
    ];
    it.each(strategies)('returns the right top k with %s', async (_name, options) => {
      const searcher = await openStore(options);
      try {
        for (const k of [1, 5, 12]) {
          const hits = await searcher.vectorSearch(small, query, { k });
          expect(hits.map((hit) => hit.id)).toEqual(expected.slice(0, k).map((hit) => hit.id));
          hits.forEach((hit, index) => expect(hit.score).toBeCloseTo(expected[index]!.score, 4));
        }
      } finally {
        await searcher.close();
      }
    });
  });

  describe('vector search recall in an instance of many turns', () => {
    const scope = freshScope();
    const TURNS = 4_000;
    const TOPICS = 40;
    const QUERIES = 20;
    const BATCH = 500;
    const topics = Array.from({ length: TOPICS }, () => randomUnitVector());
    /** A turn or question about one topic: near its centre, each in its own direction. */
    const about = (topic: number) => {
      const centre = topics[topic % TOPICS]!;
      return combine(1, centre, 1.2, orthogonalUnitVector(centre));
    };
    const stored = new Map<string, number[]>();

    beforeAll(async () => {
      let last: string | null = null;
      for (let batch = 0; batch < TURNS / BATCH; batch += 1) {
        const turns = await store.appendPath(scope, {
          parentId: last,
          messages: Array.from({ length: BATCH }, (_, index) => turn('user', `turn ${batch}-${index}`)),
        });
        const vectors = turns.map((_, index) => about(batch * BATCH + index));
        await store.setEmbeddings(
          scope,
          turns.map(({ message }, index) => ({ kind: 'message' as const, id: message.id, vector: vectors[index]! })),
        );
        turns.forEach(({ message }, index) => stored.set(message.id, vectors[index]!));
        last = turns.at(-1)!.message.id;
      }
    }, 120_000);

    afterAll(async () => {
      await store.purgeInstance(scope);
    });

    it('finds nearly all of the exact 10 nearest turns, with exact scores', async () => {
      // A server that takes the setting (2026.x) searches full-precision vectors, and the scores
      // checked below are then the index's own, not rescored from the stored vectors.
      if (store.vectorStrategy === 'filtered') expect(store.vectorFullPrecision).toBe(true);
      let found = 0;
      for (let query = 0; query < QUERIES; query += 1) {
        const vector = about(query * 7);
        const exact = [...stored]
          .map(([id, turnVector]) => ({ id, score: cosine(vector, turnVector) }))
          .sort((a, b) => b.score - a.score)
          .slice(0, 10);
        // The store's own exact scan, which the scale bench measures recall against, agrees.
        expect((await store.exactVectorSearch(scope, vector, 10)).map((hit) => hit.id)).toEqual(exact.map((hit) => hit.id));
        const hits = await store.vectorSearch(scope, vector, { k: 10 });
        const exactIds = new Set(exact.map((hit) => hit.id));
        found += hits.filter((hit) => exactIds.has(hit.id)).length;
        for (const hit of hits) expect(hit.score).toBeCloseTo(cosine(vector, stored.get(hit.id)!), 4);
      }
      // Full-precision search finds all of them here; the server's default binary codes, 91-93%.
      expect(found / (QUERIES * 10)).toBeGreaterThanOrEqual(0.98);
    });
  });

  it('hides a soft-deleted turn and the tool calls it made, with either vector strategy', async () => {
    const scope = freshScope();
    const word = uniqueWord();
    const path = await store.appendPath(scope, {
      parentId: null,
      messages: [
        turn('user', `question ${word}`),
        turn('assistant', `answer ${word}`),
        turn('user', 'last'),
      ],
    });
    const [question, answer, last] = path.map((entry) => entry.message);
    const [embeddedCall] = await store.addToolCalls(scope, answer!.id, [
      { callId: 'c1', toolName: 'lookup', arguments: '{}', result: 'r', tokenCount: 1 },
      { callId: 'c2', toolName: 'lookup', arguments: '{}', result: 's', tokenCount: 1 },
    ]);
    const query = randomUnitVector();
    await store.setEmbeddings(scope, [
      { kind: 'message', id: answer!.id, vector: query },
      { kind: 'toolcall', id: embeddedCall!.id, vector: query },
      {
        kind: 'message',
        id: question!.id,
        vector: combine(0.5, query, 1, orthogonalUnitVector(query)),
      },
    ]);
    // No MemoryStore method deletes yet; the flag is what a delete will set.
    await runner.write('MATCH (m:Message {id: $id}) SET m.deleted = true', { id: answer!.id });

    expect(await store.getMessage(scope, answer!.id)).toMatchObject({ deleted: true });
    expect(ids(await store.getBranch(scope, last!.id, { limit: 5 }))).toEqual([
      last!.id,
      question!.id,
    ]);
    expect(await store.findByHash(scope, answer!.contentHash, 5)).toEqual([]);
    expect(ids(await store.fullTextSearch(scope, word, { k: 5 }))).toEqual([question!.id]);
    expect(await store.getRespondedWith(scope, question!.id)).toBeNull();
    expect(await store.neighbours(scope, [question!.id], { limit: 5 })).toEqual([]);
    expect(await store.countMessages(scope)).toBe(2);
    const pending = (await store.pendingEmbeddings(100_000)).filter(
      (item) => item.scope.partition === scope.partition && item.scope.instance === scope.instance,
    );
    expect(ids(pending)).toEqual([last!.id]);
    const scoped = await openStore({ vectorStrategy: 'scoped' });
    try {
      for (const searcher of [store, scoped]) {
        const hits = await searcher.vectorSearch(scope, query, { k: 5, includeToolCalls: true });
        expect(ids(hits)).toEqual([question!.id]);
      }
    } finally {
      await scoped.close();
    }
  });

  it('keeps seq gapless and turns unique when two processes append the same paths at once', async () => {
    const scope: Scope = freshScope();
    const [first, second] = [await openStore(), await openStore()];
    try {
      const paths = Array.from({ length: 12 }, (_, index) => [
        turn('user', `q${index}`),
        turn('assistant', `a${index}`),
      ]);
      const results = await Promise.all(
        paths.flatMap((messages) =>
          [first, second].map((each) => each.appendPath(scope, { parentId: null, messages })),
        ),
      );
      // Both writers of a path got the same turns, and exactly one of them created each.
      for (let index = 0; index < results.length; index += 2) {
        const [mine, theirs] = [results[index]!, results[index + 1]!];
        expect(mine.map((appended) => appended.message.id)).toEqual(
          theirs.map((appended) => appended.message.id),
        );
        mine.forEach((appended, position) =>
          expect(appended.created !== theirs[position]!.created).toBe(true),
        );
      }
      // A continuation raced from both processes onto one parent is stored once too.
      const parentId = results[0]![1]!.message.id;
      const [left, right] = await Promise.all(
        [first, second].map((each) =>
          each.appendPath(scope, { parentId, messages: [turn('user', 'follow-up')] }),
        ),
      );
      expect(left![0]!.message.id).toBe(right![0]!.message.id);

      const listed = await store.listMessages(scope, { limit: 100 });
      expect(listed.map((message) => message.seq)).toEqual(
        Array.from({ length: 25 }, (_, index) => index + 1),
      );
      expect(new Set(listed.map((message) => message.contentHash)).size).toBe(25);
      expect(await store.countMessages(scope)).toBe(25);
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });

  describe.concurrent('an unreachable server', () => {
    let silent: Server;
    const sockets: Socket[] = [];

    beforeAll(async () => {
      // Accepts TCP and never answers the Bolt handshake: the case that hangs without timeouts.
      silent = createServer((socket) => sockets.push(socket));
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    });

    afterAll(async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    });

    const targets: [string, () => Promise<string>][] = [
      ['a closed port', async () => `bolt://127.0.0.1:${await closedPort()}`],
      [
        'a port that never answers',
        async () => `bolt://127.0.0.1:${(silent.address() as { port: number }).port}`,
      ],
    ];
    it.each(targets)(
      'gives StoreUnavailableError within seconds for %s',
      async (_name, uri) => {
        const unreachable = new Neo4jStore({ ...(config as Neo4jConfig), uri: await uri() });
        try {
          // Schema setup, a read and a write transaction all fail the same quick way.
          await Promise.all([
            expectQuickUnavailable(unreachable.init({ embeddingDimensions: TEST_DIMENSIONS })),
            expectQuickUnavailable(unreachable.latestTurn(freshScope())),
            expectQuickUnavailable(
              unreachable.appendPath(freshScope(), {
                parentId: null,
                messages: [turn('user', 'lost?')],
              }),
            ),
          ]);
          expect(await unreachable.health()).toMatchObject({ ok: false, store: 'neo4j' });
        } finally {
          await unreachable.close();
        }
      },
      60_000,
    );
  });
});
