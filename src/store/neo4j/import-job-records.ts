import type { PeriodSummaryRecord, TopicLinkRecord, TopicRecord } from '../graph-record';
import { fromPeriodSummaryRecord, fromTopicRecord } from '../job-records';
import { count, fail, type ImportState, type Indexed } from './import-state';
import { toNumber } from './map-record';
import type { Row } from './neo4j-runner';
import { periodProperties, topicProperties } from './topic-queries';

/**
 * Creates the topics of an import that are not stored yet, with the properties the topic job
 * writes; a topic id stored in another instance is an error.
 */
export async function importTopics(
  state: ImportState,
  records: Indexed<TopicRecord>[],
): Promise<void> {
  if (records.length === 0) return;
  const found = await state.transaction.run(
    `UNWIND $rows AS row
     OPTIONAL MATCH (t:Topic {id: row.id})
     RETURN row.index AS index, t.partition AS partition, t.instance AS instance`,
    { rows: records.map(({ index, record }) => ({ index, id: record.id })) },
  );
  const byIndex = new Map(found.map((row) => [toNumber(row['index']), row]));
  const seen = new Set<string>();
  const fresh: Row[] = [];
  for (const { index, record } of records) {
    const row = byIndex.get(index);
    if (typeof row?.['partition'] === 'string') {
      if (row['partition'] !== record.partition || row['instance'] !== record.instance) {
        fail(
          index,
          `topic ${record.id} already exists in ${row['partition']}/${String(row['instance'])}`,
        );
      }
      count(state, false);
      continue;
    }
    count(state, !seen.has(record.id));
    if (seen.has(record.id)) continue;
    seen.add(record.id);
    fresh.push({
      partition: record.partition,
      instance: record.instance,
      ...topicProperties(fromTopicRecord(record)),
    });
  }
  if (fresh.length > 0)
    await state.transaction.run('UNWIND $rows AS row CREATE (t:Topic) SET t = row', {
      rows: fresh,
    });
}

/** Creates the period summaries of an import whose period is not summarized yet. */
export async function importPeriodSummaries(
  state: ImportState,
  records: Indexed<PeriodSummaryRecord>[],
): Promise<void> {
  if (records.length === 0) return;
  const rows = records.map(({ index, record }) => ({
    index,
    key: {
      partition: record.partition,
      instance: record.instance,
      granularity: record.granularity,
      period: record.period,
    },
    properties: periodProperties(fromPeriodSummaryRecord(record)),
  }));
  const found = await state.transaction.run(
    `UNWIND $rows AS row
     OPTIONAL MATCH (s:PeriodSummary {partition: row.key.partition, instance: row.key.instance,
                                     granularity: row.key.granularity, period: row.key.period})
     RETURN row.index AS index, s IS NOT NULL AS existed`,
    { rows },
  );
  const existed = new Set(
    found.filter((row) => row['existed'] === true).map((row) => toNumber(row['index'])),
  );
  const seen = new Set<string>();
  for (const { index, key } of rows) {
    const batchKey = JSON.stringify(key);
    count(state, !existed.has(index) && !seen.has(batchKey));
    seen.add(batchKey);
  }
  await state.transaction.run(
    `UNWIND $rows AS row
     MERGE (s:PeriodSummary {partition: row.key.partition, instance: row.key.instance,
                             granularity: row.key.granularity, period: row.key.period})
     ON CREATE SET s += row.properties`,
    { rows },
  );
}

// Both ends of each link as they are now, and the topic the turn already belongs to.
const INSPECT_TOPIC_LINKS = `
UNWIND $rows AS row
OPTIONAL MATCH (m:Message {id: row.from})
OPTIONAL MATCH (t:Topic {id: row.to})
OPTIONAL MATCH (m)-[:BELONGS_TO]->(current:Topic)
RETURN row.index AS index, m.partition AS turnPartition, m.instance AS turnInstance,
       m.is_chunk AS isChunk, t.partition AS topicPartition, t.instance AS topicInstance,
       count(current) AS current`;

/**
 * Links turns to their topics: both must be stored in the record's instance; a turn that already
 * belongs to a topic keeps it, so each turn stays in one topic.
 */
export async function importTopicLinks(
  state: ImportState,
  records: Indexed<TopicLinkRecord>[],
): Promise<void> {
  if (records.length === 0) return;
  const found = await state.transaction.run(INSPECT_TOPIC_LINKS, {
    rows: records.map(({ index, record }) => ({ index, from: record.from, to: record.to })),
  });
  const byIndex = new Map(found.map((row) => [toNumber(row['index']), row]));
  const linked = new Set<string>();
  const fresh: Row[] = [];
  for (const { index, record } of records) {
    const row = byIndex.get(index) ?? {};
    const what = `BELONGS_TO from ${record.from} to ${record.to}`;
    const inScope = (partition: unknown, instance: unknown) =>
      partition === record.partition && instance === record.instance;
    if (!inScope(row['turnPartition'], row['turnInstance']) || row['isChunk'] !== false)
      fail(index, `${what}: ${record.from} must be a turn stored in this instance before it`);
    if (!inScope(row['topicPartition'], row['topicInstance']))
      fail(index, `${what}: topic ${record.to} must be stored in this instance before it`);
    const created = (toNumber(row['current']) ?? 0) === 0 && !linked.has(record.from);
    linked.add(record.from);
    count(state, created);
    if (created) fresh.push({ from: record.from, to: record.to });
  }
  if (fresh.length > 0) {
    await state.transaction.run(
      `UNWIND $rows AS row
       MATCH (m:Message {id: row.from}) MATCH (t:Topic {id: row.to})
       MERGE (m)-[:BELONGS_TO]->(t)`,
      { rows: fresh },
    );
  }
}
