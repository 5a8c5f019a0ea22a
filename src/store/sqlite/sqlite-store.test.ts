import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../../errors';
import type { NewMessage, Scope, TurnRole } from '../types';
import { SqliteStore } from './sqlite-store';
import { MESSAGE_COLUMNS } from './message-row';
import { prepareStatements } from './statements';
import { prepareVectorIndexStatements } from './vector-index-statements';

const DIMENSIONS = 4;
const WRITER = fileURLToPath(new URL('./concurrent-writer.fixture.ts', import.meta.url));
const scope: Scope = { partition: 'p', instance: 'i' };

// Statements that read a whole instance by design: the newest turn (stops at the first row),
// counting, and the brute-force vector scans.
const WHOLE_INSTANCE = ['latestTurn', 'count', 'messageVectors', 'toolCallVectors'];
// A value for every named parameter any statement uses, so EXPLAIN can bind them all.
const TEXT_PARAMS = ['partition', 'instance', 'id', 'parentId', 'contentHash', 'role', 'messageId']
  .concat(['callId', 'toolName', 'arguments', 'boundaryId', 'fromId', 'toId', 'type', 'name'])
  .concat(['content', 'snippet', 'model', 'traceId', 'chunkParentId', 'raw', 'metadata', 'query']);
const NUMBER_PARAMS = ['limit', 'k', 'afterSeq', 'beforeSeq', 'fromTime', 'toTime', 'seq']
  .concat(['includeDeleted', 'timestamp', 'tokenCount', 'branchTokens', 'isChunk', 'chunkIndex'])
  .concat(['score', 'respondedWithScore', 'repliesToScore', 'updatedAt', 'turns', 'epoch']);
const EVERY_PARAM: Record<string, string | number | null> = {
  ...Object.fromEntries(TEXT_PARAMS.map((key) => [key, 'x'])),
  ...Object.fromEntries(NUMBER_PARAMS.map((key) => [key, 1])),
  ids: '["x"]',
  roles: '["user"]',
  result: null,
  vector: null,
  durationMs: null,
};

const opened: SqliteStore[] = [];
const tempDirs: string[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
});
afterAll(() => {
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'sqlite-store-test-'));
  tempDirs.push(dir);
  return dir;
}

async function openStore(dataDir = tempDir(), clock?: () => number): Promise<SqliteStore> {
  const store = new SqliteStore({ dataDir, clock });
  await store.init({ embeddingDimensions: DIMENSIONS });
  opened.push(store);
  return store;
}

function turn(role: TurnRole, content: string): NewMessage {
  const contentHash = createHash('sha256').update(`${role}:${content}`).digest('hex').slice(0, 32);
  return { role, content, raw: { role, content }, contentHash, tokenCount: 3 };
}

/** Soft-deletes a turn the way a later delete operation will: the interface has no delete yet. */
function markDeleted(store: SqliteStore, id: string): void {
  const db = new Database(store.file);
  db.prepare('UPDATE messages SET deleted = 1 WHERE id = ?').run(id);
  db.close();
}

describe('SqliteStore', () => {
  it('creates <dataDir>/memory.sqlite in WAL mode, making missing directories', async () => {
    const dataDir = path.join(tempDir(), 'nested', 'data');
    const store = await openStore(dataDir);
    expect(existsSync(path.join(dataDir, 'memory.sqlite'))).toBe(true);
    expect(await store.health()).toEqual({ ok: true, store: 'sqlite', detail: store.file });
    const db = new Database(store.file, { readonly: true });
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    db.close();
  });

  it('keeps data across reopening, with timestamps from the injected clock', async () => {
    const dataDir = tempDir();
    const first = await openStore(dataDir, () => 42_000);
    const [stored] = await first.appendPath(scope, {
      parentId: null,
      messages: [turn('user', 'persist')],
    });
    await first.close();
    const second = await openStore(dataDir);
    expect(await second.getMessage(scope, stored!.message.id)).toEqual(stored!.message);
    expect(stored!.message.timestamp).toBe(42_000);
  });

  it('refuses a database written by a newer schema, and methods of an unopened store reject', async () => {
    const dataDir = tempDir();
    await (await openStore(dataDir)).close();
    const db = new Database(path.join(dataDir, 'memory.sqlite'));
    db.pragma('user_version = 99');
    db.close();
    await expect(openStore(dataDir)).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(new SqliteStore({ dataDir }).countMessages(scope)).rejects.toBeInstanceOf(
      StoreUnavailableError,
    );
  });

  // DDL one process runs while another loads the schema fails the other's full-text table
  // ("vtable constructor failed"): CLI commands started side by side on one store did.
  it('changes no schema once open: management and job reads create nothing on first use', async () => {
    const dataDir = tempDir();
    const store = await openStore(dataDir);
    const other = new Database(path.join(dataDir, 'memory.sqlite'));
    const schemaVersion = () => other.pragma('schema_version', { simple: true });
    const opened = schemaVersion();
    await store.listInstances();
    await store.stats({ since: 0 });
    await store.listTopics(scope);
    await store.getJobCursor(scope, 'topics');
    expect(schemaVersion()).toBe(opened);
    other.close();
  });

  it('gains the summary epochs when it opens a store of schema 5, and keeps its summaries', async () => {
    const dataDir = tempDir();
    const before = await openStore(dataDir);
    const [stored] = await before.appendPath(scope, { parentId: null, messages: [turn('user', 'b')] });
    const boundaryId = stored!.message.id;
    const summary = { boundaryId, content: 'earlier', tokenCount: 2, turns: 1, updatedAt: 1 };
    await before.putSummary(scope, summary, { epoch: 0 });
    await before.close();
    const old = new Database(path.join(dataDir, 'memory.sqlite'));
    old.exec('DROP TABLE summary_epochs; PRAGMA user_version = 5;');
    old.close();

    const store = await openStore(dataDir);
    expect(await store.getSummary(scope, boundaryId)).toEqual(summary);
    expect(await store.summaryEpoch(scope)).toBe(0);
    await store.editMessage(scope, boundaryId, {
      content: 'b, edited',
      raw: { role: 'user', content: 'b, edited' },
      contentHash: 'edited',
      tokenCount: 3,
    });
    expect(await store.summaryEpoch(scope)).toBe(1);
    expect(await store.putSummary(scope, summary, { epoch: 0 })).toBe(false);
    expect(await store.putSummary(scope, summary, { epoch: 1 })).toBe(true);
  });

  it('rejects vectors of other dimensions instead of storing unmatchable ones', async () => {
    const store = await openStore();
    const [stored] = await store.appendPath(scope, {
      parentId: null,
      messages: [turn('user', 'v')],
    });
    const id = stored!.message.id;
    await expect(
      store.setEmbeddings(scope, [{ kind: 'message', id, vector: [1, 0] }]),
    ).rejects.toThrow(RangeError);
    await expect(store.vectorSearch(scope, [1, 0, 0], { k: 1 })).rejects.toThrow(RangeError);
    expect(await store.vectorSearch(scope, [0, 0, 0, 0], { k: 1 })).toEqual([]);
  });

  it('gives gapless seq to two store objects sharing one dataDir', async () => {
    const dataDir = tempDir();
    const [a, b] = [await openStore(dataDir), await openStore(dataDir)];
    await Promise.all(
      Array.from({ length: 40 }, (_, index) =>
        (index % 2 === 0 ? a : b).appendPath(scope, {
          parentId: null,
          messages: [turn('user', `turn ${index}`), turn('assistant', 'reply')],
        }),
      ),
    );
    const seqs = (await a.listMessages(scope, { limit: 1000 })).map((message) => message.seq);
    expect(seqs).toEqual(Array.from({ length: 80 }, (_, index) => index + 1));
    const path = { parentId: null, messages: [turn('user', 'shared'), turn('assistant', 'once')] };
    const [fromA, fromB] = await Promise.all([
      a.appendPath(scope, path),
      b.appendPath(scope, path),
    ]);
    expect(fromB!.map((entry) => entry.message)).toEqual(fromA!.map((entry) => entry.message));
    expect(await b.countMessages(scope)).toBe(82);
  });

  it('gives gapless seq and stores shared turns once across concurrent processes', async () => {
    const dataDir = tempDir();
    await (await openStore(dataDir)).close();
    const writers = ['a', 'b', 'c'].map((label) => startWriter([dataDir, 'p', 'i', label, '60']));
    await Promise.all(writers.map((writer) => writer.ready));
    for (const writer of writers) writer.go();
    const results = await Promise.all(writers.map((writer) => writer.result));

    const store = await openStore(dataDir);
    const listed = await store.listMessages(scope, { limit: 1000 });
    expect(listed.map((message) => message.seq)).toEqual(
      Array.from({ length: 240 }, (_, i) => i + 1),
    );
    expect(results.flatMap((result) => result.created)).toHaveLength(180);
    // Each writer saw the same id for every shared turn, whoever stored it.
    expect(results[1]!.shared).toEqual(results[0]!.shared);
    expect(results[2]!.shared).toEqual(results[0]!.shared);
  }, 30_000);

  it('skips deleted turns in every read but walks a branch through them', async () => {
    const store = await openStore();
    const path = await store.appendPath(scope, {
      parentId: null,
      messages: [
        turn('user', 'alpha question'),
        turn('assistant', 'beta answer'),
        turn('user', 'gamma'),
      ],
    });
    const [question, answer, last] = path.map((entry) => entry.message);
    const [call] = await store.addToolCalls(scope, answer!.id, [
      { callId: 'c', toolName: 'lookup', arguments: '{}', result: 'r', tokenCount: 1 },
    ]);
    await store.setEmbeddings(scope, [{ kind: 'message', id: answer!.id, vector: [1, 0, 0, 0] }]);
    markDeleted(store, answer!.id);

    expect((await store.getBranch(scope, last!.id, { limit: 10 })).map((m) => m.id)).toEqual([
      last!.id,
      question!.id,
    ]);
    expect((await store.getMessage(scope, answer!.id))?.deleted).toBe(true);
    expect(await store.getChildren(scope, question!.id)).toEqual([]);
    expect(await store.getRespondedWith(scope, question!.id)).toBeNull();
    expect(await store.findByHash(scope, answer!.contentHash, 5)).toEqual([]);
    expect(await store.fullTextSearch(scope, 'beta', { k: 5 })).toEqual([]);
    expect(await store.vectorSearch(scope, [1, 0, 0, 0], { k: 5 })).toEqual([]);
    const pending = (await store.pendingEmbeddings(10)).map((item) => item.id);
    expect(pending).toEqual([question!.id, last!.id]);
    await store.setEmbeddings(scope, [{ kind: 'toolcall', id: call!.id, vector: [0, 1, 0, 0] }]);
    const toolHits = await store.vectorSearch(scope, [0, 1, 0, 0], {
      k: 5,
      includeToolCalls: true,
    });
    expect(toolHits).toEqual([]);
    expect(await store.neighbours(scope, [question!.id], { limit: 5 })).toEqual([]);
    expect(await store.countMessages(scope)).toBe(2);
    expect((await store.listMessages(scope, { limit: 10 })).map((m) => m.seq)).toEqual([1, 3]);
    expect((await store.listMessages(scope, { limit: 10, includeDeleted: true })).length).toBe(3);
    // A retried path does not revive the deleted turn; it becomes a new one.
    const retried = await store.appendPath(scope, {
      parentId: question!.id,
      messages: [turn('assistant', 'beta answer')],
    });
    expect(retried[0]).toMatchObject({ created: true, message: { seq: 4 } });
  });

  it("reads another process's edit and delete of a turn it read before, never the copy it kept", async () => {
    const dataDir = tempDir();
    const [a, b] = [await openStore(dataDir), await openStore(dataDir)];
    const path = await a.appendPath(scope, {
      parentId: null,
      messages: [turn('user', 'first question'), turn('assistant', 'first answer'), turn('user', 'second')],
    });
    const [question, answer, last] = path.map((entry) => entry.message);
    const ids = [question!.id, answer!.id, last!.id];
    expect((await a.getBranch(scope, last!.id, { limit: 10 })).map((m) => m.content)).toEqual([
      'second',
      'first answer',
      'first question',
    ]);
    expect((await a.getMessages(scope, ids)).map((m) => m.content)).toEqual(['first question', 'first answer', 'second']);

    const edited = turn('assistant', 'edited answer');
    await b.editMessage(scope, answer!.id, { ...edited, tokenCount: 5 });
    await b.setMessageDeleted(scope, question!.id, true);

    const branch = await a.getBranch(scope, last!.id, { limit: 10 });
    expect(branch.map((m) => [m.content, m.branchTokens])).toEqual([
      ['second', 11],
      ['edited answer', 8],
    ]);
    expect((await a.getMessage(scope, answer!.id))?.raw).toEqual(edited.raw);
    expect((await a.getMessages(scope, ids)).map((m) => [m.content, m.deleted])).toEqual([
      ['first question', true],
      ['edited answer', false],
      ['second', false],
    ]);
  });

  it('matches word stems and ignores diacritics in full-text search', async () => {
    const store = await openStore();
    const stored = await store.appendPath(scope, {
      parentId: null,
      messages: [turn('user', 'She runs every morning'), turn('assistant', 'Un café crème')],
    });
    const [runs, cafe] = stored.map((entry) => entry.message.id);
    expect((await store.fullTextSearch(scope, 'running', { k: 5 })).map((hit) => hit.id)).toEqual([
      runs,
    ]);
    expect(
      (await store.fullTextSearch(scope, 'CAFE creme', { k: 5 })).map((hit) => hit.id),
    ).toEqual([cafe]);
  });

  it('leaves turns without text out of the embedding sweep and fills a tool result in later', async () => {
    const store = await openStore();
    const [call] = await store.appendPath(scope, {
      parentId: null,
      messages: [turn('assistant', '')],
    });
    const id = call!.message.id;
    expect((await store.pendingEmbeddings(10)).map((item) => item.id)).toEqual([]);
    const pending = {
      callId: 'c',
      toolName: 'weather',
      arguments: '{}',
      result: null,
      tokenCount: 1,
    };
    const [first] = await store.addToolCalls(scope, id, [pending]);
    const [second] = await store.addToolCalls(scope, id, [{ ...pending, result: 'sunny' }]);
    expect(second).toEqual({ ...first, result: 'sunny' });
    const [third] = await store.addToolCalls(scope, id, [{ ...pending, result: 'rain' }]);
    expect(third?.result).toBe('sunny');
  });

  it('reads every column of a stored turn, through the statements that read rows as arrays', async () => {
    const store = await openStore();
    const [question, answer] = await store.appendPath(scope, {
      parentId: null,
      messages: [turn('user', 'where did I park?'), turn('assistant', 'level 3, row F')],
    });
    const db = new Database(store.file, { readonly: true });
    const asObjects = db.prepare(`SELECT ${MESSAGE_COLUMNS} FROM messages WHERE id = ?`);
    const statements = prepareStatements(db);
    for (const stored of [question!.message, answer!.message]) {
      const expected = asObjects.get(stored.id);
      expect(Object.keys(expected as object)).toHaveLength(22);
      expect(statements.messageById.get({ ...scope, id: stored.id })).toEqual(expected);
      expect(statements.messagesByIds.all({ ...scope, ids: JSON.stringify([stored.id]) })).toEqual([
        expected,
      ]);
    }
    db.close();
  });

  it('answers every statement from an index, scanning a whole instance only where it must', async () => {
    const store = await openStore();
    const db = new Database(store.file, { readonly: true });
    const plans = Object.entries(prepareStatements(db)).map(([name, statement]) => {
      const positional = (statement.source.match(/\?/g) ?? []).map(() => 'x');
      const explain = db.prepare(`EXPLAIN QUERY PLAN ${statement.source}`);
      const rows = (
        positional.length > 0 ? explain.all(...positional) : explain.all(EVERY_PARAM)
      ) as {
        detail: string;
      }[];
      return { name, plan: rows.map((row) => row.detail).join('; ') };
    });
    db.close();
    for (const { name, plan } of plans) {
      if (!name.startsWith('clear'))
        expect(plan, name).not.toMatch(/SCAN (messages|tool_calls|edges)(;|$)/);
      // A lookup that only narrows to the instance reads every turn of it.
      if (!WHOLE_INSTANCE.includes(name))
        expect(plan, name).not.toMatch(
          /(messages|tool_calls)_\w+ \(partition=\? AND instance=\?\)/,
        );
    }
  });
});

describe('SqliteStore bulk writes', () => {
  it('commits a bulk append and its vectors on their own, beside a request\'s write still in its batch', async () => {
    const store = await openStore();
    const other: Scope = { partition: 'p', instance: 'request' };
    const bulk = Array.from({ length: 100 }, (_, index) => turn(index % 2 === 0 ? 'user' : 'assistant', `bulk turn ${index}`));
    // The request's write opens a batch; the bulk append comes in the same turn of the event loop.
    const request = store.appendPath(other, { parentId: null, messages: [turn('user', 'a request')] });
    const appended = await store.appendPath(scope, { parentId: null, messages: bulk });
    const vectors = appended.map((_, index) => [1, index / 100, 0, 0]);
    await store.setEmbeddings(
      scope,
      appended.map((item, index) => ({ kind: 'message' as const, id: item.message.id, vector: vectors[index]! })),
    );
    await expect(request).resolves.toHaveLength(1);

    // Another connection reads all of it, and a search finds the bulk turns by their vectors.
    const reader = new Database(store.file, { readonly: true });
    const stored = reader.prepare('SELECT instance, count(*) AS n, count(embedding) AS embedded FROM messages GROUP BY instance ORDER BY instance').all();
    reader.close();
    expect(stored).toEqual([
      { instance: 'i', n: 100, embedded: 100 },
      { instance: 'request', n: 1, embedded: 0 },
    ]);
    const hits = await store.vectorSearch(scope, vectors[42]!, { k: 1 });
    expect(hits[0]?.id).toBe(appended[42]!.message.id);
    expect((await store.getBranch(scope, appended.at(-1)!.message.id, { limit: 200 })).map((row) => row.content)).toEqual(
      bulk.map((message) => message.content).reverse(),
    );
  });
});

describe('SqliteStore vector index catch-up', () => {
  // Schema 3 had neither index; schema 4 had a plain one the planner read whole instances through.
  it.each([
    ['3', 'DROP INDEX messages_scope_embedded; DROP INDEX messages_scope_pending; PRAGMA user_version = 3;'],
    ['4', 'DROP INDEX messages_scope_embedded; CREATE INDEX messages_scope_pk ON messages (partition, instance); PRAGMA user_version = 4;'],
  ])('reads only the searched instance\'s new and pending rows, also in a store of schema %s', async (_, before) => {
    const dataDir = tempDir();
    const store = await openStore(dataDir);
    await store.close();
    const old = new Database(path.join(dataDir, 'memory.sqlite'));
    old.exec(before);
    old.close();
    await openStore(dataDir);
    const db = new Database(path.join(dataDir, 'memory.sqlite'), { readonly: true });
    const { vectorsAfter, pendingPks } = prepareVectorIndexStatements(db);
    const planOf = (source: string) =>
      (db.prepare(`EXPLAIN QUERY PLAN ${source}`).all({ ...scope, afterPk: 1, upToPk: 1 }) as { detail: string }[])
        .map((row) => row.detail)
        .join('; ');
    const plans = { after: planOf(vectorsAfter.source), pending: planOf(pendingPks.source) };
    const plainIndex = db.prepare("SELECT name FROM sqlite_master WHERE name = 'messages_scope_pk'").get();
    db.close();
    // Reading every row stored since then, and every row waiting for an embedding, read all
    // other instances' too: with two processes writing, a seventh of each one's time.
    expect(plans.after).toMatch(/USING INDEX messages_scope_embedded \(partition=\? AND instance=\? AND rowid>\?\)/);
    expect(plans.pending).toMatch(/USING INDEX messages_scope_pending \(partition=\? AND instance=\? AND rowid<\?\)/);
    expect(plainIndex).toBeUndefined();
  });
});

describe('SqliteStore write-ahead log', () => {
  // SQLite's writer copies the log into the database file only once it holds 1,000 pages,
  // and then inside a commit; the store's background thread does it within a fraction of a second.
  it('reaches the database file soon after a commit, long before the log holds 1,000 pages', async () => {
    const store = await openStore();
    const before = statSync(store.file).size;
    let parentId: string | null = null;
    for (let batch = 0; batch < 10; batch++) {
      const messages = Array.from({ length: 10 }, (_, i) =>
        turn('user', `${batch}-${i} ${'x'.repeat(8_000)}`),
      );
      const appended = await store.appendPath(scope, { parentId, messages });
      parentId = appended.at(-1)!.message.id;
    }
    const logPages = statSync(`${store.file}-wal`).size / 4096;
    expect(logPages).toBeLessThan(1_000);
    await expect
      .poll(() => statSync(store.file).size - before, { timeout: 5_000 })
      .toBeGreaterThan(800_000);
  });

  it('leaves no log behind when closed, and a reopened store reads every turn', async () => {
    const dataDir = tempDir();
    const store = await openStore(dataDir);
    const appended = await store.appendPath(scope, {
      parentId: null,
      messages: [turn('user', 'one'), turn('assistant', 'two')],
    });
    await store.close();
    expect(existsSync(`${store.file}-wal`)).toBe(false);
    const reopened = await openStore(dataDir);
    expect(
      await reopened.getMessages(
        scope,
        appended.map((entry) => entry.message.id),
      ),
    ).toHaveLength(2);
  });
});

interface Writer {
  ready: Promise<void>;
  go: () => void;
  result: Promise<{ created: string[]; shared: string[] }>;
}

function startWriter(args: string[]): Writer {
  const child = spawn(process.execPath, ['--import', 'tsx', WRITER, ...args], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let output = '';
  let signalReady: () => void = () => undefined;
  let failReady: (error: Error) => void = () => undefined;
  const ready = new Promise<void>((resolve, reject) => {
    signalReady = resolve;
    failReady = reject;
  });
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (data: string) => {
    output += data;
    if (output.startsWith('ready\n')) signalReady();
  });
  const result = new Promise<{ created: string[]; shared: string[] }>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => {
      // Unblocks a test still waiting for a writer that died before it was ready.
      failReady(new Error(`writer exited with ${code} before it was ready`));
      if (code !== 0) return reject(new Error(`writer exited with ${code}`));
      resolve(
        JSON.parse(output.slice('ready\n'.length)) as { created: string[]; shared: string[] },
      );
    });
  });
  return { ready, go: () => child.stdin.write('go\n'), result };
}
