import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { RecordImportError } from '../../src/errors';
import { exportJsonLines, importJsonLines } from '../../src/memory/export-import';
import { clusterTopics } from '../../src/memory/maintenance/cluster-topics';
import { summarizePeriods } from '../../src/memory/maintenance/summarize-periods';
import {
  EXPORT_FORMAT,
  EXPORT_VERSION,
  type GraphRecord,
  type TopicLinkRecord,
  type TopicRecord,
} from '../../src/store/graph-record';
import type { MemoryStore } from '../../src/store/memory-store';
import type { Scope } from '../../src/store/types';
import { exportAll, exportedLines } from './contract-export';
import {
  append,
  combine,
  freshScope,
  orthogonalUnitVector,
  randomUnitVector,
  turn,
  type StoreGetter,
} from './contract-fixtures';

const DAY_MS = 86_400_000;
/** A Saturday: turns on it, the Sunday and the Monday fall in three days and two ISO weeks. */
const FIRST_DAY = Date.UTC(2026, 10, 21, 9);

/** Turns about two subjects, over three days and two ISO weeks, each embedded near its subject. */
async function seedTwoSubjects(store: MemoryStore, scope: Scope) {
  const bread = randomUnitVector();
  const tea = orthogonalUnitVector(bread);
  const subjects = [bread, tea, bread, tea, bread, tea];
  let parent: string | null = null;
  for (const [index, subject] of subjects.entries()) {
    const role = index % 2 === 0 ? 'user' : 'assistant';
    const text = `${subject === bread ? 'kneading bread dough' : 'brewing green tea'} note ${index}`;
    const [stored] = await append(store, scope, parent, [
      turn(role, text, { timestamp: FIRST_DAY + Math.floor(index / 2) * DAY_MS }),
    ]);
    parent = stored!.id;
    await store.setEmbeddings(scope, [
      { kind: 'message', id: stored!.id, vector: combine(0.97, subject, 0.24, randomUnitVector()) },
    ]);
  }
  return { bread, last: parent! };
}

/** One run of the topic job, then of the period job, over the instance. */
async function runJobs(store: MemoryStore, scope: Scope) {
  const now = () => FIRST_DAY + 10 * DAY_MS;
  const topics = await clusterTopics({ store, scope, now, threshold: 0.6, maxTopics: 10 });
  const periods = await summarizePeriods({ store, scope, now });
  return { topics, periods };
}

/** What the jobs left in an instance, as the API shows it. */
async function jobState(store: MemoryStore, scope: Scope) {
  const turns = await store.listMessages(scope, { limit: 100, includeDeleted: true });
  const links = await store.getTopicIds(
    scope,
    turns.map((each) => each.id),
  );
  return {
    topics: await store.listTopics(scope),
    links: [...links.entries()].sort(),
    days: await store.listPeriodSummaries(scope, { granularity: 'day', limit: 100 }),
    weeks: await store.listPeriodSummaries(scope, { granularity: 'week', limit: 100 }),
    cursors: [
      await store.getJobCursor(scope, 'topics'),
      await store.getJobCursor(scope, 'periods'),
    ],
  };
}

/** Records as an export file; no embedding model is named, so an import keeps the vectors. */
function jsonLines(records: object[], version: number = EXPORT_VERSION): string[] {
  const header = { type: 'header', format: EXPORT_FORMAT, version, embedding_model: null };
  return [header, ...records].map((record) => `${JSON.stringify(record)}\n`);
}

/** Export and import of what the background jobs made: topics, BELONGS_TO, period summaries, cursors. */
export function describeJobExportContract(getStore: StoreGetter): void {
  describe('export and import of the jobs’ records', () => {
    it('round-trips topics, their links, period summaries and cursors; the jobs then carry on without duplicating', async () => {
      const store = getStore();
      const scope = freshScope();
      const { bread, last } = await seedTwoSubjects(store, scope);
      const ran = await runJobs(store, scope);
      expect(ran.topics).toMatchObject({ assigned: 6, created: 2, done: true });
      const before = await jobState(store, scope);
      expect(before.topics.map((topic) => topic.messages)).toEqual([3, 3]);
      expect(before.days).toHaveLength(3);
      expect(before.weeks).toHaveLength(2);
      expect(before.cursors).toEqual([6, 6]);

      const records = await exportAll(store, scope);
      const types = records.map((record) => record.type);
      expect(types.filter((type) => type === 'Topic')).toHaveLength(2);
      expect(types.filter((type) => type === 'BELONGS_TO')).toHaveLength(6);
      expect(types.filter((type) => type === 'PeriodSummary')).toHaveLength(5);
      expect(records[0]).toMatchObject({ type: 'Instance', topics_cursor: 6, periods_cursor: 6 });
      // Nodes first: a topic line comes before every BELONGS_TO that points at it.
      expect(types.lastIndexOf('PeriodSummary')).toBeLessThan(types.indexOf('BELONGS_TO'));
      const lines = records.map((record) => JSON.stringify(record)).sort();
      const withoutVectors = await exportAll(store, { ...scope, embeddings: false });
      expect(withoutVectors.map((record) => record.type)).not.toContain('Topic');
      expect(withoutVectors[0]).toMatchObject({ topics_cursor: 0, periods_cursor: 0 });

      // Into the emptied instance, in batches that split topics from their links.
      await store.purgeInstance(scope);
      expect(await jobState(store, scope)).toMatchObject({
        topics: [],
        links: [],
        cursors: [0, 0],
      });
      for (let start = 0; start < records.length; start += 7)
        await store.importRecords(records.slice(start, start + 7));
      expect(await exportedLines(store, scope)).toEqual(lines);
      expect(await jobState(store, scope)).toEqual(before);
      expect(await store.importRecords(records)).toEqual({ created: 0, unchanged: records.length });
      expect(await exportedLines(store, scope)).toEqual(lines);

      // The jobs find nothing new: no topic made twice, no period summarized again.
      const again = await runJobs(store, scope);
      expect(again.topics).toMatchObject({ assigned: 0, created: 0, done: true });
      expect(again.periods.periods).toBe(0);
      expect(await jobState(store, scope)).toEqual(before);

      // A new turn joins the imported topic of its subject.
      const [next] = await append(store, scope, last, [
        turn('user', 'more bread kneading', { timestamp: FIRST_DAY + 2 * DAY_MS }),
      ]);
      await store.setEmbeddings(scope, [{ kind: 'message', id: next!.id, vector: bread }]);
      const carried = await runJobs(store, scope);
      expect(carried.topics).toMatchObject({ assigned: 1, created: 0 });
      const after = await store.listTopics(scope);
      expect(after.map((topic) => topic.id).sort()).toEqual(
        before.topics.map((topic) => topic.id).sort(),
      );
      expect(after.map((topic) => topic.messages)).toEqual([4, 3]);
      const [first] = await store.listMessages(scope, { limit: 1 });
      const topicOf = await store.getTopicIds(scope, [first!.id, next!.id]);
      expect(topicOf.get(next!.id)).toBe(topicOf.get(first!.id));
    });

    it('names the line of a malformed or misplaced topic record, and keeps a turn in its topic', async () => {
      const store = getStore();
      const scope = freshScope();
      await seedTwoSubjects(store, scope);
      await runJobs(store, scope);
      const records = await exportAll(store, scope);
      await store.purgeInstance(scope);
      const topicAt = records.findIndex((record) => record.type === 'Topic');
      const topic = records[topicAt]!;
      const broken = [...records.slice(0, topicAt), { ...topic, centroid: 'round' }];
      const malformed = await importJsonLines(store, Readable.from(jsonLines(broken))).catch(
        (caught: unknown) => caught,
      );
      // Line 1 is the header.
      expect((malformed as Error).message).toMatch(
        new RegExp(`^line ${topicAt + 2}: Topic\\.centroid must be a non-empty list of numbers`),
      );
      expect(malformed).toMatchObject({ status: 400, code: 'invalid_import_line' });

      const linkAt = records.findIndex((record) => record.type === 'BELONGS_TO');
      const stray = [...records.slice(0, linkAt), { ...records[linkAt]!, to: 'nowhere' }];
      const misplaced = await importJsonLines(store, Readable.from(jsonLines(stray))).catch(
        (caught: unknown) => caught,
      );
      expect((misplaced as Error).message).toMatch(
        new RegExp(
          `^line ${linkAt + 2}: BELONGS_TO .*topic nowhere must be stored in this instance`,
        ),
      );

      // The corrected file completes the import; a link to another topic leaves the turn's own.
      const imported = await importJsonLines(store, Readable.from(jsonLines(records)));
      expect(imported.records).toBe(records.length);
      const link = records.find(
        (record): record is TopicLinkRecord => record.type === 'BELONGS_TO',
      )!;
      const other = records.find(
        (record): record is TopicRecord => record.type === 'Topic' && record.id !== link.to,
      )!;
      const moved = await store.importRecords([{ ...link, to: other.id }]);
      expect(moved).toEqual({ created: 0, unchanged: 1 });
      // A topic id belongs to one instance, as a message id does.
      const elsewhere = await store
        .importRecords([{ ...other, instance: `${scope.instance}-other` }])
        .catch((caught: unknown) => caught);
      expect(elsewhere).toBeInstanceOf(RecordImportError);
      expect((elsewhere as Error).message).toMatch(/^topic .* already exists in /);
      expect(await store.listTopics({ ...scope, instance: `${scope.instance}-other` })).toEqual([]);
      expect(await exportedLines(store, scope)).toEqual(
        records.map((record) => JSON.stringify(record)).sort(),
      );
    });

    it('writes Float32 vectors as base64 and imports them, and the numbers of a version 2 file, as the same vectors', async () => {
      const store = getStore();
      const scope = freshScope();
      await seedTwoSubjects(store, scope);
      const records = await exportAll(store, scope);
      const ids = records.flatMap((record) => (record.type === 'Message' ? [record.id] : []));
      const stored = await store.getEmbeddings(scope, ids);
      expect(stored.size).toBe(6);
      const lines: string[] = [];
      for await (const line of exportJsonLines(store, scope)) lines.push(line);
      expect(JSON.parse(lines[0]!)).toMatchObject({ type: 'header', version: 3 });
      const written = lines
        .map((line) => JSON.parse(line))
        .filter((record) => record.type === 'Message')
        .map((record) => record.embedding);
      // The embedded store keeps Float32 values: its file holds base64. A store that keeps
      // wider numbers writes them as they are.
      const float32 = [...stored.values()].every((vector) => vector.every((value) => Math.fround(value) === value));
      expect(written.every((vector) => typeof vector === (float32 ? 'string' : 'object'))).toBe(true);
      if (float32) {
        const [first] = written as string[];
        expect(first!.length).toBeLessThan(JSON.stringify(stored.get(ids[0]!)).length / 2);
      }

      for (const file of [lines, jsonLines(records, 2)]) {
        await store.purgeInstance(scope);
        const imported = await importJsonLines(store, Readable.from(file));
        expect(imported.created).toBe(records.length);
        expect(await store.getEmbeddings(scope, ids)).toEqual(stored);
      }
    });

    it('imports a version 1 file, from before topics were exported: the jobs start over there', async () => {
      const store = getStore();
      const scope = freshScope();
      await seedTwoSubjects(store, scope);
      await runJobs(store, scope);
      const records = await exportAll(store, scope);
      await store.purgeInstance(scope);
      const jobTypes = new Set<GraphRecord['type']>(['Topic', 'PeriodSummary', 'BELONGS_TO']);
      const older = records
        .filter((record) => !jobTypes.has(record.type))
        .map((record) => {
          if (record.type !== 'Instance') return record;
          const { type, partition, instance, last_seq, deleted_at } = record;
          return { type, partition, instance, last_seq, deleted_at };
        });
      const imported = await importJsonLines(store, Readable.from(jsonLines(older, 1)));
      expect(imported.records).toBe(older.length);
      expect(await store.getJobCursor(scope, 'topics')).toBe(0);
      const ran = await runJobs(store, scope);
      expect(ran.topics).toMatchObject({ assigned: 6, created: 2, done: true });
      expect(ran.periods.periods).toBe(5);
    });
  });
}
