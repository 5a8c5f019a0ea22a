import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../logger';
import type { MemoryStore } from '../../store/memory-store';
import { SqliteStore } from '../../store/sqlite/sqlite-store';
import type { Scope } from '../../store/types';
import { MaintenanceRunner, type MaintenanceOptions } from './maintenance-runner';

const DIMENSIONS = 8;

/** A unit vector near axis `subject`, nudged by `index` so no two turns are alike. */
function vectorOf(subject: number, index: number): number[] {
  const vector = Array.from({ length: DIMENSIONS }, (_, axis) =>
    axis === subject ? 1 : ((index * 7 + axis * 3) % 5) / 25,
  );
  const length = Math.hypot(...vector);
  return vector.map((value) => value / length);
}

async function seed(store: MemoryStore, scope: Scope): Promise<void> {
  const subjects = Array.from({ length: 30 }, (_, index) => index % 3);
  const turns = await store.appendPath(scope, {
    parentId: null,
    messages: subjects.map((subject, index) => {
      const content = `turn ${index} about subject ${subject}`;
      return {
        role: index % 2 === 0 ? 'user' : 'assistant',
        content,
        raw: { role: index % 2 === 0 ? 'user' : 'assistant', content },
        contentHash: createHash('sha256').update(content).digest('hex').slice(0, 32),
        tokenCount: 6,
      };
    }),
  });
  await store.setEmbeddings(
    scope,
    turns.map((turn, index) => ({
      kind: 'message' as const,
      id: turn.message.id,
      vector: vectorOf(subjects[index]!, index),
    })),
  );
}

describe('MaintenanceRunner', () => {
  let store: SqliteStore;
  const options = (target: MemoryStore): MaintenanceOptions => ({
    store: target,
    logger: createLogger('silent'),
    now: Date.now,
    retention: { days: null, graceDays: 7 },
    topicThreshold: 0.8,
    maxTopics: 10,
    summarizer: null,
  });

  beforeAll(async () => {
    store = new SqliteStore({ dataDir: mkdtempSync(path.join(tmpdir(), 'memory-proxy-jobs-')) });
    await store.init({ embeddingDimensions: DIMENSIONS });
  });
  afterAll(async () => {
    await store.close();
  });

  it('stops between steps on shutdown, and the next run resumes to the topics an unstopped run makes', async () => {
    const stoppedScope = { partition: 'jobs', instance: 'stopped' };
    const wholeScope = { partition: 'jobs', instance: 'whole' };
    await seed(store, stoppedScope);
    await seed(store, wholeScope);

    // A store that shuts the runner down right after its first step is written.
    let runner: MaintenanceRunner | null = null;
    let stopping: Promise<void> | null = null;
    const interrupting = new Proxy(store, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver) as unknown;
        if (property !== 'saveTopicBatch' || typeof value !== 'function') {
          return typeof value === 'function' ? value.bind(target) : value;
        }
        return async (...args: unknown[]) => {
          const saved = await (value as (...inner: unknown[]) => Promise<boolean>).apply(
            target,
            args,
          );
          stopping ??= runner!.stop();
          return saved;
        };
      },
    });
    runner = new MaintenanceRunner(options(interrupting));
    const report = await runner.run({
      jobs: ['topics'],
      filter: stoppedScope,
      batchSize: 10,
    });
    await stopping;
    expect(report.completed).toBe(false);
    expect(report.topics).toMatchObject({ assigned: 10, done: false });
    expect(await store.getJobCursor(stoppedScope, 'topics')).toBe(10);
    // A stopped runner runs nothing more.
    expect((await runner.run({ jobs: ['topics'], filter: stoppedScope })).completed).toBe(false);

    const next = new MaintenanceRunner(options(store));
    const resumed = await next.run({ jobs: ['topics'], filter: stoppedScope, batchSize: 10 });
    expect(resumed.topics).toMatchObject({ assigned: 20, done: true });
    await next.run({ jobs: ['topics'], filter: wholeScope });

    const grouping = async (scope: Scope) => {
      const groups: number[][] = [];
      for (const topic of await store.listTopics(scope)) {
        const turns = await store.listTopicMessages(scope, topic.id, { limit: 100 });
        groups.push(turns.map((turn) => turn.seq));
      }
      return groups.map((seqs) => seqs.join(',')).sort();
    };
    const stopped = await grouping(stoppedScope);
    expect(stopped).toEqual(await grouping(wholeScope));
    // The three subjects, each its own topic, every turn in one.
    expect(stopped).toHaveLength(3);
    expect(stopped.join(',').split(',')).toHaveLength(30);
  });

  it('runs one request at a time and reports each job it ran', async () => {
    const scope = { partition: 'jobs', instance: 'queued' };
    await seed(store, scope);
    const runner = new MaintenanceRunner(options(store));
    const [first, second] = await Promise.all([
      runner.run({ jobs: ['topics'], filter: scope }),
      runner.run({ jobs: ['topics', 'periods'], filter: scope }),
    ]);
    expect(first.topics).toMatchObject({ assigned: 30 });
    expect(second.topics).toMatchObject({ assigned: 0 });
    expect(second.periods).toMatchObject({ instances: 1, done: true });
    expect(first.periods).toBeUndefined();
    await runner.stop();
  });

  it('lets two processes run the topic job at once without a turn counted twice', async () => {
    const scope = { partition: 'jobs', instance: 'racing' };
    await seed(store, scope);
    const [one, two] = [
      new MaintenanceRunner(options(store)),
      new MaintenanceRunner(options(store)),
    ];
    const reports = await Promise.all([
      one.run({ jobs: ['topics'], filter: scope, batchSize: 5 }),
      two.run({ jobs: ['topics'], filter: scope, batchSize: 5 }),
      one.run({ jobs: ['topics'], filter: scope, batchSize: 5 }),
    ]);
    expect(reports.reduce((sum, report) => sum + report.topics!.assigned, 0)).toBe(30);
    const topics = await store.listTopics(scope);
    expect(topics.reduce((sum, topic) => sum + topic.size, 0)).toBe(30);
    expect(topics.reduce((sum, topic) => sum + topic.messages, 0)).toBe(30);
    expect(topics).toHaveLength(3);
  });

  it('runs on its timer, the first time soon after start, until stopped', async () => {
    const scope = { partition: 'jobs-timer', instance: 'timed' };
    await seed(store, scope);
    vi.useFakeTimers({ toFake: ['setTimeout', 'setInterval', 'clearTimeout', 'clearInterval'] });
    try {
      const runner = new MaintenanceRunner(options(store));
      runner.start(3_600_000);
      await vi.advanceTimersByTimeAsync(59_000);
      expect(await store.getJobCursor(scope, 'topics')).toBe(0);
      await vi.advanceTimersByTimeAsync(1_000);
      // A request waits for the run under way: once it is done, so is the timed run.
      await runner.run({ jobs: ['orphans'], filter: scope });
      await runner.stop();
      expect(await store.getJobCursor(scope, 'topics')).toBe(30);
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});
