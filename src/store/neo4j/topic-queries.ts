import type {
  CursorJob,
  PeriodQuery,
  PeriodSummary,
  StoredTopic,
  SummaryKind,
  TopicBatch,
  TopicSummaryUpdate,
  TopicWrite,
} from '../topic-types';
import type { StoredMessage } from '../types';
import { projectMessage, toNumber } from './map-record';
import { toMessages } from './message-queries';
import type { Row } from './neo4j-runner';
import { integerParam, lockInstance, scopeParams, type ScopedRunner } from './scope-params';

/** The Instance property holding each job's cursor (names from code, never from input). */
const CURSOR_PROPERTY: Record<CursorJob, string> = {
  topics: 'topics_cursor',
  periods: 'periods_cursor',
};

const UPSERT_TOPICS = `
UNWIND $topics AS row
MERGE (t:Topic {id: row.id})
ON CREATE SET t.partition = $partition, t.instance = $instance
WITH t, row WHERE t.partition = $partition AND t.instance = $instance
SET t.label = row.label, t.summary = row.summary, t.summary_kind = row.summary_kind,
    t.highlight_ids = row.highlight_ids, t.size = row.size, t.period_start = row.period_start, t.period_end = row.period_end,
    t.updated_at = row.updated_at, t.centroid = row.centroid`;

// A turn's earlier link goes, so each turn belongs to one topic however often the job runs.
const LINK_TOPICS = `
UNWIND $links AS link
MATCH (m:Message {id: link.messageId})
WHERE m.partition = $partition AND m.instance = $instance AND m.is_chunk = false
MATCH (t:Topic {id: link.topicId})
WHERE t.partition = $partition AND t.instance = $instance
WITH m, t, [(m)-[old:BELONGS_TO]->(other:Topic) WHERE other <> t | old] AS stale
FOREACH (old IN stale | DELETE old)
MERGE (m)-[:BELONGS_TO]->(t)`;

/** The topics of an instance with their live turn counts, largest first. */
export async function listTopics(scoped: ScopedRunner): Promise<StoredTopic[]> {
  const { runner, scope } = scoped;
  const rows = await runner.read(
    `MATCH (t:Topic {partition: $partition, instance: $instance})
     RETURN t {.*} AS topic,
            COUNT { MATCH (m:Message)-[:BELONGS_TO]->(t) WHERE m.deleted = false } AS live
     ORDER BY live DESC, t.id`,
    scopeParams(scope),
  );
  return rows.map(toTopic);
}

/** Writes one step of the topic job in one transaction, if the cursor is still `batch.after`. */
export async function saveTopicBatch(scoped: ScopedRunner, batch: TopicBatch): Promise<boolean> {
  const { runner, scope } = scoped;
  const params = scopeParams(scope);
  return runner.writeTransaction(async (transaction) => {
    // Under the instance's lock, so two processes running the job cannot both write a step.
    await lockInstance(transaction, scope);
    const rows = await transaction.run(
      `MATCH (i:Instance {partition: $partition, instance: $instance})
       RETURN i.${CURSOR_PROPERTY.topics} AS cursor`,
      params,
    );
    if ((toNumber(rows[0]?.['cursor']) ?? 0) !== batch.after) return false;
    if (batch.topics.length > 0) {
      await transaction.run(UPSERT_TOPICS, {
        topics: batch.topics.map(topicProperties),
        ...params,
      });
    }
    if (batch.links.length > 0)
      await transaction.run(LINK_TOPICS, { links: batch.links, ...params });
    await putCursor(transaction, { params, job: 'topics', cursor: batch.cursor });
    return true;
  });
}

/** Replaces the labels and summaries of topics. */
export async function setTopicSummaries(
  scoped: ScopedRunner,
  updates: TopicSummaryUpdate[],
): Promise<void> {
  const { runner, scope } = scoped;
  if (updates.length === 0) return;
  await runner.write(
    `UNWIND $updates AS row
     MATCH (t:Topic {id: row.id}) WHERE t.partition = $partition AND t.instance = $instance
     SET t.label = row.label, t.summary = row.summary, t.summary_kind = row.summaryKind,
         t.highlight_ids = row.highlightIds`,
    { updates, ...scopeParams(scope) },
  );
}

/** Live turns of a topic in seq order after a cursor. */
export async function listTopicMessages(
  scoped: ScopedRunner,
  input: { topicId: string; afterSeq?: number; limit: number },
): Promise<StoredMessage[]> {
  const { runner, scope } = scoped;
  const rows = await runner.read(
    `MATCH (m:Message)-[:BELONGS_TO]->(t:Topic {id: $topicId})
     WHERE t.partition = $partition AND t.instance = $instance
       AND m.partition = $partition AND m.instance = $instance
       AND m.deleted = false AND m.seq > $afterSeq
     RETURN ${projectMessage('m')} AS message ORDER BY m.seq LIMIT $limit`,
    {
      topicId: input.topicId,
      afterSeq: input.afterSeq ?? 0,
      limit: integerParam(input.limit),
      ...scopeParams(scope),
    },
  );
  return toMessages(rows);
}

/** The topic of each given turn that has one. */
export async function getTopicIds(
  scoped: ScopedRunner,
  ids: string[],
): Promise<Map<string, string>> {
  const { runner, scope } = scoped;
  if (ids.length === 0) return new Map();
  const rows = await runner.read(
    `UNWIND $ids AS id
     MATCH (m:Message {id: id})-[:BELONGS_TO]->(t:Topic)
     WHERE m.partition = $partition AND m.instance = $instance
     RETURN m.id AS messageId, t.id AS topicId`,
    { ids, ...scopeParams(scope) },
  );
  return new Map(rows.map((row) => [String(row['messageId']), String(row['topicId'])]));
}

/** The last seq a job finished in the instance. */
export async function getJobCursor(scoped: ScopedRunner, job: CursorJob): Promise<number> {
  const { runner, scope } = scoped;
  const rows = await runner.read(
    `MATCH (i:Instance {partition: $partition, instance: $instance})
     RETURN i.${CURSOR_PROPERTY[job]} AS cursor`,
    scopeParams(scope),
  );
  return toNumber(rows[0]?.['cursor']) ?? 0;
}

/** Stores period summaries (replacing those of the same periods) and the period job's cursor. */
export async function savePeriodSummaries(
  scoped: ScopedRunner,
  input: { summaries: PeriodSummary[]; cursor: number },
): Promise<void> {
  const { runner, scope } = scoped;
  const params = scopeParams(scope);
  await runner.writeTransaction(async (transaction) => {
    if (input.summaries.length > 0) {
      await transaction.run(
        `UNWIND $rows AS row
         MERGE (s:PeriodSummary {partition: $partition, instance: $instance,
                                 granularity: row.granularity, period: row.period})
         SET s += row`,
        {
          rows: input.summaries.map(periodProperties),
          ...params,
        },
      );
    }
    await putCursor(transaction, { params, job: 'periods', cursor: input.cursor });
  });
}

/** Period summaries of an instance, oldest first. */
export async function listPeriodSummaries(
  scoped: ScopedRunner,
  query: PeriodQuery,
): Promise<PeriodSummary[]> {
  const { runner, scope } = scoped;
  const rows = await runner.read(
    `MATCH (s:PeriodSummary {partition: $partition, instance: $instance, granularity: $granularity})
     WHERE s.end > $fromTime AND s.start < $toTime
     RETURN s {.*} AS summary ORDER BY s.start LIMIT $limit`,
    {
      granularity: query.granularity,
      fromTime: query.fromTime ?? Number.MIN_SAFE_INTEGER,
      toTime: query.toTime ?? Number.MAX_SAFE_INTEGER,
      limit: integerParam(query.limit),
      ...scopeParams(scope),
    },
  );
  return rows.map((row) => toPeriodSummary(row['summary'] as Row));
}

async function putCursor(
  transaction: { run(cypher: string, parameters?: Row): Promise<Row[]> },
  input: { params: { partition: string; instance: string }; job: CursorJob; cursor: number },
): Promise<void> {
  await transaction.run(
    `MERGE (i:Instance {partition: $partition, instance: $instance})
     ON CREATE SET i.last_seq = 0
     SET i.${CURSOR_PROPERTY[input.job]} = $cursor`,
    { cursor: integerParam(input.cursor), ...input.params },
  );
}

function toTopic(row: Row): StoredTopic {
  const topic = row['topic'] as Row;
  return {
    id: String(topic['id']),
    partition: String(topic['partition']),
    instance: String(topic['instance']),
    label: String(topic['label'] ?? ''),
    summary: String(topic['summary'] ?? ''),
    summaryKind: (topic['summary_kind'] ?? 'extractive') as SummaryKind,
    highlightIds: (topic['highlight_ids'] as string[] | null) ?? [],
    size: toNumber(topic['size']) ?? 0,
    messages: toNumber(row['live']) ?? 0,
    centroid: (topic['centroid'] as number[] | null) ?? [],
    periodStart: toNumber(topic['period_start']) ?? 0,
    periodEnd: toNumber(topic['period_end']) ?? 0,
    updatedAt: toNumber(topic['updated_at']) ?? 0,
  };
}

function toPeriodSummary(node: Row): PeriodSummary {
  return {
    granularity: String(node['granularity']) as PeriodSummary['granularity'],
    period: String(node['period']),
    start: toNumber(node['start']) ?? 0,
    end: toNumber(node['end']) ?? 0,
    messages: toNumber(node['messages']) ?? 0,
    tokens: toNumber(node['tokens']) ?? 0,
    userMessages: toNumber(node['user_messages']) ?? 0,
    topics: JSON.parse(String(node['topics'] ?? '[]')) as PeriodSummary['topics'],
    summary: String(node['summary'] ?? ''),
    highlightIds: (node['highlight_ids'] as string[] | null) ?? [],
    updatedAt: toNumber(node['updated_at']) ?? 0,
  };
}

/** The properties of a Topic node besides its scope, as the topic job or an import writes them. */
export function topicProperties(topic: TopicWrite): Record<string, unknown> {
  return {
    id: topic.id,
    label: topic.label,
    summary: topic.summary,
    summary_kind: topic.summaryKind,
    highlight_ids: topic.highlightIds,
    size: integerParam(topic.size),
    period_start: topic.periodStart,
    period_end: topic.periodEnd,
    updated_at: topic.updatedAt,
    centroid: topic.centroid,
  };
}

/** The properties of a PeriodSummary node besides its scope, as the period job or an import writes them. */
export function periodProperties(summary: PeriodSummary): Record<string, unknown> {
  return {
    granularity: summary.granularity,
    period: summary.period,
    start: summary.start,
    end: summary.end,
    messages: integerParam(summary.messages),
    tokens: integerParam(summary.tokens),
    user_messages: integerParam(summary.userMessages),
    topics: JSON.stringify(summary.topics),
    summary: summary.summary,
    highlight_ids: summary.highlightIds,
    updated_at: summary.updatedAt,
  };
}
