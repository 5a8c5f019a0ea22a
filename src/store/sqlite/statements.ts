import type Database from 'better-sqlite3';
import type { TurnRole } from '../types';
import { prepareEmbeddingStatements } from './embedding-statements';
import { prepareGraphStatements } from './graph-statements';
import { TOOL_CALL_COLUMNS, MESSAGE_COLUMNS, messageRows, type ToolCallRow } from './message-row';
import {
  IDS,
  IN_SCOPE,
  qualifiedColumns,
  SELECT_MESSAGES,
  SELECT_MESSAGES_BY_ID,
  SELECT_TOOL_CALLS,
  type ByIdParams,
  type ByIdsParams,
  type ScopeParams,
} from './scope-sql';

/** Parameters of a new messages row (booleans as 0/1, JSON as text). */
export interface InsertMessageParams extends ScopeParams {
  id: string;
  role: TurnRole;
  seq: number;
  timestamp: number;
  tokenCount: number;
  branchTokens: number;
  contentHash: string;
  parentId: string | null;
  model: string | null;
  traceId: string | null;
  isChunk: 0 | 1;
  chunkIndex: number | null;
  chunkParentId: string | null;
  snippet: string;
  metadata: string;
  content: string;
  raw: string;
}

/** Parameters of listMessages; absent filters are given as values that match everything. */
export interface ListParams extends ScopeParams {
  afterSeq: number;
  beforeSeq: number;
  fromTime: number;
  toTime: number;
  roles: string;
  includeDeleted: 0 | 1;
  limit: number;
}

const LIST_FILTER = `${SELECT_MESSAGES} AND is_chunk = 0
  AND seq > @afterSeq AND seq < @beforeSeq AND timestamp >= @fromTime AND timestamp < @toTime
  AND role IN (SELECT value FROM json_each(@roles)) AND (deleted = 0 OR @includeDeleted = 1)`;

/** Every statement of the store, prepared once per connection. */
export type Statements = ReturnType<typeof prepareStatements>;

/**
 * Turns a branch walk reads at most, deleted ones included: only a guard, as parents are older
 * than their children and a chain never loops.
 */
const MAX_BRANCH_DEPTH = 100_000_000;

/** MESSAGE_COLUMNS of a messages table aliased `m`. */
const MESSAGE_COLUMNS_OF_M = qualifiedColumns(MESSAGE_COLUMNS, 'm');

/** Prepares the store's statements on an open, migrated connection. */
export function prepareStatements(db: Database.Database) {
  return {
    ping: db.prepare<[], number>('SELECT 1').pluck(),
    turnEpoch: db.prepare<[], number>('SELECT epoch FROM turn_changes WHERE id = 1').pluck(),
    messageById: messageRows(db.prepare<ByIdParams, unknown[]>(`${SELECT_MESSAGES} AND id = @id`)),
    // The branch above a turn, leaf first, in one statement: a lookup per turn from JavaScript
    // cost ~1.7x the time (a call, its parameters and a row each). The walk stops at the scope's
    // edge, at a chunk, once `limit` live turns are in, or at MAX_BRANCH_DEPTH. The rows ride
    // along the walk: reading them again by key afterwards cost about what the lookups saved.
    branch: messageRows(
      db.prepare<ByIdParams & { limit: number }, unknown[]>(
        `WITH RECURSIVE chain AS (
           SELECT 0 AS depth, deleted = 0 AS live, ${MESSAGE_COLUMNS} FROM messages INDEXED BY messages_id
            WHERE id = @id AND ${IN_SCOPE} AND is_chunk = 0
           UNION ALL
           SELECT chain.depth + 1, chain.live + (m.deleted = 0), ${MESSAGE_COLUMNS_OF_M}
             FROM chain JOIN messages m INDEXED BY messages_id ON m.id = chain.parent_id
            WHERE m.partition = @partition AND m.instance = @instance AND m.is_chunk = 0
              AND chain.live < @limit AND chain.depth < ${MAX_BRANCH_DEPTH})
         SELECT ${MESSAGE_COLUMNS} FROM chain WHERE deleted = 0 ORDER BY depth`,
      ),
    ),
    messagesByIds: messageRows(
      db.prepare<ByIdsParams, unknown[]>(`${SELECT_MESSAGES_BY_ID} AND id IN (${IDS})`),
    ),
    existingChild: messageRows(
      db.prepare<
        ScopeParams & { parentId: string | null; role: TurnRole; contentHash: string },
        unknown[]
      >(
        `SELECT ${MESSAGE_COLUMNS} FROM messages INDEXED BY messages_scope_parent WHERE ${IN_SCOPE}
       AND parent_id IS @parentId AND content_hash = @contentHash
       AND role = @role AND deleted = 0 AND is_chunk = 0 ORDER BY seq LIMIT 1`,
      ),
    ),
    nextSeq: db
      .prepare<ScopeParams, number>(
        `INSERT INTO instance_counters (partition, instance, last_seq) VALUES (@partition, @instance, 1)
         ON CONFLICT (partition, instance) DO UPDATE SET last_seq = last_seq + 1 RETURNING last_seq`,
      )
      .pluck(),
    // No RETURNING: insertMessageRow builds the stored row from the values it was given, where
    // reading them back copied each turn's content twice more (3% of a loaded proxy's time).
    insertMessage: db.prepare<InsertMessageParams>(
      `INSERT INTO messages (id, partition, instance, role, seq, timestamp, token_count,
         branch_tokens, content_hash, parent_id, model, trace_id, is_chunk, chunk_index,
         chunk_parent_id, snippet, metadata, content, raw)
       VALUES (@id, @partition, @instance, @role, @seq, @timestamp, @tokenCount, @branchTokens,
         @contentHash, @parentId, @model, @traceId, @isChunk, @chunkIndex, @chunkParentId,
         @snippet, @metadata, @content, @raw)`,
    ),
    // Run after each insert into messages, in its transaction (schema.ts, messages_fts_queue).
    queueFullText: db.prepare<[number | bigint]>('INSERT INTO messages_fts_queue (pk) VALUES (?)'),
    latestTurn: messageRows(
      db.prepare<ScopeParams, unknown[]>(
        `${SELECT_MESSAGES} AND is_chunk = 0 AND deleted = 0 ORDER BY seq DESC LIMIT 1`,
      ),
    ),
    byHash: messageRows(
      db.prepare<ScopeParams & { contentHash: string; limit: number }, unknown[]>(
        `SELECT ${MESSAGE_COLUMNS} FROM messages INDEXED BY messages_scope_hash WHERE ${IN_SCOPE}
       AND content_hash = @contentHash AND is_chunk = 0 AND deleted = 0
       ORDER BY seq DESC LIMIT @limit`,
      ),
    ),
    children: messageRows(
      db.prepare<ScopeParams & { parentId: string }, unknown[]>(
        `SELECT ${MESSAGE_COLUMNS} FROM messages INDEXED BY messages_scope_parent WHERE ${IN_SCOPE}
       AND parent_id = @parentId AND is_chunk = 0 AND deleted = 0 ORDER BY seq`,
      ),
    ),
    listAscending: messageRows(
      db.prepare<ListParams, unknown[]>(`${LIST_FILTER} ORDER BY seq ASC LIMIT @limit`),
    ),
    listDescending: messageRows(
      db.prepare<ListParams, unknown[]>(`${LIST_FILTER} ORDER BY seq DESC LIMIT @limit`),
    ),
    count: db
      .prepare<ScopeParams, number>(
        `SELECT count(*) FROM messages WHERE ${IN_SCOPE} AND is_chunk = 0 AND deleted = 0`,
      )
      .pluck(),

    chunks: messageRows(
      db.prepare<ScopeParams & { parentId: string }, unknown[]>(
        `${SELECT_MESSAGES} AND chunk_parent_id = @parentId AND is_chunk = 1 ORDER BY chunk_index`,
      ),
    ),
    deleteChunkEdges: db.prepare<ScopeParams & { parentId: string }>(
      `DELETE FROM edges WHERE ${IN_SCOPE} AND (from_id IN (SELECT id FROM messages
         WHERE ${IN_SCOPE} AND chunk_parent_id = @parentId AND is_chunk = 1) OR to_id IN
         (SELECT id FROM messages WHERE ${IN_SCOPE} AND chunk_parent_id = @parentId AND is_chunk = 1))`,
    ),
    deleteChunks: db.prepare<ScopeParams & { parentId: string }>(
      `DELETE FROM messages WHERE ${IN_SCOPE} AND chunk_parent_id = @parentId AND is_chunk = 1`,
    ),

    insertToolCall: db.prepare<
      ScopeParams & {
        id: string;
        messageId: string;
        callId: string;
        toolName: string;
        timestamp: number;
        tokenCount: number;
        durationMs: number | null;
        arguments: string;
        result: string | null;
      },
      ToolCallRow
    >(
      // A call stored before its result was known (a client tool) gets the result later;
      // anything already stored stays as it was.
      `INSERT INTO tool_calls (id, partition, instance, message_id, call_id, tool_name, timestamp,
         token_count, duration_ms, arguments, result)
       VALUES (@id, @partition, @instance, @messageId, @callId, @toolName, @timestamp,
         @tokenCount, @durationMs, @arguments, @result)
       ON CONFLICT (message_id, call_id) DO UPDATE SET result = coalesce(result, excluded.result)
       RETURNING ${TOOL_CALL_COLUMNS}`,
    ),
    toolCallById: db.prepare<ByIdParams, ToolCallRow>(`${SELECT_TOOL_CALLS} AND id = @id`),
    toolCallsByMessage: db.prepare<ScopeParams & { messageId: string }, ToolCallRow>(
      `SELECT ${TOOL_CALL_COLUMNS} FROM tool_calls INDEXED BY tool_calls_message_call
        WHERE ${IN_SCOPE} AND message_id = @messageId ORDER BY timestamp, id`,
    ),

    ...prepareGraphStatements(db),
    ...prepareEmbeddingStatements(db),
    ...prepareKeyValueStatements(db),
  };
}

function prepareKeyValueStatements(db: Database.Database) {
  return {
    coreMemory: db.prepare<
      ScopeParams,
      { name: string; content: string; tokenCount: number; updatedAt: number }
    >(
      `SELECT name, content, token_count AS tokenCount, updated_at AS updatedAt
         FROM core_memory WHERE ${IN_SCOPE} ORDER BY name`,
    ),
    putCoreMemory: db.prepare<
      ScopeParams & { name: string; content: string; tokenCount: number; updatedAt: number }
    >(
      `INSERT INTO core_memory (partition, instance, name, content, token_count, updated_at)
       VALUES (@partition, @instance, @name, @content, @tokenCount, @updatedAt)
       ON CONFLICT (partition, instance, name) DO UPDATE SET content = excluded.content,
         token_count = excluded.token_count, updated_at = excluded.updated_at`,
    ),
    summary: db.prepare<
      ScopeParams & { boundaryId: string },
      { boundaryId: string; content: string; tokenCount: number; turns: number; updatedAt: number }
    >(
      `SELECT boundary_id AS boundaryId, content, token_count AS tokenCount, turns,
              updated_at AS updatedAt
         FROM summaries WHERE ${IN_SCOPE} AND boundary_id = @boundaryId`,
    ),
    summaryEpoch: db
      .prepare<ScopeParams, number>(`SELECT epoch FROM summary_epochs WHERE ${IN_SCOPE}`)
      .pluck(),
    putSummary: db.prepare<
      ScopeParams & {
        boundaryId: string;
        content: string;
        tokenCount: number;
        turns: number;
        updatedAt: number;
        epoch: number;
      }
    >(
      `INSERT INTO summaries (partition, instance, boundary_id, content, token_count, turns, updated_at)
       SELECT @partition, @instance, @boundaryId, @content, @tokenCount, @turns, @updatedAt
        WHERE coalesce((SELECT epoch FROM summary_epochs WHERE ${IN_SCOPE}), 0) = @epoch
          AND EXISTS (SELECT 1 FROM messages WHERE ${IN_SCOPE} AND id = @boundaryId AND deleted = 0)
       ON CONFLICT (partition, instance, boundary_id) DO UPDATE SET content = excluded.content,
         token_count = excluded.token_count, turns = excluded.turns, updated_at = excluded.updated_at`,
    ),
    meta: db.prepare<[string], string>('SELECT value FROM meta WHERE key = ?').pluck(),
    putMeta: db.prepare<[string, string]>(
      'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
    ),
  };
}
