import Database from 'better-sqlite3';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { NewMessage, Scope } from '../types';
import { SqliteStore } from './sqlite-store';

const scope: Scope = { partition: 'p', instance: 'i' };
let store: SqliteStore | null = null;

afterEach(async () => {
  await store?.close();
  store = null;
});

function turn(content: string): NewMessage {
  return { role: 'user', content, raw: { role: 'user', content }, contentHash: content, tokenCount: 5 };
}

/** Where the test's store keeps its files, for `reopen`. */
let dataDir = '';

/** Opens the test's store on `dir` (a new one by default). */
async function openStore(dir = mkdtempSync(path.join(tmpdir(), 'fts-'))): Promise<SqliteStore> {
  dataDir = dir;
  store = new SqliteStore({ dataDir: dir });
  await store.init({ embeddingDimensions: 4 });
  return store;
}

/** Closes the test's store and opens its files again, as a restart does. */
async function reopen(): Promise<SqliteStore> {
  await store?.close();
  return openStore(dataDir);
}

async function storeWith(contents: string[], target: Scope = scope): Promise<{ store: SqliteStore; ids: string[] }> {
  const opened = store ?? (await openStore());
  const appended = await opened.appendPath(target, { parentId: null, messages: contents.map(turn) });
  return { store: opened, ids: appended.map((entry) => entry.message.id) };
}

/**
 * Stores 3,000 turns (in the test's store, if open) that all hold "weather today", and checks
 * that a search for those words returns 5 of the newest 150 instead of ranking every match.
 */
async function expectEverydayWordsRankedByRecency(): Promise<void> {
  const { store, ids } = await storeWith(Array.from({ length: 3_000 }, (_, index) => `the weather today is fine number ${index}`));
  const hits = await store.fullTextSearch(scope, 'weather today', { k: 5 });
  expect(hits).toHaveLength(5);
  const recent = new Set(ids.slice(-150));
  expect(hits.every((hit) => recent.has(hit.id))).toBe(true);
}

describe('full-text search on a large store', () => {
  it('ranks by the rare words of a query even when its everyday words match thousands of turns', async () => {
    const contents = Array.from({ length: 2_500 }, (_, index) => `the weather today is fine number ${index}`);
    contents[321] = 'the weather at the zebra crossing today';
    contents[1_777] = 'a zebra and a giraffe';
    const { store, ids } = await storeWith(contents);
    const hits = await store.fullTextSearch(scope, 'what was the weather like near the zebra today', { k: 3 });
    expect(hits.map((hit) => hit.id).sort()).toEqual([ids[321]!, ids[1_777]!].sort());
    expect(hits.every((hit) => hit.score > 0)).toBe(true);
  });

  it('ranks a query of everyday words only among their most recent matches', async () => {
    await expectEverydayWordsRankedByRecency();
  });

  it.each([
    ['alone in the store', false],
    ['beside another instance', true],
  ])('treats words as everyday as soon as turns stored since their last search made them so (%s)', async (_, beside) => {
    if (beside) await storeWith(['nothing to see here'], { partition: 'p', instance: 'other' });
    const { store } = await storeWith(Array.from({ length: 10 }, (_, index) => `weather today ${index}`));
    expect(await store.fullTextSearch(scope, 'weather today', { k: 5 })).toHaveLength(5);
    // An import makes both words everyday moments later, in longer turns than the first ten.
    await expectEverydayWordsRankedByRecency();
  });

  it('ranks within the instance, so a word common elsewhere in the store still counts as rare in it', async () => {
    const other: Scope = { partition: 'p', instance: 'busy' };
    await storeWith(Array.from({ length: 1_500 }, (_, index) => `zebra notes ${index}`), other);
    const { store, ids } = await storeWith(['a zebra crossed the road', 'nothing to see here']);
    const hits = await store.fullTextSearch(scope, 'zebra road', { k: 5 });
    expect(hits.map((hit) => hit.id)).toEqual([ids[0]!]);
    expect(await store.fullTextSearch({ partition: 'p', instance: 'empty' }, 'zebra', { k: 5 })).toEqual([]);
  });

  it('finds an instance its own turns whether it is alone in the store or beside a busier one', async () => {
    const { store: alone, ids } = await storeWith(['a zebra crossed the road', 'nothing to see here', 'a zebra again']);
    expect((await alone.fullTextSearch(scope, 'zebra road', { k: 5 })).map((hit) => hit.id)).toEqual([ids[0]!, ids[2]!]);
    // Another instance arrives whose turns make "zebra" an everyday word of the store, and the
    // store is opened again, as by a restart.
    const busy: Scope = { partition: 'p', instance: 'busy' };
    await storeWith(Array.from({ length: 1_500 }, (_, index) => `zebra notes ${index}`), busy);
    const beside = await reopen();
    expect((await beside.fullTextSearch(scope, 'zebra', { k: 5 })).map((hit) => hit.id).sort()).toEqual([ids[0]!, ids[2]!].sort());
    const theirs = await beside.fullTextSearch(busy, 'zebra', { k: 5 });
    expect(theirs).toHaveLength(5);
    expect(theirs.some((hit) => ids.includes(hit.id))).toBe(false);
  });

  it('falls back to the words rare in the instance when the words rare in the store are not in it', async () => {
    const busy: Scope = { partition: 'p', instance: 'busy' };
    await storeWith(Array.from({ length: 1_500 }, (_, index) => `zebra notes ${index}`), busy);
    await storeWith(['a giraffe only the busy instance knows about'], busy);
    const { store, ids } = await storeWith(['a zebra crossed the road', 'nothing to see here']);
    const hits = await store.fullTextSearch(scope, 'giraffe zebra', { k: 5 });
    expect(hits.map((hit) => hit.id)).toEqual([ids[0]!]);
  });

  it('ranks first the turn holding the words rarest in the instance when all are everyday in the store', async () => {
    const busy: Scope = { partition: 'p', instance: 'busy' };
    await storeWith(Array.from({ length: 1_500 }, (_, index) => `apple banana cherry notes ${index}`), busy);
    const { store, ids } = await storeWith([
      'an apple and a banana',
      ...Array.from({ length: 30 }, (_, index) => `cherry pie number ${index}`),
      'nothing to see here',
    ]);
    const hits = await store.fullTextSearch(scope, 'apple banana cherry', { k: 5 });
    expect(hits[0]?.id).toBe(ids[0]);
  });

  it('ranks every rare word of a query in an instance alone in the store', async () => {
    const { store, ids } = await storeWith(['an apple', 'a banana', 'a cherry', 'a damson', 'nothing to see here']);
    const hits = await store.fullTextSearch(scope, 'apple banana cherry damson', { k: 5 });
    expect(hits.map((hit) => hit.id).sort()).toEqual(ids.slice(0, 4).sort());
  });

  it.each([
    ['alone in the store', false],
    ['beside another instance', true],
  ])('finds a word in turns stored after a search that found none of it (%s)', async (_, beside) => {
    if (beside) await storeWith(['okapis live elsewhere'], { partition: 'p', instance: 'other' });
    const { store } = await storeWith(['nothing here']);
    expect(await store.fullTextSearch(scope, 'okapis', { k: 5 })).toEqual([]);
    const { ids: [stored] } = await storeWith(['now about okapis']);
    expect((await store.fullTextSearch(scope, 'okapis', { k: 5 })).map((hit) => hit.id)).toEqual([stored]);
  });

  it('treats words rare in an instance as everyday as soon as its own turns made them so, while the others stay still', async () => {
    // Everyday in the store, rare in the instance: the instance's count of each decides.
    const busy: Scope = { partition: 'p', instance: 'busy' };
    await storeWith(Array.from({ length: 600 }, (_, index) => `weather today in the busy one ${index}`), busy);
    const { store } = await storeWith(Array.from({ length: 10 }, (_, index) => `weather today ${index}`));
    expect(await store.fullTextSearch(scope, 'weather today', { k: 5 })).toHaveLength(5);
    await expectEverydayWordsRankedByRecency();
  });

  it('indexes the turns of a store made before the full-text index knew scopes', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'fts-upgrade-'));
    store = new SqliteStore({ dataDir });
    await store.init({ embeddingDimensions: 4 });
    const [stored] = await store.appendPath(scope, { parentId: null, messages: [turn('an old turn about giraffes')] });
    await store.close();
    // Schema version 2: an unscoped full-text table.
    const db = new Database(path.join(dataDir, 'memory.sqlite'));
    db.exec(`DROP TRIGGER IF EXISTS messages_fts_insert; DROP TRIGGER messages_fts_delete; DROP TRIGGER messages_fts_update;
      DROP TABLE messages_fts;
      CREATE VIRTUAL TABLE messages_fts USING fts5 (content, content = 'messages', content_rowid = 'pk',
        tokenize = 'porter unicode61 remove_diacritics 2');
      INSERT INTO messages_fts (rowid, content) SELECT pk, content FROM messages;
      PRAGMA user_version = 2;`);
    db.close();
    store = new SqliteStore({ dataDir });
    await store.init({ embeddingDimensions: 4 });
    expect((await store.fullTextSearch(scope, 'giraffes', { k: 5 })).map((hit) => hit.id)).toEqual([stored!.message.id]);
  });
});

describe('turns queued for the full-text index', () => {
  const ids = (hits: { id: string }[]) => hits.map((hit) => hit.id);

  it('are queued by the store, not by the trigger of a store of schema 9, and found once each', async () => {
    const { ids: [old] } = await storeWith(['an old turn about tapirs']);
    await store?.close();
    store = null;
    // Schema 9 queued each inserted turn with a trigger.
    const db = new Database(path.join(dataDir, 'memory.sqlite'));
    db.exec(`CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
        INSERT INTO messages_fts_queue (pk) VALUES (new.pk);
      END;
      PRAGMA user_version = 9;`);
    db.close();
    const reopened = await openStore(dataDir);
    // With the trigger left in place, the turn's second queue entry would fail the append.
    const [next] = await reopened.appendPath(scope, { parentId: old!, messages: [turn('a new turn about tapirs')] });
    const hits = ids(await reopened.fullTextSearch(scope, 'tapirs', { k: 5 }));
    expect(hits.sort()).toEqual([old!, next!.message.id].sort());
  });

  it('are found at once by a search that must find every turn, and soon by one that need not', async () => {
    const { store, ids: [stored] } = await storeWith(['a turn about okapis']);
    expect(ids(await store.fullTextSearch(scope, 'okapis', { k: 5, fresh: false }))).toEqual([]);
    await expect.poll(async () => ids(await store.fullTextSearch(scope, 'okapis', { k: 5, fresh: false })), { timeout: 2_000 }).toEqual([stored]);
    const { ids: [next] } = await storeWith(['another about okapis']);
    expect(new Set(ids(await store.fullTextSearch(scope, 'okapis', { k: 5 })))).toEqual(new Set([stored, next]));
  });

  it('are indexed as they are when indexed: edited text is found, purged turns are not', async () => {
    const { store, ids: [edited, purged, kept] } = await storeWith(['about giraffes', 'about giraffes too', 'giraffes again']);
    await store.editMessage(scope, edited!, { content: 'about zebras', raw: { role: 'user', content: 'about zebras' }, contentHash: 'z', tokenCount: 3 });
    await store.purgeMessage(scope, purged!);
    expect(ids(await store.fullTextSearch(scope, 'giraffes', { k: 5 }))).toEqual([kept]);
    expect(ids(await store.fullTextSearch(scope, 'zebras', { k: 5 }))).toEqual([edited]);
    // Indexed turns edited and purged afterwards leave the index as consistent as queued ones.
    await store.editMessage(scope, kept!, { content: 'now about okapis', raw: { role: 'user', content: 'now about okapis' }, contentHash: 'o', tokenCount: 3 });
    await store.purgeMessage(scope, edited!);
    expect(ids(await store.fullTextSearch(scope, 'okapis', { k: 5 }))).toEqual([kept]);
    expect(await store.fullTextSearch(scope, 'zebras giraffes', { k: 5 })).toEqual([]);
    const db = new Database(path.join(dataDir, 'memory.sqlite'));
    expect(() => db.exec(`INSERT INTO messages_fts (messages_fts) VALUES ('integrity-check')`)).not.toThrow();
    db.close();
  });

  it('are indexed before an import returns, so a restored store is searched at once', async () => {
    const { store: source, ids: [stored] } = await storeWith(['exported talk of tapirs']);
    const records = [];
    for await (const record of source.exportRecords({ partition: scope.partition })) records.push(record);
    const target = new SqliteStore({ dataDir: mkdtempSync(path.join(tmpdir(), 'fts-import-')) });
    await target.init({ embeddingDimensions: 4 });
    try {
      await target.importRecords(records);
      expect(ids(await target.fullTextSearch(scope, 'tapirs', { k: 5, fresh: false }))).toEqual([stored]);
    } finally {
      await target.close();
    }
  });

  it('are indexed by the next store to open the file when the one that stored them closed first', async () => {
    const { ids: [stored] } = await storeWith(['left queued about tapirs']);
    const reopened = await reopen();
    await expect.poll(async () => ids(await reopened.fullTextSearch(scope, 'tapirs', { k: 5, fresh: false })), { timeout: 2_000 }).toEqual([stored]);
  });
});
