import { mkdtempSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { NewMessage, Scope } from '../types';
import { SqliteStore } from './sqlite-store';

const DIMENSIONS = 8;
const scope: Scope = { partition: 'p', instance: 'i' };
const opened: SqliteStore[] = [];

afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
});

async function openStore(options: { dataDir?: string; searchThread: boolean }) {
  const dataDir = options.dataDir ?? mkdtempSync(path.join(tmpdir(), 'search-thread-'));
  const store = new SqliteStore({ dataDir, searchThread: options.searchThread });
  await store.init({ embeddingDimensions: DIMENSIONS });
  opened.push(store);
  return { store, dataDir };
}

function turn(content: string): NewMessage {
  return { role: 'user', content, raw: { role: 'user', content }, contentHash: `hash-${content}`, tokenCount: 4 };
}

function vectorOf(seed: number): number[] {
  return Array.from({ length: DIMENSIONS }, (_, index) => Math.sin(seed * 7.3 + index * 1.9));
}

const WORDS = ['harbour', 'lantern', 'quartz', 'meadow', 'violin', 'glacier', 'saffron', 'compass'];

async function storeTurns(store: SqliteStore, count: number, from = 0) {
  const appended = await store.appendPath(scope, {
    parentId: null,
    messages: Array.from({ length: count }, (_, index) => turn(`${WORDS[(from + index) % WORDS.length]} note ${from + index}`)),
  });
  await store.setEmbeddings(
    scope,
    appended.map((entry, index) => ({ kind: 'message' as const, id: entry.message.id, vector: vectorOf(from + index) })),
  );
  return appended.map((entry) => entry.message);
}

describe('the SQLite store searching on a thread of its own', () => {
  it('answers exactly what the store answers in its own thread, and finds a turn the moment it is written', async () => {
    const { store: threaded, dataDir } = await openStore({ searchThread: true });
    const { store: plain } = await openStore({ dataDir, searchThread: false });
    await storeTurns(threaded, 40);
    for (const seed of [3, 17, 29]) {
      expect(await threaded.vectorSearch(scope, vectorOf(seed), { k: 5 })).toEqual(await plain.vectorSearch(scope, vectorOf(seed), { k: 5 }));
    }
    expect(await threaded.fullTextSearch(scope, 'quartz saffron', { k: 10 })).toEqual(await plain.fullTextSearch(scope, 'quartz saffron', { k: 10 }));
    expect(threaded.searchThreadState).toBe('running');

    // Written after the thread loaded the scope's index: the next search finds it.
    const [late] = await storeTurns(threaded, 1, 1_000);
    expect((await threaded.vectorSearch(scope, vectorOf(1_000), { k: 1 }))[0]).toMatchObject({ id: late!.id });
    expect((await threaded.fullTextSearch(scope, 'note 1000', { k: 1 }))[0]?.id).toBe(late!.id);
    expect(threaded.searchThreadState).toBe('running');
  });

  it('brings the head of each hit and neighbour when asked, the same on the thread and off it', async () => {
    const { store: threaded, dataDir } = await openStore({ searchThread: true });
    const { store: plain } = await openStore({ dataDir, searchThread: false });
    const stored = await storeTurns(threaded, 40);
    const headOf = (id: string) => {
      const turn = stored.find((message) => message.id === id)!;
      return { id, role: turn.role, seq: turn.seq, timestamp: turn.timestamp, deleted: false, isChunk: false, chunkParentId: null };
    };
    for (const store of [threaded, plain]) {
      const vectorHits = await store.vectorSearch(scope, vectorOf(12), { k: 5, withMessages: true });
      const textHits = await store.fullTextSearch(scope, 'quartz meadow', { k: 10, withMessages: true });
      const neighbours = await store.neighbours(scope, [stored[12]!.id], { limit: 10, withMessages: true });
      expect(vectorHits[0]?.id).toBe(stored[12]!.id);
      expect(textHits.length).toBeGreaterThan(5);
      // The turns either side of it along REPLIES_TO.
      expect(neighbours.map((neighbour) => neighbour.id).sort()).toEqual([stored[11]!.id, stored[13]!.id].sort());
      for (const hit of [...vectorHits, ...textHits, ...neighbours]) expect(hit.head).toEqual(headOf(hit.id));
      // Not asked: no heads (embedding and linking search without them).
      expect((await store.vectorSearch(scope, vectorOf(12), { k: 5 }))[0]?.head).toBeUndefined();
    }
    expect(await threaded.fullTextSearch(scope, 'quartz meadow', { k: 10, withMessages: true })).toEqual(
      await plain.fullTextSearch(scope, 'quartz meadow', { k: 10, withMessages: true }),
    );
    expect(threaded.searchThreadState).toBe('running');
  });

  it('answers a burst of searches asked at once as it answers each alone, and each sees the writes made before it was asked', async () => {
    const { store: threaded, dataDir } = await openStore({ searchThread: true });
    const { store: plain } = await openStore({ dataDir, searchThread: false });
    const stored = await storeTurns(threaded, 40);
    const ask = (store: SqliteStore) => [
      ...[2, 9, 23, 31].map((seed) => store.vectorSearch(scope, vectorOf(seed), { k: 4, withMessages: true })),
      ...WORDS.slice(0, 4).map((word) => store.fullTextSearch(scope, `${word} note`, { k: 6, withMessages: true })),
      ...[5, 20].map((index) => store.neighbours(scope, [stored[index]!.id], { limit: 5, withMessages: true })),
    ];
    expect(await Promise.all(ask(threaded))).toEqual(await Promise.all(ask(plain)));

    // Asked before a write, after it, and before and after another: the later ones find it.
    const before = threaded.fullTextSearch(scope, 'note 2000', { k: 1 });
    const [first] = await storeTurns(threaded, 1, 2_000);
    const afterFirst = threaded.vectorSearch(scope, vectorOf(2_000), { k: 1 });
    const [second] = await storeTurns(threaded, 1, 3_000);
    const afterSecond = [threaded.fullTextSearch(scope, 'note 3000', { k: 1 }), threaded.vectorSearch(scope, vectorOf(3_000), { k: 1 })];
    expect(await before).toHaveLength(1);
    expect((await afterFirst)[0]?.id).toBe(first!.id);
    expect((await Promise.all(afterSecond)).map((hits) => hits[0]?.id)).toEqual([second!.id, second!.id]);
    expect(threaded.searchThreadState).toBe('running');
  });

  it('finds what another process writes, and forgets every vector when the store drops them', async () => {
    const { store, dataDir } = await openStore({ searchThread: true });
    await storeTurns(store, 20);
    expect(await store.vectorSearch(scope, vectorOf(5), { k: 1 })).toHaveLength(1);
    const { store: other } = await openStore({ dataDir, searchThread: false });
    const [elsewhere] = await storeTurns(other, 1, 500);
    expect((await store.vectorSearch(scope, vectorOf(500), { k: 1 }))[0]?.id).toBe(elsewhere!.id);

    await store.clearEmbeddings();
    expect(await store.vectorSearch(scope, vectorOf(5), { k: 3 })).toEqual([]);
    expect(store.searchThreadState).toBe('running');
  });

  it('searches in its own thread when the thread cannot open the database, and says so in its health', async () => {
    const { store, dataDir } = await openStore({ searchThread: true });
    const [first] = await storeTurns(store, 10);
    // The thread opens the file by name on the first search; the store keeps its open file.
    renameSync(path.join(dataDir, 'memory.sqlite'), path.join(dataDir, 'moved.sqlite'));
    expect((await store.vectorSearch(scope, vectorOf(0), { k: 1 }))[0]?.id).toBe(first!.id);
    expect((await store.fullTextSearch(scope, 'harbour', { k: 1 }))[0]?.id).toBe(first!.id);
    expect(store.searchThreadState).toBe('stopped');
    const health = await store.health();
    expect(health.ok).toBe(true);
    expect(health.detail).toContain('search thread stopped');
  });
});
