import { toNumbers } from '../../lists';
import type { GraphPageReader } from '../export-graph';
import { toMessageRecord, toToolCallRecord, type MessageRecord } from '../graph-record';
import { toPeriodSummaryRecord, toTopicRecord } from '../job-records';
import { compareText } from '../summarize-partitions';
import type { Scope } from '../types';
import {
  DELETED_WITH_INSTANCE,
  type AdminStatements,
  type MessageRowWithVector,
} from './admin-statements';
import type { SqliteMaintenance } from './maintenance-records';
import { toStoredMessage, toStoredToolCall } from './message-row';
import { scopeParams } from './scope-sql';
import type { Statements } from './statements';
import { decodeVector } from '../vector-codec';

/** Period summaries an export reads per granularity: more than any instance holds. */
const ALL_PERIODS = Number.MAX_SAFE_INTEGER;

/** The embedded store's pages of an export: rows of the scope in the order exportGraph wants. */
export function sqliteGraphReader(
  statements: Statements,
  admin: AdminStatements,
  maintenance: SqliteMaintenance,
): GraphPageReader {
  return {
    async scopes(filter) {
      const rows = admin.exportScopes.all({
        partition: filter.partition ?? null,
        instance: filter.partition === undefined ? null : (filter.instance ?? null),
      });
      return rows.map((row) => ({
        scope: scopeParams(row),
        instance:
          row.lastSeq === null
            ? null
            : {
                type: 'Instance',
                ...scopeParams(row),
                last_seq: row.lastSeq,
                deleted_at: row.deletedAt,
              },
      }));
    },
    async turns(scope, page) {
      const rows = admin.turnPage.all({
        afterSeq: page.afterSeq,
        limit: page.limit,
        ...scopeParams(scope),
      });
      return rows.map((row) => messageRecord(row, page.embeddings));
    },
    async chunks(scope, page) {
      const rows = admin.chunkPage.all({
        afterId: page.afterId,
        limit: page.limit,
        ...scopeParams(scope),
      });
      return rows.map((row) => messageRecord(row, page.embeddings));
    },
    async toolCalls(scope, page) {
      const rows = admin.toolCallPage.all({
        afterId: page.afterId,
        limit: page.limit,
        ...scopeParams(scope),
      });
      return rows.map((row) =>
        toToolCallRecord(toStoredToolCall(row), vector(row.embedding, page.embeddings)),
      );
    },
    async coreMemory(scope) {
      return statements.coreMemory.all(scopeParams(scope)).map((block) => ({
        type: 'CoreMemory' as const,
        ...scopeParams(scope),
        name: block.name,
        content: block.content,
        token_count: block.tokenCount,
        updated_at: block.updatedAt,
      }));
    },
    async summaries(scope) {
      return admin.summaries.all(scopeParams(scope)).map((summary) => ({
        type: 'Summary' as const,
        ...scopeParams(scope),
        boundary_id: summary.boundaryId,
        content: summary.content,
        token_count: summary.tokenCount,
        turns: summary.turns,
        updated_at: summary.updatedAt,
      }));
    },
    async linksFrom(scope: Scope, ids: string[]) {
      const params = { ids: JSON.stringify(ids), ...scopeParams(scope) };
      return [
        ...admin.parentsOf
          .all(params)
          .map((row) => ({ type: 'REPLIES_TO' as const, ...row, score: null })),
        ...admin.edgesFrom.all(params).map((row) => ({
          type: row.type,
          from: row.from,
          to: row.to,
          score: row.type === 'SYNAPSE' ? row.score : null,
        })),
      ];
    },
    async jobCursor(scope, job) {
      return maintenance.getJobCursor(scope, job);
    },
    async topics(scope) {
      return maintenance
        .listTopics(scope)
        .map(toTopicRecord)
        .sort((a, b) => compareText(a.id, b.id));
    },
    async periodSummaries(scope) {
      return (['day', 'week'] as const).flatMap((granularity) =>
        maintenance
          .listPeriodSummaries(scope, { granularity, limit: ALL_PERIODS })
          .map((summary) => toPeriodSummaryRecord(scope, summary)),
      );
    },
    async topicLinks(scope, ids) {
      return maintenance.getTopicIds(scope, ids);
    },
  };
}

function messageRecord(row: MessageRowWithVector, embeddings: boolean): MessageRecord {
  return toMessageRecord(toStoredMessage(row), {
    embedding: vector(row.embedding, embeddings),
    deletedWithInstance: row.deleted === DELETED_WITH_INSTANCE,
  });
}

function vector(blob: Uint8Array | null, wanted: boolean): number[] | null {
  return wanted && blob !== null ? toNumbers(decodeVector(blob)) : null;
}
