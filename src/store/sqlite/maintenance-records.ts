import type Database from 'better-sqlite3';
import { toNumbers } from '../../lists';
import type {
  CursorJob,
  ExpiredDeletion,
  OrphanCleanup,
  PeriodQuery,
  PeriodSummary,
  ScopeFilter,
  StoredTopic,
  SummaryKind,
  TopicBatch,
  TopicSummaryUpdate,
  TopicWrite,
} from '../topic-types';
import type { Scope, StoredMessage } from '../types';
import {
  maintenanceStatements,
  type FilterParams,
  type PeriodRow,
  type TopicColumns,
  type TopicRow,
} from './maintenance-statements';
import { toStoredMessage } from './message-row';
import { scopeParams } from './scope-sql';
import { decodeVector, encodeVector } from '../vector-codec';

/**
 * The background jobs' records in the embedded store: topics and their `BELONGS_TO` rows, period
 * summaries, job cursors, orphan cleanup and the deletion times retention counts its grace from.
 */
export class SqliteMaintenance {
  constructor(private readonly db: Database.Database) {}

  private get statements() {
    return maintenanceStatements(this.db);
  }

  listTopics(scope: Scope): StoredTopic[] {
    return this.statements.listTopics.all(scopeParams(scope)).map(toTopic);
  }

  saveTopicBatch(scope: Scope, batch: TopicBatch): boolean {
    const { statements } = this;
    const params = scopeParams(scope);
    return this.db
      .transaction(() => {
        const current = statements.cursor.get({ job: 'topics', ...params }) ?? 0;
        if (current !== batch.after) return false;
        for (const topic of batch.topics) {
          statements.upsertTopic.run({ ...params, ...toTopicRow(topic) });
        }
        for (const link of batch.links) statements.linkTopic.run({ ...params, ...link });
        statements.putCursor.run({ job: 'topics', cursor: batch.cursor, ...params });
        return true;
      })
      .immediate();
  }

  setTopicSummaries(scope: Scope, updates: TopicSummaryUpdate[]): void {
    const { statements } = this;
    const params = scopeParams(scope);
    this.db
      .transaction(() => {
        for (const update of updates) {
          statements.setTopicSummary.run({
            ...update,
            highlightIds: JSON.stringify(update.highlightIds),
            ...params,
          });
        }
      })
      .immediate();
  }

  listTopicMessages(
    scope: Scope,
    topicId: string,
    options: { afterSeq?: number; limit: number },
  ): StoredMessage[] {
    return this.statements.topicMessages
      .all({
        topicId,
        afterSeq: options.afterSeq ?? 0,
        limit: options.limit,
        ...scopeParams(scope),
      })
      .map(toStoredMessage);
  }

  getTopicIds(scope: Scope, ids: string[]): Map<string, string> {
    if (ids.length === 0) return new Map();
    const rows = this.statements.topicIds.all({ ids: JSON.stringify(ids), ...scopeParams(scope) });
    return new Map(rows.map((row) => [row.message_id, row.topic_id]));
  }

  getJobCursor(scope: Scope, job: CursorJob): number {
    return this.statements.cursor.get({ job, ...scopeParams(scope) }) ?? 0;
  }

  savePeriodSummaries(scope: Scope, input: { summaries: PeriodSummary[]; cursor: number }): void {
    const { statements } = this;
    const params = scopeParams(scope);
    this.db
      .transaction(() => {
        for (const summary of input.summaries) {
          statements.upsertPeriod.run({ ...params, ...toPeriodRow(summary) });
        }
        statements.putCursor.run({ job: 'periods', cursor: input.cursor, ...params });
      })
      .immediate();
  }

  listPeriodSummaries(scope: Scope, query: PeriodQuery): PeriodSummary[] {
    return this.statements.listPeriods
      .all({
        granularity: query.granularity,
        fromTime: query.fromTime ?? Number.MIN_SAFE_INTEGER,
        toTime: query.toTime ?? Number.MAX_SAFE_INTEGER,
        limit: query.limit,
        ...scopeParams(scope),
      })
      .map(toPeriodSummary);
  }

  deleteOrphans(filter: ScopeFilter = {}): OrphanCleanup {
    const { statements } = this;
    const params = filterParams(filter);
    return this.db
      .transaction(() => {
        const orphans = statements.orphanChunks.all(params);
        for (const chunk of orphans) {
          const params = { partition: chunk.partition, instance: chunk.instance, id: chunk.id };
          statements.deleteEdgesOf.run(params);
          statements.deleteChunk.run(params);
        }
        statements.deleteDanglingLinks.run(params);
        const topics = statements.deleteEmptyTopics.run(params).changes;
        return { chunks: orphans.length, topics };
      })
      .immediate();
  }

  stampDeletions(now: number, filter: ScopeFilter = {}): void {
    const { statements } = this;
    const params = filterParams(filter);
    this.db
      .transaction(() => {
        statements.forgetRestored.run(params);
        statements.noteDeletions.run({ now, ...params });
      })
      .immediate();
  }

  expiredDeletions(before: number, limit: number, filter: ScopeFilter = {}): ExpiredDeletion[] {
    const params = { before, limit, ...filterParams(filter) };
    return this.statements.expiredDeletions.all(params).map((row) => ({
      scope: { partition: row.partition, instance: row.instance },
      id: row.message_id,
    }));
  }

  /** Drops every job record of an instance (after it was purged). */
  forgetInstance(scope: Scope): void {
    const { statements } = this;
    const params = scopeParams(scope);
    this.db
      .transaction(() => {
        for (const statement of statements.forgetInstance) statement.run(params);
      })
      .immediate();
  }
}

function filterParams(filter: ScopeFilter): FilterParams {
  return { partition: filter.partition ?? null, instance: filter.instance ?? null };
}

function toTopic(row: TopicRow): StoredTopic {
  return {
    id: row.id,
    partition: row.partition,
    instance: row.instance,
    label: row.label,
    summary: row.summary,
    summaryKind: row.summary_kind as SummaryKind,
    highlightIds: JSON.parse(row.highlight_ids) as string[],
    size: row.size,
    messages: row.live,
    centroid: toNumbers(decodeVector(row.centroid)),
    periodStart: row.period_start,
    periodEnd: row.period_end,
    updatedAt: row.updated_at,
  };
}

/** The columns of a topic as the topic job or an import writes it. */
export function toTopicRow(topic: TopicWrite): TopicColumns {
  return {
    id: topic.id,
    label: topic.label,
    summary: topic.summary,
    summary_kind: topic.summaryKind,
    highlight_ids: JSON.stringify(topic.highlightIds),
    size: topic.size,
    period_start: topic.periodStart,
    period_end: topic.periodEnd,
    updated_at: topic.updatedAt,
    centroid: encodeVector(topic.centroid),
  };
}

/** The columns of a period summary as the period job or an import writes it. */
export function toPeriodRow(summary: PeriodSummary): PeriodRow {
  return {
    granularity: summary.granularity,
    period: summary.period,
    start_time: summary.start,
    end_time: summary.end,
    messages: summary.messages,
    tokens: summary.tokens,
    user_messages: summary.userMessages,
    topics: JSON.stringify(summary.topics),
    summary: summary.summary,
    highlight_ids: JSON.stringify(summary.highlightIds),
    updated_at: summary.updatedAt,
  };
}

function toPeriodSummary(row: PeriodRow): PeriodSummary {
  return {
    granularity: row.granularity as PeriodSummary['granularity'],
    period: row.period,
    start: row.start_time,
    end: row.end_time,
    messages: row.messages,
    tokens: row.tokens,
    userMessages: row.user_messages,
    topics: JSON.parse(row.topics) as PeriodSummary['topics'],
    summary: row.summary,
    highlightIds: JSON.parse(row.highlight_ids) as string[],
    updatedAt: row.updated_at,
  };
}
