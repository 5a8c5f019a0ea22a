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

async function storeWith(contents: string[]): Promise<{ store: SqliteStore; ids: string[] }> {
  store = new SqliteStore({ dataDir: mkdtempSync(path.join(tmpdir(), 'fts-')) });
  await store.init({ embeddingDimensions: 4 });
  const appended = await store.appendPath(scope, { parentId: null, messages: contents.map(turn) });
  return { store, ids: appended.map((entry) => entry.message.id) };
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
    const contents = Array.from({ length: 3_000 }, (_, index) => `the weather today is fine number ${index}`);
    const { store, ids } = await storeWith(contents);
    const hits = await store.fullTextSearch(scope, 'weather today', { k: 5 });
    expect(hits).toHaveLength(5);
    const recent = new Set(ids.slice(-2_000));
    expect(hits.every((hit) => recent.has(hit.id))).toBe(true);
  });
});
