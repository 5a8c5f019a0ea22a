import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { NewMessage, Scope } from '../types';
import { SqliteStore } from './sqlite-store';

const DIMENSIONS = 16;
const scope: Scope = { partition: 'p', instance: 'i' };
const opened: SqliteStore[] = [];

afterEach(async () => {
  // Answered by the thread, not by the store's own search after the thread failed.
  if (searchThread) for (const store of opened) expect(store.searchThreadState).not.toBe('stopped');
  await Promise.all(opened.splice(0).map((store) => store.close()));
});

/** Whether the stores of the running suite search on a thread of their own. */
let searchThread = false;

async function openStore(dataDir = mkdtempSync(path.join(tmpdir(), 'vector-cache-')), vectorCacheBytes?: number) {
  const store = new SqliteStore({ dataDir, vectorCacheBytes, searchThread });
  await store.init({ embeddingDimensions: DIMENSIONS });
  opened.push(store);
  return { store, dataDir };
}

function turn(content: string, index: number): NewMessage {
  return {
    role: index % 2 === 0 ? 'user' : 'assistant',
    content,
    raw: { role: index % 2 === 0 ? 'user' : 'assistant', content },
    contentHash: `hash-${content}`,
    tokenCount: 3,
  };
}

/** A unit vector pointing mostly along `axis`. */
function axisVector(axis: number, lean = 0.1): number[] {
  return Array.from({ length: DIMENSIONS }, (_, index) => (index === axis ? 1 : index === (axis + 1) % DIMENSIONS ? lean : 0));
}

async function addTurns(store: SqliteStore, target: Scope, count: number, axis: (index: number) => number, label = 'turn') {
  const appended = await store.appendPath(target, {
    parentId: null,
    messages: Array.from({ length: count }, (_, index) => turn(`${target.instance} ${label} ${index}`, index)),
  });
  await store.setEmbeddings(
    target,
    appended.map((entry, index) => ({ kind: 'message' as const, id: entry.message.id, vector: axisVector(axis(index), 0.05 + index * 0.001) })),
  );
  return appended.map((entry) => entry.message);
}

describe.each([
  ['in the store\'s thread', false],
  ['on a search thread', true],
])('the SQLite store vector index, searched %s', (_, onThread) => {
  beforeEach(() => {
    searchThread = onThread;
  });

  it('sees vectors another connection stored after the index was loaded', async () => {
    const { store, dataDir } = await openStore();
    await addTurns(store, scope, 20, () => 1);
    expect((await store.vectorSearch(scope, axisVector(1), { k: 3 })).length).toBe(3);

    const { store: other } = await openStore(dataDir);
    const [late] = await addTurns(other, scope, 1, () => 7, 'late');
    const hits = await store.vectorSearch(scope, axisVector(7), { k: 1 });
    expect(hits.map((hit) => hit.id)).toEqual([late!.id]);
  });

  it('finds vectors set later on turns another connection stored before the index was loaded', async () => {
    const { store, dataDir } = await openStore();
    const { store: other } = await openStore(dataDir);
    const [pending] = await other.appendPath(scope, { parentId: null, messages: [turn('pending', 0)] });
    await addTurns(store, scope, 5, () => 2);
    await store.vectorSearch(scope, axisVector(2), { k: 1 });
    await other.setEmbeddings(scope, [{ kind: 'message', id: pending!.message.id, vector: axisVector(9) }]);
    expect((await store.vectorSearch(scope, axisVector(9), { k: 1 }))[0]?.id).toBe(pending!.message.id);
  });

  it('keeps exact scores, and drops turns whose rows are deleted or re-embedded elsewhere', async () => {
    const { store } = await openStore();
    const turns = await addTurns(store, scope, 10, (index) => index);
    const [best] = await store.vectorSearch(scope, axisVector(4, 0.5), { k: 1 });
    expect(best?.id).toBe(turns[4]!.id);
    const expected = (1 + 0.5 * (0.05 + 4 * 0.001)) / Math.sqrt(1 + 0.25) / Math.sqrt(1 + (0.05 + 4 * 0.001) ** 2);
    expect(best?.score).toBeCloseTo(expected, 6);
    await store.setEmbeddings(scope, [{ kind: 'message', id: turns[4]!.id, vector: axisVector(12) }]);
    const hits = await store.vectorSearch(scope, axisVector(4, 0.5), { k: 10 });
    expect(hits.filter((hit) => hit.id === turns[4]!.id).length).toBeLessThanOrEqual(1);
    expect(hits[0]?.id).not.toBe(turns[4]!.id);
  });

  it('scores every candidate exactly as a scan of the stored vectors does, whatever their bytes', async () => {
    const { store } = await openStore();
    // Random components make bytes that are no valid UTF-8; zeros, negative zeros and
    // subnormals make NUL bytes and runs of them.
    let state = 7;
    const random = () => ((state = (state * 1103515245 + 12345) % 2147483648) / 2147483648) * 2 - 1;
    const vectors = Array.from({ length: 40 }, (_, row) =>
      Array.from({ length: DIMENSIONS }, (_, index) => (index === row % DIMENSIONS ? 0 : index % 5 === 0 ? -0 : index % 7 === 0 ? 1e-40 : random())),
    );
    const appended = await store.appendPath(scope, { parentId: null, messages: vectors.map((_, index) => turn(`random ${index}`, index)) });
    await store.setEmbeddings(scope, appended.map((entry, index) => ({ kind: 'message' as const, id: entry.message.id, vector: vectors[index]! })));
    for (const query of [vectors[3]!, vectors[17]!.map((value) => -value), Array.from({ length: DIMENSIONS }, () => random())]) {
      const indexed = await store.vectorSearch(scope, query, { k: 40 });
      const scanned = await store.exactVectorSearch(scope, query, 40);
      expect(indexed.length).toBe(40);
      expect(indexed.map((hit) => [hit.id, hit.score])).toEqual(scanned.map((hit) => [hit.id, hit.score]));
    }
  });

  it('answers with the next nearest when the nearest was deleted by another connection', async () => {
    const { store, dataDir } = await openStore();
    const turns = await addTurns(store, scope, 10, (index) => index);
    const [nearest] = await store.vectorSearch(scope, axisVector(4, 0.5), { k: 1 });
    expect(nearest?.id).toBe(turns[4]!.id);
    // Another process deletes it: this index still holds its vector, the only close one.
    const { store: other } = await openStore(dataDir);
    await other.setMessageDeleted(scope, turns[4]!.id, true);
    const hits = await store.vectorSearch(scope, axisVector(4, 0.5), { k: 2 });
    expect(hits.map((hit) => hit.id)).toEqual([turns[5]!.id, turns[3]!.id]);
  });

  it('loads a large scope in steps and trains lists for it, answering meanwhile', async () => {
    const { store } = await openStore();
    const count = 20_000;
    const appended = await store.appendPath(scope, {
      parentId: null,
      messages: Array.from({ length: count }, (_, index) => turn(`t${index}`, index)),
    });
    // Distinct pseudo-random directions (mulberry32 seeded with the index).
    const vectorOf = (index: number) => {
      let state = index >>> 0;
      return Array.from({ length: DIMENSIONS }, () => {
        state = (state + 0x6d2b79f5) >>> 0;
        let value = Math.imul(state ^ (state >>> 15), 1 | state);
        value ^= value + Math.imul(value ^ (value >>> 7), 61 | value);
        return ((value ^ (value >>> 14)) >>> 0) / 2 ** 31 - 1;
      });
    };
    await store.setEmbeddings(
      scope,
      appended.map((entry, index) => ({ kind: 'message' as const, id: entry.message.id, vector: vectorOf(index) })),
    );
    const target = appended[12_345]!.message;
    const vector = vectorOf(12_345);
    expect((await store.vectorSearch(scope, vector, { k: 1 })).length).toBe(1);
    const warmed = await store.warmVectorIndex(scope);
    expect(warmed.vectors).toBe(count);
    expect(warmed.lists).toBeGreaterThan(16);
    expect((await store.vectorSearch(scope, vector, { k: 1 }))[0]?.id).toBe(target.id);
  });

  it('drops the least recently searched scopes past its memory budget', async () => {
    const { store } = await openStore(undefined, 1);
    const first: Scope = { partition: 'p', instance: 'first' };
    const second: Scope = { partition: 'p', instance: 'second' };
    const [a] = await addTurns(store, first, 3, () => 3);
    const [b] = await addTurns(store, second, 3, () => 5);
    expect((await store.vectorSearch(first, axisVector(3, 0.05), { k: 1 }))[0]?.id).toBe(a!.id);
    expect((await store.vectorSearch(second, axisVector(5, 0.05), { k: 1 }))[0]?.id).toBe(b!.id);
    expect((await store.warmVectorIndex(second)).vectors).toBe(3);
    // The first scope was dropped to make room; searching it loads it again.
    expect((await store.vectorSearch(first, axisVector(3, 0.05), { k: 1 }))[0]?.id).toBe(a!.id);
  });
});
