import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Neo4jConfig } from '../src/config/load-config';
import { fullTextSearch } from '../src/store/neo4j/full-text-search';
import { Neo4jRunner } from '../src/store/neo4j/neo4j-runner';
import { Neo4jStore } from '../src/store/neo4j/neo4j-store';
import { vectorSearch, type VectorSearchInput } from '../src/store/neo4j/vector-search';
import type { Scope } from '../src/store/types';
import {
  combine,
  freshScope,
  ids,
  orthogonalUnitVector,
  randomUnitVector,
  turn,
  uniqueWord,
} from './store/contract-fixtures';
import { neo4jTestConfig, storeFactories, TEST_DIMENSIONS } from './support/stores';

// Throws when REQUIRE_NEO4J=1 and NEO4J_URI is unset, so CI can never skip this file silently.
storeFactories();
const config = neo4jTestConfig();

/**
 * An instance that is most of the store is searched without its scope in the index query and
 * kept to the scope afterwards (scope-share.ts). Whichever plan a search takes, and however out
 * of date the share it planned with, it must find what the scoped plan finds.
 */
describe.skipIf(!config)('Neo4j searches planned by the instance share of the store', () => {
  let store: Neo4jStore;
  let runner: Neo4jRunner;
  // `solo` holds the only turns with its word and near its vector; `crowded` shares its word and
  // vector with `crowd`, whose turns match both better, so the store's best hits are all crowd's.
  const solo = {
    scope: freshScope(),
    word: uniqueWord(),
    vector: randomUnitVector(),
    ids: [] as string[],
  };
  const crowded = {
    scope: freshScope(),
    word: uniqueWord(),
    vector: randomUnitVector(),
    ids: [] as string[],
  };
  const crowd = freshScope();

  const vectorInput = (
    scope: Scope,
    vector: number[],
    share: number,
    k: number,
  ): VectorSearchInput => ({
    runner,
    scope,
    vector,
    k,
    includeToolCalls: false,
    withMessages: true,
    strategy: store.vectorStrategy,
    fullPrecision: store.vectorFullPrecision,
    dimensions: TEST_DIMENSIONS,
    exactScanLimit: 5_000,
    share,
  });
  const textSearch = (scope: Scope, word: string, share: number, k: number) =>
    fullTextSearch(
      { runner, scope },
      { text: `${word} please`, k, withMessages: true, fresh: true, share },
    );

  /** 30 turns, each a word longer and a step further from the vector: both rankings are strict. */
  async function storeRanked(target: typeof solo): Promise<void> {
    const turns = await store.appendPath(target.scope, {
      parentId: null,
      messages: Array.from({ length: 30 }, (_, index) =>
        turn(
          index % 2 === 0 ? 'user' : 'assistant',
          `${target.word}${' filler'.repeat(index + 1)}`,
        ),
      ),
    });
    target.ids = turns.map(({ message }) => message.id);
    await store.setEmbeddings(
      target.scope,
      turns.map(({ message }, index) => ({
        kind: 'message' as const,
        id: message.id,
        vector: combine(
          1 - index * 0.03,
          target.vector,
          0.3 + index * 0.03,
          orthogonalUnitVector(target.vector),
        ),
      })),
    );
  }

  beforeAll(async () => {
    store = new Neo4jStore(config as Neo4jConfig);
    await store.init({ embeddingDimensions: TEST_DIMENSIONS });
    runner = new Neo4jRunner(config as Neo4jConfig);
    await storeRanked(solo);
    await storeRanked(crowded);
    // The word three times in a short turn outranks it once in a longer one; the vectors are
    // closer than any of crowded's.
    const noise = await store.appendPath(crowd, {
      parentId: null,
      messages: Array.from({ length: 200 }, (_, index) =>
        turn('user', `${crowded.word} ${crowded.word} ${crowded.word} n${index}`),
      ),
    });
    await store.setEmbeddings(
      crowd,
      noise.map(({ message }) => ({
        kind: 'message' as const,
        id: message.id,
        vector: combine(1, crowded.vector, 0.01, orthogonalUnitVector(crowded.vector)),
      })),
    );
  }, 120_000);

  afterAll(async () => {
    for (const scope of [solo.scope, crowded.scope, crowd]) {
      await runner?.write(
        'MATCH (m:Message {partition: $partition, instance: $instance}) DETACH DELETE m',
        { ...scope },
      );
      await runner?.write(
        'MATCH (i:Instance {partition: $partition, instance: $instance}) DELETE i',
        { ...scope },
      );
    }
    await store?.close();
    await runner?.close();
  });

  it('finds the same turns in the same order by full text with the scope in the query or kept afterwards', async () => {
    const scoped = await textSearch(solo.scope, solo.word, 0, 10);
    const unscoped = await textSearch(solo.scope, solo.word, 1, 10);
    expect(ids(scoped)).toEqual(solo.ids.slice(0, 10));
    expect(ids(unscoped)).toEqual(solo.ids.slice(0, 10));
    expect(unscoped.every((hit) => hit.message?.content.startsWith(solo.word))).toBe(true);
  });

  it('finds the same nearest turns with the in-index filter or kept afterwards', async () => {
    for (const k of [5, 12]) {
      const filtered = await vectorSearch(vectorInput(solo.scope, solo.vector, 0, k));
      const unfiltered = await vectorSearch(vectorInput(solo.scope, solo.vector, 1, k));
      expect(ids(filtered)).toEqual(solo.ids.slice(0, k));
      expect(ids(unfiltered)).toEqual(solo.ids.slice(0, k));
      unfiltered.forEach((hit, index) => expect(hit.score).toBeCloseTo(filtered[index]!.score, 5));
    }
  });

  it("finds the instance's own turns when a stale share plans a search as if it were most of the store", async () => {
    // Asked for its best 36 matches of the word, or its 8-18 nearest, the index returns only the crowd's.
    expect(ids(await textSearch(crowded.scope, crowded.word, 1, 10))).toEqual(
      crowded.ids.slice(0, 10),
    );
    for (const k of [5, 12]) {
      expect(ids(await vectorSearch(vectorInput(crowded.scope, crowded.vector, 1, k)))).toEqual(
        crowded.ids.slice(0, k),
      );
    }
  });

  it('plans from the share it reads through the store, with the same answers', async () => {
    expect(ids(await store.fullTextSearch(solo.scope, solo.word, { k: 5 }))).toEqual(
      solo.ids.slice(0, 5),
    );
    expect(ids(await store.vectorSearch(crowded.scope, crowded.vector, { k: 3 }))).toEqual(
      crowded.ids.slice(0, 3),
    );
  });
});
