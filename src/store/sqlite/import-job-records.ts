import type Database from 'better-sqlite3';
import type {
  InstanceRecord,
  PeriodSummaryRecord,
  TopicLinkRecord,
  TopicRecord,
} from '../graph-record';
import { sameScope } from '../scope-key';
import type { CursorJob } from '../topic-types';
import { fromPeriodSummaryRecord, fromTopicRecord } from '../job-records';
import { toPeriodRow, toTopicRow } from './maintenance-records';
import { maintenanceStatements } from './maintenance-statements';
import { scopeParams, type ScopeParams } from './scope-sql';

/** A record of the background jobs, as an import stores it. */
export type JobRecord = TopicRecord | PeriodSummaryRecord | TopicLinkRecord;

type Statements = ReturnType<typeof prepare>;

const cache = new WeakMap<Database.Database, Statements>();

function prepare(db: Database.Database) {
  // The jobs' tables are made on first use: make them before preparing statements on them.
  maintenanceStatements(db);
  return {
    topicOwner: db.prepare<[string], ScopeParams>(
      'SELECT partition, instance FROM topics WHERE id = ?',
    ),
    insertTopic: db.prepare(
      `INSERT INTO topics (id, partition, instance, label, summary, summary_kind, highlight_ids, size,
         period_start, period_end, updated_at, centroid)
       VALUES (@id, @partition, @instance, @label, @summary, @summary_kind, @highlight_ids, @size,
         @period_start, @period_end, @updated_at, @centroid)`,
    ),
    insertPeriod: db.prepare(
      `INSERT INTO period_summaries (partition, instance, granularity, period, start_time, end_time,
         messages, tokens, user_messages, topics, summary, highlight_ids, updated_at)
       VALUES (@partition, @instance, @granularity, @period, @start_time, @end_time, @messages,
         @tokens, @user_messages, @topics, @summary, @highlight_ids, @updated_at)
       ON CONFLICT (partition, instance, granularity, period) DO NOTHING`,
    ),
    turnOwner: db.prepare<[string], ScopeParams & { isChunk: number }>(
      'SELECT partition, instance, is_chunk AS isChunk FROM messages INDEXED BY messages_id WHERE id = ?',
    ),
    topicOfTurn: db
      .prepare<[string], string>('SELECT topic_id FROM topic_members WHERE message_id = ?')
      .pluck(),
    insertMember: db.prepare<ScopeParams & { messageId: string; topicId: string }>(
      `INSERT INTO topic_members (message_id, topic_id, partition, instance)
       VALUES (@messageId, @topicId, @partition, @instance)`,
    ),
    // A cursor only moves forward: a job that already went further here keeps its place.
    raiseCursor: db.prepare<ScopeParams & { job: CursorJob; cursor: number }>(
      `INSERT INTO job_cursors (partition, instance, job, cursor) VALUES (@partition, @instance, @job, @cursor)
       ON CONFLICT (partition, instance, job) DO UPDATE SET cursor = max(cursor, excluded.cursor)`,
    ),
  };
}

/**
 * Stores the topic and period records of an import (inside the caller's transaction): a topic or
 * period already stored stays as it is, and a turn that already belongs to a topic keeps it, so
 * importing twice changes nothing and every turn still belongs to one topic.
 */
export class JobRecordImporter {
  private readonly statements: Statements;

  constructor(
    db: Database.Database,
    private readonly options: { dimensions: number; fail: (message: string) => never },
  ) {
    let statements = cache.get(db);
    if (!statements) {
      statements = prepare(db);
      cache.set(db, statements);
    }
    this.statements = statements;
  }

  /** Raises the instance's job cursors to the record's (never lowers them). */
  cursors(record: InstanceRecord): void {
    const jobs: [CursorJob, number][] = [
      ['topics', record.topics_cursor],
      ['periods', record.periods_cursor],
    ];
    for (const [job, cursor] of jobs) {
      if (cursor > 0) this.statements.raiseCursor.run({ job, cursor, ...scopeParams(record) });
    }
  }

  /** Stores one job record; true when it added something. */
  store(record: JobRecord): boolean {
    if (record.type === 'Topic') return this.topic(record);
    if (record.type === 'PeriodSummary') return this.period(record);
    return this.link(record);
  }

  private topic(record: TopicRecord): boolean {
    const { statements, options } = this;
    const owner = statements.topicOwner.get(record.id);
    if (owner !== undefined) {
      if (!sameScope(owner, record))
        options.fail(`topic ${record.id} already exists in ${owner.partition}/${owner.instance}`);
      return false;
    }
    if (record.centroid.length !== options.dimensions) {
      options.fail(
        `topic centroid has ${record.centroid.length} dimensions; the store uses ${options.dimensions}`,
      );
    }
    statements.insertTopic.run({ ...scopeParams(record), ...toTopicRow(fromTopicRecord(record)) });
    return true;
  }

  private period(record: PeriodSummaryRecord): boolean {
    return (
      this.statements.insertPeriod.run({
        ...scopeParams(record),
        ...toPeriodRow(fromPeriodSummaryRecord(record)),
      }).changes > 0
    );
  }

  private link(record: TopicLinkRecord): boolean {
    const { statements, options } = this;
    const what = `BELONGS_TO from ${record.from} to ${record.to}`;
    const turn = statements.turnOwner.get(record.from);
    if (!turn || !sameScope(turn, record) || turn.isChunk !== 0)
      options.fail(`${what}: ${record.from} must be a turn stored in this instance before it`);
    const topic = statements.topicOwner.get(record.to);
    if (!topic || !sameScope(topic, record))
      options.fail(`${what}: topic ${record.to} must be stored in this instance before it`);
    if (statements.topicOfTurn.get(record.from) !== undefined) return false;
    statements.insertMember.run({
      messageId: record.from,
      topicId: record.to,
      ...scopeParams(record),
    });
    return true;
  }
}
