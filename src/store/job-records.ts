import type { PeriodSummaryRecord, TopicRecord } from './graph-record';
import type { PeriodSummary, StoredTopic, TopicWrite } from './topic-types';
import type { Scope } from './types';

/** A stored topic as an export record (its live count left out: the BELONGS_TO links tell it). */
export function toTopicRecord(topic: StoredTopic): TopicRecord {
  return {
    type: 'Topic',
    partition: topic.partition,
    instance: topic.instance,
    id: topic.id,
    label: topic.label,
    summary: topic.summary,
    summary_kind: topic.summaryKind,
    highlight_ids: [...topic.highlightIds],
    size: topic.size,
    centroid: topic.centroid,
    period_start: topic.periodStart,
    period_end: topic.periodEnd,
    updated_at: topic.updatedAt,
  };
}

/** The topic a record describes, as the topic job writes one. */
export function fromTopicRecord(record: TopicRecord): TopicWrite {
  return {
    id: record.id,
    label: record.label,
    summary: record.summary,
    summaryKind: record.summary_kind,
    highlightIds: record.highlight_ids,
    size: record.size,
    centroid: record.centroid,
    periodStart: record.period_start,
    periodEnd: record.period_end,
    updatedAt: record.updated_at,
  };
}

/** A stored period summary as an export record. */
export function toPeriodSummaryRecord(scope: Scope, summary: PeriodSummary): PeriodSummaryRecord {
  return {
    type: 'PeriodSummary',
    partition: scope.partition,
    instance: scope.instance,
    granularity: summary.granularity,
    period: summary.period,
    start: summary.start,
    end: summary.end,
    messages: summary.messages,
    tokens: summary.tokens,
    user_messages: summary.userMessages,
    topics: summary.topics.map((topic) => ({
      id: topic.id,
      label: topic.label,
      messages: topic.messages,
    })),
    summary: summary.summary,
    highlight_ids: [...summary.highlightIds],
    updated_at: summary.updatedAt,
  };
}

/** The period summary a record describes. */
export function fromPeriodSummaryRecord(record: PeriodSummaryRecord): PeriodSummary {
  return {
    granularity: record.granularity,
    period: record.period,
    start: record.start,
    end: record.end,
    messages: record.messages,
    tokens: record.tokens,
    userMessages: record.user_messages,
    topics: record.topics,
    summary: record.summary,
    highlightIds: record.highlight_ids,
    updatedAt: record.updated_at,
  };
}
