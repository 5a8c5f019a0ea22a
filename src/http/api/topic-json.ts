import type { MaintenanceReport } from '../../memory/maintenance/maintenance-runner';
import type { PeriodSummary, StoredTopic } from '../../store/topic-types';

function iso(time: number): string {
  return new Date(time).toISOString();
}

/** A topic as the management API returns it (without its centre vector). */
export function topicJson(topic: StoredTopic) {
  return {
    object: 'memory.topic',
    id: topic.id,
    partition: topic.partition,
    instance: topic.instance,
    label: topic.label,
    summary: topic.summary,
    summary_kind: topic.summaryKind,
    highlight_ids: topic.highlightIds,
    messages: topic.messages,
    size: topic.size,
    period_start: iso(topic.periodStart),
    period_end: iso(topic.periodEnd),
    updated_at: iso(topic.updatedAt),
  };
}

/** A period summary as the management API returns it. */
export function periodJson(summary: PeriodSummary) {
  return {
    object: 'memory.period_summary',
    granularity: summary.granularity,
    period: summary.period,
    start: iso(summary.start),
    end: iso(summary.end),
    messages: summary.messages,
    user_messages: summary.userMessages,
    tokens: summary.tokens,
    topics: summary.topics,
    summary: summary.summary,
    highlight_ids: summary.highlightIds,
    updated_at: iso(summary.updatedAt),
  };
}

/** What a run of the background jobs did. */
export function maintenanceJson(report: MaintenanceReport) {
  return {
    object: 'memory.maintenance',
    completed: report.completed,
    orphans: report.orphans ?? null,
    retention: report.retention
      ? { soft_deleted: report.retention.softDeleted, purged: report.retention.purged }
      : null,
    topics: report.topics ?? null,
    periods: report.periods ?? null,
  };
}
