import type { InstanceSummary, StoreStats } from '../management-types';
import { toNumber } from './map-record';
import type { Neo4jRunner } from './neo4j-runner';

/** Instances of a partition (of every partition when absent) with their figures, by name. */
export async function listInstances(
  runner: Neo4jRunner,
  partition?: string,
): Promise<InstanceSummary[]> {
  // The subquery seeks each instance's turns through the (partition, instance, seq) index.
  const rows = await runner.read(
    `MATCH (i:Instance) WHERE $partition IS NULL OR i.partition = $partition
     CALL (i) {
       OPTIONAL MATCH (m:Message {partition: i.partition, instance: i.instance})
       WHERE m.seq > 0 AND m.is_chunk = false
       RETURN sum(CASE WHEN m.deleted = false THEN 1 ELSE 0 END) AS messages,
              sum(CASE WHEN m.deleted = true THEN 1 ELSE 0 END) AS deletedMessages,
              sum(CASE WHEN m.deleted = false THEN m.token_count ELSE 0 END) AS tokens,
              min(m.timestamp) AS firstActivity, max(m.timestamp) AS lastActivity
     }
     RETURN i.partition AS partition, i.instance AS instance, i.last_seq AS lastSeq,
            i.deleted_at AS deletedAt, messages, deletedMessages, tokens, firstActivity, lastActivity
     ORDER BY partition, instance`,
    { partition: partition ?? null },
  );
  return rows.map((row) => ({
    partition: String(row['partition']),
    instance: String(row['instance']),
    messages: toNumber(row['messages']) ?? 0,
    deletedMessages: toNumber(row['deletedMessages']) ?? 0,
    tokens: toNumber(row['tokens']) ?? 0,
    firstActivity: toNumber(row['firstActivity']),
    lastActivity: toNumber(row['lastActivity']),
    lastSeq: toNumber(row['lastSeq']) ?? 0,
    deletedAt: toNumber(row['deletedAt']),
  }));
}

/** Store-wide figures; Neo4j tells no size in bytes without plugins, so sizeBytes is null. */
export async function storeStats(runner: Neo4jRunner, since: number): Promise<StoreStats> {
  const number = (rows: Record<string, unknown>[], key: string) => toNumber(rows[0]?.[key]) ?? 0;
  const instances = await runner.read(
    'MATCH (i:Instance) RETURN count(i) AS instances, count(DISTINCT i.partition) AS partitions',
  );
  const live = await runner.read(
    `MATCH (m:Message) WHERE m.is_chunk = false AND m.deleted = false
     RETURN count(m) AS messages, sum(m.token_count) AS tokens`,
  );
  const recent = await runner.read(
    `MATCH (m:Message) WHERE m.is_chunk = false AND m.timestamp >= $since
     RETURN count(m) AS messages, count(DISTINCT [m.partition, m.instance]) AS instances`,
    { since },
  );
  // Both counts come from the count store, without reading the graph.
  const calls = await runner.read('MATCH (t:ToolCall) RETURN count(t) AS count');
  const nodes = await runner.read('MATCH (n) RETURN count(n) AS count');
  const relationships = await runner.read('MATCH ()-[r]->() RETURN count(r) AS count');
  return {
    kind: 'neo4j',
    partitions: number(instances, 'partitions'),
    instances: number(instances, 'instances'),
    activeInstances: number(recent, 'instances'),
    messages: number(live, 'messages'),
    tokens: number(live, 'tokens'),
    messagesSince: number(recent, 'messages'),
    toolCalls: number(calls, 'count'),
    sizeBytes: null,
    nodes: number(nodes, 'count'),
    relationships: number(relationships, 'count'),
  };
}
