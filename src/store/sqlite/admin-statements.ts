import type Database from 'better-sqlite3';
import {
  MESSAGE_COLUMNS,
  TOOL_CALL_COLUMNS,
  type MessageRow,
  type ToolCallRow,
} from './message-row';
import { IDS, IN_SCOPE, type ByIdParams, type ByIdsParams, type ScopeParams } from './scope-sql';

/**
 * `messages.deleted` of a turn deleted together with its instance: still deleted for every
 * `deleted = 0` filter, but restored when the instance is, unlike a turn deleted on its own (1).
 */
export const DELETED_WITH_INSTANCE = 2;

/** Soft deletion of whole instances, created by the schema migration (schema.ts). */
export const INSTANCE_STATES_SCHEMA = `CREATE TABLE IF NOT EXISTS instance_states (
  partition TEXT NOT NULL,
  instance TEXT NOT NULL,
  deleted_at INTEGER,
  PRIMARY KEY (partition, instance)
) STRICT, WITHOUT ROWID;`;

/** A messages row with its embedding, as exports and forks read it. */
export type MessageRowWithVector = MessageRow & { embedding: Uint8Array | null };
/** A tool_calls row with its embedding. */
export type ToolCallRowWithVector = ToolCallRow & { embedding: Uint8Array | null };

/** A row of the instance listing. */
export interface InstanceRow {
  partition: string;
  instance: string;
  lastSeq: number;
  deletedAt: number | null;
  messages: number;
  deletedMessages: number;
  tokens: number;
  firstActivity: number | null;
  lastActivity: number | null;
}

/** Statements of the management API, prepared once per connection. */
export type AdminStatements = ReturnType<typeof prepare>;

const cache = new WeakMap<Database.Database, AdminStatements>();

/** The management statements of a connection, prepared on first use. */
export function adminStatements(db: Database.Database): AdminStatements {
  let statements = cache.get(db);
  if (!statements) {
    statements = prepare(db);
    cache.set(db, statements);
  }
  return statements;
}

function listInstancesSql(byPartition: boolean): string {
  const where = byPartition ? 'WHERE partition = @partition' : '';
  const and = byPartition ? 'AND partition = @partition' : '';
  return `SELECT c.partition AS partition, c.instance AS instance, c.last_seq AS lastSeq,
      s.deleted_at AS deletedAt, coalesce(t.messages, 0) AS messages,
      coalesce(t.deletedMessages, 0) AS deletedMessages, coalesce(t.tokens, 0) AS tokens,
      t.firstActivity AS firstActivity, t.lastActivity AS lastActivity
    FROM (SELECT * FROM instance_counters ${where}) c
    LEFT JOIN (SELECT partition, instance, sum(deleted = 0) AS messages,
        sum(deleted <> 0) AS deletedMessages,
        sum(CASE WHEN deleted = 0 THEN token_count ELSE 0 END) AS tokens,
        min(timestamp) AS firstActivity, max(timestamp) AS lastActivity
      FROM messages WHERE is_chunk = 0 ${and} GROUP BY partition, instance) t
      ON t.partition = c.partition AND t.instance = c.instance
    LEFT JOIN instance_states s ON s.partition = c.partition AND s.instance = c.instance
    ORDER BY c.partition, c.instance`;
}

function prepare(db: Database.Database) {
  return {
    listAllInstances: db.prepare<[], InstanceRow>(listInstancesSql(false)),
    listPartitionInstances: db.prepare<{ partition: string }, InstanceRow>(listInstancesSql(true)),
    counter: db
      .prepare<ScopeParams, number>(`SELECT last_seq FROM instance_counters WHERE ${IN_SCOPE}`)
      .pluck(),
    totals: db.prepare<
      [],
      { partitions: number; instances: number; messages: number; tokens: number; toolCalls: number }
    >(
      `SELECT (SELECT count(DISTINCT partition) FROM instance_counters) AS partitions,
              (SELECT count(*) FROM instance_counters) AS instances,
              (SELECT count(*) FROM messages WHERE is_chunk = 0 AND deleted = 0) AS messages,
              (SELECT coalesce(sum(token_count), 0) FROM messages WHERE is_chunk = 0 AND deleted = 0) AS tokens,
              (SELECT count(*) FROM tool_calls) AS toolCalls`,
    ),
    recent: db.prepare<{ since: number }, { activeInstances: number; messagesSince: number }>(
      `SELECT count(DISTINCT partition || char(0) || instance) AS activeInstances, count(*) AS messagesSince
         FROM messages WHERE is_chunk = 0 AND timestamp >= @since`,
    ),
    // Nodes and relationships as the graph model counts them: parent_id, chunk_parent_id and
    // message_id columns stand for REPLIES_TO, CHUNK_OF and CALLED_BY.
    graphSize: db.prepare<[], { nodes: number; relationships: number }>(
      `SELECT (SELECT count(*) FROM messages) + (SELECT count(*) FROM tool_calls)
                + (SELECT count(*) FROM instance_counters) + (SELECT count(*) FROM core_memory)
                + (SELECT count(*) FROM summaries) AS nodes,
              (SELECT count(*) FROM edges) + (SELECT count(*) FROM tool_calls)
                + (SELECT count(*) FROM messages WHERE parent_id IS NOT NULL OR is_chunk = 1) AS relationships`,
    ),

    editTurn: db.prepare<
      ByIdParams & {
        content: string;
        raw: string;
        contentHash: string;
        tokenCount: number;
        delta: number;
        snippet: string;
        history: string;
      },
      MessageRow
    >(
      `UPDATE messages SET content = @content, raw = @raw, content_hash = @contentHash,
         token_count = @tokenCount, branch_tokens = branch_tokens + @delta, snippet = @snippet,
         edited = 1, edit_history = @history, embedding = NULL
       WHERE ${IN_SCOPE} AND id = @id RETURNING ${MESSAGE_COLUMNS}`,
    ),
    // Branch token totals of every turn below one whose tokens changed.
    shiftDescendants: db.prepare<ByIdParams & { delta: number }>(
      `WITH RECURSIVE below (id) AS (
         SELECT id FROM messages INDEXED BY messages_scope_parent WHERE ${IN_SCOPE} AND parent_id = @id
         UNION ALL
         SELECT child.id FROM messages AS child INDEXED BY messages_scope_parent JOIN below
           ON child.parent_id = below.id
          WHERE child.partition = @partition AND child.instance = @instance)
       UPDATE messages SET branch_tokens = branch_tokens + @delta
        WHERE ${IN_SCOPE} AND id IN (SELECT id FROM below)`,
    ),
    deleteSynapsesFrom: db.prepare<ByIdParams>(
      `DELETE FROM edges WHERE type = 'SYNAPSE' AND from_id = @id AND ${IN_SCOPE}`,
    ),
    deleteSynapsesTo: db.prepare<ByIdParams>(
      `DELETE FROM edges WHERE type = 'SYNAPSE' AND to_id = @id AND ${IN_SCOPE}`,
    ),
    deleteSummaries: db.prepare<ScopeParams>(`DELETE FROM summaries WHERE ${IN_SCOPE}`),
    bumpSummaryEpoch: db.prepare<ScopeParams>(
      `INSERT INTO summary_epochs (partition, instance, epoch) VALUES (@partition, @instance, 1)
       ON CONFLICT (partition, instance) DO UPDATE SET epoch = epoch + 1`,
    ),
    setTurnDeleted: db.prepare<ByIdParams & { deleted: number }>(
      `UPDATE messages SET deleted = @deleted WHERE ${IN_SCOPE} AND id = @id`,
    ),
    setChunksDeleted: db.prepare<ByIdParams & { deleted: number }>(
      `UPDATE messages SET deleted = @deleted
        WHERE chunk_parent_id = @id AND is_chunk = 1 AND ${IN_SCOPE}`,
    ),
    deleteInstanceTurns: db.prepare<ScopeParams>(
      `UPDATE messages SET deleted = ${DELETED_WITH_INSTANCE} WHERE ${IN_SCOPE} AND deleted = 0`,
    ),
    restoreInstanceTurns: db.prepare<ScopeParams>(
      `UPDATE messages SET deleted = 0 WHERE ${IN_SCOPE} AND deleted = ${DELETED_WITH_INSTANCE}`,
    ),
    putInstanceState: db.prepare<ScopeParams & { deletedAt: number | null }>(
      `INSERT INTO instance_states (partition, instance, deleted_at) VALUES (@partition, @instance, @deletedAt)
       ON CONFLICT (partition, instance) DO UPDATE SET deleted_at = excluded.deleted_at`,
    ),

    reparentChildren: db.prepare<ByIdParams & { parentId: string | null }>(
      `UPDATE messages SET parent_id = @parentId WHERE ${IN_SCOPE} AND parent_id = @id AND is_chunk = 0`,
    ),
    deleteEdgesFrom: db.prepare<ByIdParams>(
      `DELETE FROM edges WHERE from_id = @id AND ${IN_SCOPE}`,
    ),
    deleteEdgesTo: db.prepare<ByIdParams>(`DELETE FROM edges WHERE to_id = @id AND ${IN_SCOPE}`),
    deleteToolCallsOf: db.prepare<ByIdParams>(
      `DELETE FROM tool_calls WHERE message_id = @id AND ${IN_SCOPE}`,
    ),
    deleteMessage: db.prepare<ByIdParams>(`DELETE FROM messages WHERE ${IN_SCOPE} AND id = @id`),
    deleteInstanceEdges: db.prepare<ScopeParams>(
      `DELETE FROM edges WHERE from_id IN (SELECT id FROM messages WHERE ${IN_SCOPE}) AND ${IN_SCOPE}`,
    ),
    deleteInstanceToolCalls: db.prepare<ScopeParams>(`DELETE FROM tool_calls WHERE ${IN_SCOPE}`),
    deleteInstanceMessages: db.prepare<ScopeParams>(`DELETE FROM messages WHERE ${IN_SCOPE}`),
    deleteInstanceRest: [
      db.prepare<ScopeParams>(`DELETE FROM core_memory WHERE ${IN_SCOPE}`),
      db.prepare<ScopeParams>(`DELETE FROM summaries WHERE ${IN_SCOPE}`),
      db.prepare<ScopeParams>(`DELETE FROM summary_epochs WHERE ${IN_SCOPE}`),
      db.prepare<ScopeParams>(`DELETE FROM instance_counters WHERE ${IN_SCOPE}`),
      db.prepare<ScopeParams>(`DELETE FROM instance_states WHERE ${IN_SCOPE}`),
    ],

    ...prepareExportStatements(db),
  };
}

function prepareExportStatements(db: Database.Database) {
  return {
    exportScopes: db.prepare<
      { partition: string | null; instance: string | null },
      ScopeParams & { lastSeq: number | null; deletedAt: number | null }
    >(
      `SELECT partition, instance, max(lastSeq) AS lastSeq, max(deletedAt) AS deletedAt FROM (
         SELECT c.partition, c.instance, c.last_seq AS lastSeq, s.deleted_at AS deletedAt
           FROM instance_counters c LEFT JOIN instance_states s
             ON s.partition = c.partition AND s.instance = c.instance
         UNION ALL
         SELECT DISTINCT partition, instance, NULL, NULL FROM core_memory)
       WHERE (@partition IS NULL OR partition = @partition) AND (@instance IS NULL OR instance = @instance)
       GROUP BY partition, instance ORDER BY partition, instance`,
    ),
    turnPage: db.prepare<ScopeParams & { afterSeq: number; limit: number }, MessageRowWithVector>(
      `SELECT ${MESSAGE_COLUMNS}, embedding FROM messages INDEXED BY messages_scope_seq
        WHERE ${IN_SCOPE} AND seq > @afterSeq AND is_chunk = 0 ORDER BY seq LIMIT @limit`,
    ),
    // Chunks have seq 0, so the scope's seq index finds them without reading its turns.
    chunkPage: db.prepare<ScopeParams & { afterId: string; limit: number }, MessageRowWithVector>(
      `SELECT ${MESSAGE_COLUMNS}, embedding FROM messages INDEXED BY messages_scope_seq
        WHERE ${IN_SCOPE} AND seq = 0 AND is_chunk = 1 AND id > @afterId ORDER BY id LIMIT @limit`,
    ),
    toolCallPage: db.prepare<
      ScopeParams & { afterId: string; limit: number },
      ToolCallRowWithVector
    >(
      `SELECT ${TOOL_CALL_COLUMNS}, embedding FROM tool_calls
        WHERE ${IN_SCOPE} AND id > @afterId ORDER BY id LIMIT @limit`,
    ),
    summaries: db.prepare<
      ScopeParams,
      { boundaryId: string; content: string; tokenCount: number; turns: number; updatedAt: number }
    >(
      `SELECT boundary_id AS boundaryId, content, token_count AS tokenCount, turns, updated_at AS updatedAt
         FROM summaries WHERE ${IN_SCOPE} ORDER BY boundary_id`,
    ),
    parentsOf: db.prepare<ByIdsParams, { from: string; to: string }>(
      `SELECT id AS "from", parent_id AS "to" FROM messages INDEXED BY messages_id
        WHERE ${IN_SCOPE} AND id IN (${IDS}) AND parent_id IS NOT NULL`,
    ),
    edgesFrom: db.prepare<
      ByIdsParams,
      { type: 'RESPONDED_WITH' | 'SYNAPSE'; from: string; to: string; score: number }
    >(
      `SELECT type, from_id AS "from", to_id AS "to", score FROM edges
        WHERE from_id IN (${IDS}) AND ${IN_SCOPE}`,
    ),
  };
}
