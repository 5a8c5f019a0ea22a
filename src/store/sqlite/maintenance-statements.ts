import type Database from 'better-sqlite3';
import { MESSAGE_COLUMNS, type MessageRow } from './message-row';
import { IDS, IN_SCOPE, type ByIdParams, type ScopeParams } from './scope-sql';

/** Tables of the background jobs, created by the schema migration (schema.ts). */
export const MAINTENANCE_SCHEMA = `
CREATE TABLE IF NOT EXISTS topics (
  id TEXT PRIMARY KEY,
  partition TEXT NOT NULL,
  instance TEXT NOT NULL,
  label TEXT NOT NULL,
  summary TEXT NOT NULL,
  summary_kind TEXT NOT NULL,
  highlight_ids TEXT NOT NULL,
  size INTEGER NOT NULL,
  period_start INTEGER NOT NULL,
  period_end INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  centroid BLOB NOT NULL
) STRICT;
CREATE INDEX IF NOT EXISTS topics_scope ON topics (partition, instance);

-- (message)-[:BELONGS_TO]->(topic): one row per turn, so a turn has at most one topic.
CREATE TABLE IF NOT EXISTS topic_members (
  message_id TEXT PRIMARY KEY,
  topic_id TEXT NOT NULL,
  partition TEXT NOT NULL,
  instance TEXT NOT NULL
) STRICT, WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS topic_members_topic ON topic_members (topic_id);

CREATE TABLE IF NOT EXISTS job_cursors (
  partition TEXT NOT NULL,
  instance TEXT NOT NULL,
  job TEXT NOT NULL,
  cursor INTEGER NOT NULL,
  PRIMARY KEY (partition, instance, job)
) STRICT, WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS period_summaries (
  partition TEXT NOT NULL,
  instance TEXT NOT NULL,
  granularity TEXT NOT NULL,
  period TEXT NOT NULL,
  start_time INTEGER NOT NULL,
  end_time INTEGER NOT NULL,
  messages INTEGER NOT NULL,
  tokens INTEGER NOT NULL,
  user_messages INTEGER NOT NULL,
  topics TEXT NOT NULL,
  summary TEXT NOT NULL,
  highlight_ids TEXT NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (partition, instance, granularity, period)
) STRICT, WITHOUT ROWID;

-- When retention first saw a turn soft-deleted; its grace period counts from there.
CREATE TABLE IF NOT EXISTS deletion_times (
  message_id TEXT PRIMARY KEY,
  partition TEXT NOT NULL,
  instance TEXT NOT NULL,
  deleted_at INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS deletion_times_at ON deletion_times (deleted_at);
CREATE INDEX IF NOT EXISTS messages_deleted_turns ON messages (pk) WHERE deleted <> 0 AND is_chunk = 0;
`;

/** A row of `topics` with its live turn count. */
export interface TopicRow {
  id: string;
  partition: string;
  instance: string;
  label: string;
  summary: string;
  summary_kind: string;
  highlight_ids: string;
  size: number;
  period_start: number;
  period_end: number;
  updated_at: number;
  centroid: Uint8Array;
  live: number;
}

/** A row of `period_summaries`. */
export interface PeriodRow {
  granularity: string;
  period: string;
  start_time: number;
  end_time: number;
  messages: number;
  tokens: number;
  user_messages: number;
  topics: string;
  summary: string;
  highlight_ids: string;
  updated_at: number;
}

/** A ScopeFilter as parameters: null matches every partition or instance. */
export interface FilterParams {
  partition: string | null;
  instance: string | null;
}
const IN_FILTER =
  '(@partition IS NULL OR partition = @partition) AND (@instance IS NULL OR instance = @instance)';

/** The columns of `topics` a write sets besides the scope. */
export type TopicColumns = Omit<TopicRow, 'live' | 'partition' | 'instance'>;
type TopicParams = ScopeParams & TopicColumns;
type PeriodParams = ScopeParams & PeriodRow;

/** Statements of the background jobs, prepared once per connection. */
export type MaintenanceStatements = ReturnType<typeof prepare>;

const cache = new WeakMap<Database.Database, MaintenanceStatements>();

/** The job statements of a connection, prepared on first use. */
export function maintenanceStatements(db: Database.Database): MaintenanceStatements {
  let statements = cache.get(db);
  if (!statements) {
    statements = prepare(db);
    cache.set(db, statements);
  }
  return statements;
}

// A chunk is an orphan when no turn of its scope is its parent, or the parent's text no longer
// contains it (chunks are cut from the text, so a text changed behind the edit path strands
// them). A chunk may begin or end with U+FFFD where its token window cut a character in two.
const ORPHAN_CHUNK = `is_chunk = 1 AND NOT EXISTS (SELECT 1 FROM messages p INDEXED BY messages_id
  WHERE p.id = c.chunk_parent_id AND p.partition = c.partition AND p.instance = c.instance
    AND p.is_chunk = 0 AND instr(p.content, trim(c.content, char(65533))) > 0)`;

function prepare(db: Database.Database) {
  return {
    listTopics: db.prepare<ScopeParams, TopicRow>(
      `SELECT t.*, (SELECT count(*) FROM topic_members tm JOIN messages m INDEXED BY messages_id
           ON m.id = tm.message_id AND m.partition = tm.partition AND m.instance = tm.instance
         WHERE tm.topic_id = t.id AND m.deleted = 0) AS live
       FROM topics t WHERE ${IN_SCOPE} ORDER BY live DESC, t.id`,
    ),
    upsertTopic: db.prepare<TopicParams>(
      `INSERT INTO topics (id, partition, instance, label, summary, summary_kind, highlight_ids, size,
         period_start, period_end, updated_at, centroid)
       VALUES (@id, @partition, @instance, @label, @summary, @summary_kind, @highlight_ids, @size,
         @period_start, @period_end, @updated_at, @centroid)
       ON CONFLICT (id) DO UPDATE SET label = excluded.label, summary = excluded.summary,
         summary_kind = excluded.summary_kind, highlight_ids = excluded.highlight_ids,
         size = excluded.size,
         period_start = excluded.period_start, period_end = excluded.period_end,
         updated_at = excluded.updated_at, centroid = excluded.centroid
       WHERE topics.partition = excluded.partition AND topics.instance = excluded.instance`,
    ),
    setTopicSummary: db.prepare<
      ByIdParams & { label: string; summary: string; summaryKind: string; highlightIds: string }
    >(
      `UPDATE topics SET label = @label, summary = @summary, summary_kind = @summaryKind,
         highlight_ids = @highlightIds
       WHERE id = @id AND ${IN_SCOPE}`,
    ),
    // Only turns of the scope are linked, and a turn's link moves rather than doubles.
    linkTopic: db.prepare<ScopeParams & { messageId: string; topicId: string }>(
      `INSERT INTO topic_members (message_id, topic_id, partition, instance)
       SELECT id, @topicId, partition, instance FROM messages INDEXED BY messages_id
       WHERE id = @messageId AND ${IN_SCOPE} AND is_chunk = 0
       ON CONFLICT (message_id) DO UPDATE SET topic_id = excluded.topic_id`,
    ),
    topicMessages: db.prepare<
      ScopeParams & { topicId: string; afterSeq: number; limit: number },
      MessageRow
    >(
      `SELECT ${MESSAGE_COLUMNS} FROM messages
       WHERE ${IN_SCOPE} AND deleted = 0 AND is_chunk = 0 AND seq > @afterSeq
         AND id IN (SELECT message_id FROM topic_members WHERE topic_id = @topicId AND ${IN_SCOPE})
       ORDER BY seq LIMIT @limit`,
    ),
    topicIds: db.prepare<ScopeParams & { ids: string }, { message_id: string; topic_id: string }>(
      `SELECT message_id, topic_id FROM topic_members WHERE ${IN_SCOPE} AND message_id IN (${IDS})`,
    ),
    cursor: db
      .prepare<ScopeParams & { job: string }, number>(
        `SELECT cursor FROM job_cursors WHERE ${IN_SCOPE} AND job = @job`,
      )
      .pluck(),
    putCursor: db.prepare<ScopeParams & { job: string; cursor: number }>(
      `INSERT INTO job_cursors (partition, instance, job, cursor) VALUES (@partition, @instance, @job, @cursor)
       ON CONFLICT (partition, instance, job) DO UPDATE SET cursor = excluded.cursor`,
    ),
    upsertPeriod: db.prepare<PeriodParams>(
      `INSERT OR REPLACE INTO period_summaries (partition, instance, granularity, period, start_time,
         end_time, messages, tokens, user_messages, topics, summary, highlight_ids, updated_at)
       VALUES (@partition, @instance, @granularity, @period, @start_time, @end_time, @messages,
         @tokens, @user_messages, @topics, @summary, @highlight_ids, @updated_at)`,
    ),
    listPeriods: db.prepare<
      ScopeParams & { granularity: string; fromTime: number; toTime: number; limit: number },
      PeriodRow
    >(
      `SELECT granularity, period, start_time, end_time, messages, tokens, user_messages, topics,
         summary, highlight_ids, updated_at
       FROM period_summaries
       WHERE ${IN_SCOPE} AND granularity = @granularity AND end_time > @fromTime AND start_time < @toTime
       ORDER BY start_time LIMIT @limit`,
    ),
    orphanChunks: db.prepare<FilterParams, { id: string; partition: string; instance: string }>(
      `SELECT id, partition, instance FROM messages c INDEXED BY messages_chunk_parent
       WHERE chunk_parent_id IS NOT NULL AND ${IN_FILTER} AND ${ORPHAN_CHUNK}`,
    ),
    deleteEdgesOf: db.prepare<ByIdParams>(
      `DELETE FROM edges WHERE ${IN_SCOPE} AND (from_id = @id OR to_id = @id)`,
    ),
    deleteChunk: db.prepare<ByIdParams>(
      `DELETE FROM messages WHERE id = @id AND ${IN_SCOPE} AND is_chunk = 1`,
    ),
    deleteDanglingLinks: db.prepare<FilterParams>(
      `DELETE FROM topic_members WHERE ${IN_FILTER} AND NOT EXISTS (SELECT 1 FROM messages m INDEXED BY messages_id
         WHERE m.id = topic_members.message_id AND m.partition = topic_members.partition
           AND m.instance = topic_members.instance)`,
    ),
    deleteEmptyTopics: db.prepare<FilterParams>(
      `DELETE FROM topics WHERE ${IN_FILTER} AND NOT EXISTS
         (SELECT 1 FROM topic_members tm WHERE tm.topic_id = topics.id)`,
    ),
    noteDeletions: db.prepare<FilterParams & { now: number }>(
      `INSERT INTO deletion_times (message_id, partition, instance, deleted_at)
       SELECT id, partition, instance, @now FROM messages INDEXED BY messages_deleted_turns
       WHERE deleted <> 0 AND is_chunk = 0 AND ${IN_FILTER}
       ON CONFLICT (message_id) DO NOTHING`,
    ),
    forgetRestored: db.prepare<FilterParams>(
      `DELETE FROM deletion_times WHERE ${IN_FILTER} AND NOT EXISTS (SELECT 1 FROM messages m
         INDEXED BY messages_id WHERE m.id = deletion_times.message_id AND m.deleted <> 0)`,
    ),
    expiredDeletions: db.prepare<
      FilterParams & { before: number; limit: number },
      { message_id: string; partition: string; instance: string }
    >(
      `SELECT d.message_id, d.partition, d.instance FROM deletion_times d
       WHERE d.deleted_at < @before AND (@partition IS NULL OR d.partition = @partition)
         AND (@instance IS NULL OR d.instance = @instance)
         AND EXISTS (SELECT 1 FROM messages m INDEXED BY messages_id
         WHERE m.id = d.message_id AND m.partition = d.partition AND m.instance = d.instance
           AND m.deleted <> 0 AND m.is_chunk = 0)
       ORDER BY d.deleted_at LIMIT @limit`,
    ),
    forgetInstance: [
      db.prepare<ScopeParams>(`DELETE FROM topic_members WHERE ${IN_SCOPE}`),
      db.prepare<ScopeParams>(`DELETE FROM topics WHERE ${IN_SCOPE}`),
      db.prepare<ScopeParams>(`DELETE FROM job_cursors WHERE ${IN_SCOPE}`),
      db.prepare<ScopeParams>(`DELETE FROM period_summaries WHERE ${IN_SCOPE}`),
      db.prepare<ScopeParams>(`DELETE FROM deletion_times WHERE ${IN_SCOPE}`),
    ],
  };
}
