import type { GraphPageReader, InstanceCounter, MessageLink } from '../export-graph';
import { toMessageRecord, toToolCallRecord, type MessageRecord } from '../graph-record';
import { toPeriodSummaryRecord, toTopicRecord } from '../job-records';
import type { ExportFilter } from '../management-types';
import { compareText } from '../summarize-partitions';
import { scopeKey } from '../scope-key';
import type { Scope } from '../types';
import { getCoreMemory } from './key-value-queries';
import {
  projectMessage,
  projectToolCall,
  toNumber,
  toStoredMessage,
  toStoredToolCall,
} from './map-record';
import type { Neo4jRunner, Row } from './neo4j-runner';
import { integerParam, scopeParams } from './scope-params';
import { getJobCursor, getTopicIds, listPeriodSummaries, listTopics } from './topic-queries';

/** Period summaries an export reads per granularity: more than any instance holds. */
const ALL_PERIODS = Number.MAX_SAFE_INTEGER;

const MESSAGE_COLUMNS = `${projectMessage('m')} AS message,
  CASE WHEN $embeddings THEN m.embedding ELSE null END AS embedding,
  coalesce(m.deleted_with_instance, false) AS withInstance`;

/** Neo4j's pages of an export, read in the order exportGraph wants. */
export function neo4jGraphReader(runner: Neo4jRunner): GraphPageReader {
  return {
    scopes: (filter) => exportScopes(runner, filter),
    async turns(scope, page) {
      // Ordered by the whole (partition, instance, seq) index, so each page is an index range.
      const rows = await runner.read(
        `MATCH (m:Message {partition: $partition, instance: $instance})
         WHERE m.seq > $afterSeq AND m.is_chunk = false
         RETURN ${MESSAGE_COLUMNS}
         ORDER BY m.partition, m.instance, m.seq LIMIT $limit`,
        {
          afterSeq: integerParam(page.afterSeq),
          limit: integerParam(page.limit),
          embeddings: page.embeddings,
          ...scopeParams(scope),
        },
      );
      return rows.map(messageRecord);
    },
    async chunks(scope, page) {
      // Chunks have seq 0, so the scope's seq index finds them without reading its turns.
      const rows = await runner.read(
        `MATCH (m:Message {partition: $partition, instance: $instance, seq: 0})
         WHERE m.is_chunk = true AND m.id > $afterId
         RETURN ${MESSAGE_COLUMNS} ORDER BY m.id LIMIT $limit`,
        {
          afterId: page.afterId,
          limit: integerParam(page.limit),
          embeddings: page.embeddings,
          ...scopeParams(scope),
        },
      );
      return rows.map(messageRecord);
    },
    async toolCalls(scope, page) {
      const rows = await runner.read(
        `MATCH (t:ToolCall {partition: $partition, instance: $instance})
         WHERE t.message_id IS NOT NULL AND t.id > $afterId
         RETURN ${projectToolCall('t')} AS call, CASE WHEN $embeddings THEN t.embedding ELSE null END AS embedding
         ORDER BY t.id LIMIT $limit`,
        {
          afterId: page.afterId,
          limit: integerParam(page.limit),
          embeddings: page.embeddings,
          ...scopeParams(scope),
        },
      );
      return rows.map((row) =>
        toToolCallRecord(toStoredToolCall(row['call']), vector(row['embedding'])),
      );
    },
    async coreMemory(scope) {
      return (await getCoreMemory({ runner, scope })).map((block) => ({
        type: 'CoreMemory' as const,
        ...scopeParams(scope),
        name: block.name,
        content: block.content,
        token_count: block.tokenCount,
        updated_at: block.updatedAt,
      }));
    },
    async summaries(scope) {
      const rows = await runner.read(
        `MATCH (s:Summary {partition: $partition, instance: $instance})
         RETURN s.boundary_id AS boundaryId, s.content AS content, s.token_count AS tokenCount,
                s.turns AS turns, s.updated_at AS updatedAt
         ORDER BY boundaryId`,
        scopeParams(scope),
      );
      return rows.map((row) => ({
        type: 'Summary' as const,
        ...scopeParams(scope),
        boundary_id: String(row['boundaryId']),
        content: String(row['content']),
        token_count: toNumber(row['tokenCount']) ?? 0,
        turns: toNumber(row['turns']) ?? 0,
        updated_at: toNumber(row['updatedAt']) ?? 0,
      }));
    },
    async linksFrom(scope: Scope, ids: string[]): Promise<MessageLink[]> {
      const rows = await runner.read(
        `UNWIND $ids AS id
         MATCH (a:Message {id: id})-[link:REPLIES_TO|RESPONDED_WITH|SYNAPSE]->(b:Message)
         WHERE a.partition = $partition AND a.instance = $instance
           AND b.partition = $partition AND b.instance = $instance
         RETURN a.id AS fromId, type(link) AS type, b.id AS toId, link.score AS score`,
        { ids, ...scopeParams(scope) },
      );
      return rows.map((row) => ({
        type: row['type'] as MessageLink['type'],
        from: String(row['fromId']),
        to: String(row['toId']),
        score: row['type'] === 'SYNAPSE' ? (toNumber(row['score']) ?? 0) : null,
      }));
    },
    jobCursor: (scope, job) => getJobCursor({ runner, scope }, job),
    async topics(scope) {
      return (await listTopics({ runner, scope }))
        .map(toTopicRecord)
        .sort((a, b) => compareText(a.id, b.id));
    },
    async periodSummaries(scope) {
      const days = await listPeriodSummaries(
        { runner, scope },
        { granularity: 'day', limit: ALL_PERIODS },
      );
      const weeks = await listPeriodSummaries(
        { runner, scope },
        { granularity: 'week', limit: ALL_PERIODS },
      );
      return [...days, ...weeks].map((summary) => toPeriodSummaryRecord(scope, summary));
    },
    topicLinks: (scope, ids) => getTopicIds({ runner, scope }, ids),
  };
}

/** Instances with their counters, plus scopes that only hold core memory, filtered and by name. */
async function exportScopes(
  runner: Neo4jRunner,
  filter: ExportFilter,
): Promise<{ scope: Scope; instance: InstanceCounter | null }[]> {
  const params = {
    partition: filter.partition ?? null,
    instance: filter.partition === undefined ? null : (filter.instance ?? null),
  };
  const where =
    'WHERE ($partition IS NULL OR n.partition = $partition) AND ($instance IS NULL OR n.instance = $instance)';
  const counters = await runner.read(
    `MATCH (n:Instance) ${where}
     RETURN n.partition AS partition, n.instance AS instance, n.last_seq AS lastSeq, n.deleted_at AS deletedAt`,
    params,
  );
  const memories = await runner.read(
    `MATCH (n:CoreMemory) ${where} RETURN DISTINCT n.partition AS partition, n.instance AS instance`,
    params,
  );
  const scopes = new Map<string, { scope: Scope; instance: InstanceCounter | null }>();
  for (const row of [...counters, ...memories]) {
    const scope = { partition: String(row['partition']), instance: String(row['instance']) };
    const key = scopeKey(scope);
    if (scopes.has(key)) continue;
    const instance: InstanceCounter | null =
      row['lastSeq'] === undefined
        ? null
        : {
            type: 'Instance',
            ...scope,
            last_seq: toNumber(row['lastSeq']) ?? 0,
            deleted_at: toNumber(row['deletedAt']),
          };
    scopes.set(key, { scope, instance });
  }
  return [...scopes.values()].sort(
    (a, b) =>
      compareText(a.scope.partition, b.scope.partition) ||
      compareText(a.scope.instance, b.scope.instance),
  );
}

function messageRecord(row: Row): MessageRecord {
  return toMessageRecord(toStoredMessage(row['message']), {
    embedding: vector(row['embedding']),
    deletedWithInstance: row['withInstance'] === true,
  });
}

function vector(value: unknown): number[] | null {
  return Array.isArray(value) ? value.map((entry) => toNumber(entry) ?? 0) : null;
}
