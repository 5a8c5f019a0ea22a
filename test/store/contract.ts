import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MemoryStore } from '../../src/store/memory-store';
import { TEST_DIMENSIONS, type StoreFactory } from '../support/stores';
import { describeAppendContract } from './contract-append';
import { describeExportContract } from './contract-export';
import { describeJobExportContract } from './contract-export-jobs';
import { append, freshScope, turn } from './contract-fixtures';
import { describeGraphContract } from './contract-graph';
import { describeIdempotencyContract } from './contract-idempotency';
import { describeIsolationContract } from './contract-isolation';
import { describeManageContract } from './contract-manage';
import { describeReadContract } from './contract-read';
import { describeRecordContract } from './contract-records';
import { describeSearchContract } from './contract-search';
import { describeTopicContract } from './contract-topics';

/**
 * The MemoryStore contract every adapter passes unchanged. It isolates tests by fresh
 * partition/instance names and never drops data, so it can run against a shared Neo4j.
 */
export function runStoreContract(factory: StoreFactory): void {
  describe(`MemoryStore contract: ${factory.name}`, () => {
    let store: MemoryStore;
    const getStore = (): MemoryStore => store;

    beforeAll(async () => {
      store = await factory.create();
    });

    afterAll(async () => {
      await store?.close();
    });

    describe('lifecycle', () => {
      it('reports itself healthy and of its kind', async () => {
        const health = await store.health();
        expect(health).toMatchObject({ ok: true, store: factory.name });
        expect(store.kind).toBe(factory.name);
      });

      it('keeps its data when init runs again (every process start runs it)', async () => {
        const scope = freshScope();
        const [stored] = await append(store, scope, null, [turn('user', 'still here')]);
        await store.init({ embeddingDimensions: TEST_DIMENSIONS });
        expect((await store.getMessage(scope, stored!.id))?.content).toBe('still here');
        expect((await store.health()).ok).toBe(true);
      });

      it('reports a closed store as unhealthy instead of throwing', async () => {
        const other = await factory.create();
        await other.close();
        const health = await other.health();
        expect(health.ok).toBe(false);
        expect(health.store).toBe(factory.name);
      });
    });

    describeAppendContract(getStore);
    describeReadContract(getStore);
    describeRecordContract(getStore);
    describeSearchContract(getStore, factory);
    describeGraphContract(getStore);
    describeIsolationContract(getStore);
    describeIdempotencyContract(getStore);
    describeManageContract(getStore);
    describeExportContract(getStore);
    describeJobExportContract(getStore);
    describeTopicContract(getStore);
  });
}
