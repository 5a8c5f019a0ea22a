import { describe, expect, it } from 'vitest';
import { RecordImportError } from '../../src/errors';
import type { GraphRecord, MessageRecord } from '../../src/store/graph-record';
import type { ExportFilter } from '../../src/store/management-types';
import type { MemoryStore } from '../../src/store/memory-store';
import type { Scope } from '../../src/store/types';
import { append, freshScope, turn, type StoreGetter } from './contract-fixtures';
import { edit, seedConversation } from './contract-manage';

/** Every record of an export, in the order the store wrote them. */
export async function exportAll(store: MemoryStore, filter: ExportFilter): Promise<GraphRecord[]> {
  const records: GraphRecord[] = [];
  for await (const record of store.exportRecords(filter)) records.push(record);
  return records;
}

/** The export as sorted JSON lines: what "the same graph" compares. */
export async function exportedLines(store: MemoryStore, filter: ExportFilter): Promise<string[]> {
  return (await exportAll(store, filter)).map((record) => JSON.stringify(record)).sort();
}

/** A scope with every kind of node and relationship, some edited and deleted. */
async function seedEverything(store: MemoryStore, scope: Scope): Promise<void> {
  const { turns } = await seedConversation(store, scope);
  await store.editMessage(scope, turns[2]!.id, edit('second question, edited'));
  await store.setMessageDeleted(scope, turns[1]!.id, true);
  await append(store, scope, turns[0]!.id, [turn('assistant', 'a regenerated first answer')]);
  await store.putCoreMemory(scope, {
    name: 'persona',
    content: 'likes tea',
    tokenCount: 3,
    updatedAt: 5,
  });
  await store.putSummary(
    scope,
    {
      boundaryId: turns[3]!.id,
      content: 'summary',
      tokenCount: 2,
      turns: 3,
      updatedAt: 6,
    },
    { epoch: await store.summaryEpoch(scope) },
  );
}

/** Export of every node and relationship, and an idempotent import that keeps ids. */
export function describeExportContract(getStore: StoreGetter): void {
  describe('export and import', () => {
    it('round-trips a scope: export, purge, import in batches gives the same lines', async () => {
      const store = getStore();
      const scope = freshScope();
      await seedEverything(store, scope);
      const records = await exportAll(store, scope);
      const types = new Set(records.map((record) => record.type));
      expect([...types].sort()).toEqual(
        [
          'CALLED_BY',
          'CHUNK_OF',
          'CoreMemory',
          'Instance',
          'Message',
          'REPLIES_TO',
          'RESPONDED_WITH',
          'SYNAPSE',
          'Summary',
          'ToolCall',
        ].sort(),
      );
      const firstLink = records.findIndex((record) => record.type === 'REPLIES_TO');
      expect(
        records.slice(firstLink).every((record) => record.type === record.type.toUpperCase()),
      ).toBe(true);
      const before = records.map((record) => JSON.stringify(record)).sort();

      await store.purgeInstance(scope);
      expect(await exportAll(store, scope)).toEqual([]);
      let created = 0;
      for (let start = 0; start < records.length; start += 7) {
        created += (await store.importRecords(records.slice(start, start + 7))).created;
      }
      expect(created).toBeGreaterThan(records.length / 2);
      expect(await exportedLines(store, scope)).toEqual(before);

      const again = await store.importRecords(records);
      expect(again).toEqual({ created: 0, unchanged: records.length });
      expect(await exportedLines(store, scope)).toEqual(before);
      const [next] = await append(store, scope, null, [turn('user', 'after the import')]);
      expect(next!.seq).toBe(6);
    });

    it('exports a partition scope by scope, and leaves embeddings out on request', async () => {
      const store = getStore();
      const scope = freshScope();
      const second = { partition: scope.partition, instance: `${scope.instance}-2` };
      await seedConversation(store, second);
      await seedConversation(store, scope);
      const records = await exportAll(store, { partition: scope.partition, embeddings: false });
      const instances = records
        .filter((record) => record.type === 'Instance')
        .map((record) => record.instance);
      expect(instances).toEqual([scope.instance, second.instance]);
      expect(records.filter((record) => record.instance === scope.instance)).toHaveLength(
        records.length / 2,
      );
      expect(records.every((record) => !('embedding' in record) || record.embedding === null)).toBe(
        true,
      );
    });

    it('refuses a record that does not fit, naming it, and stores nothing of its batch', async () => {
      const store = getStore();
      const scope = freshScope();
      await seedConversation(store, scope);
      const records = await exportAll(store, scope);
      await store.purgeInstance(scope);
      const link = records.findIndex((record) => record.type === 'REPLIES_TO');
      const broken = [
        ...records.slice(0, link),
        { ...records[link]!, to: 'nowhere' } as GraphRecord,
      ];
      const error = await store.importRecords(broken).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(RecordImportError);
      expect((error as RecordImportError).recordIndex).toBe(link);
      expect((error as Error).message).toContain('nowhere');
      expect(await exportAll(store, scope)).toEqual([]);

      await store.importRecords(records);
      const message = records.find(
        (record): record is MessageRecord => record.type === 'Message' && !record.is_chunk,
      )!;
      const elsewhere = await store
        .importRecords([{ ...message, instance: `${scope.instance}-other` }])
        .catch((caught: unknown) => caught);
      expect(elsewhere).toBeInstanceOf(RecordImportError);
      expect((elsewhere as Error).message).toMatch(/already exists/);
      const clash = await store
        .importRecords([{ ...message, id: `${message.id}X` }])
        .catch((caught: unknown) => caught);
      expect(clash).toBeInstanceOf(RecordImportError);
      expect((clash as Error).message).toMatch(/seq 1 .*already belongs/);
    });
  });
}
