import type Database from 'better-sqlite3';
import type { VectorRow } from './collect-nearest';
import { IDS, IN_SCOPE, type ByIdParams, type ByIdsParams, type ScopeParams } from './scope-sql';

// Tool calls have no deleted flag of their own: they go when the turn that made them goes.
const CALLER_NOT_DELETED = `NOT EXISTS (SELECT 1 FROM messages INDEXED BY messages_id
  WHERE messages.id = tool_calls.message_id AND messages.deleted <> 0)`;

/** Statements of embeddings and vector scans. */
export function prepareEmbeddingStatements(db: Database.Database) {
  return {
    // The pk tells the scope's in-memory vector index which row got the vector.
    setMessageEmbedding: db
      .prepare<ByIdParams & { vector: Buffer; contentHash: string | null }, number>(
        `UPDATE messages SET embedding = @vector WHERE ${IN_SCOPE} AND id = @id
           AND (@contentHash IS NULL OR content_hash = @contentHash) RETURNING pk`,
      )
      .pluck(),
    setToolCallEmbedding: db.prepare<ByIdParams & { vector: Buffer }>(
      `UPDATE tool_calls SET embedding = @vector WHERE ${IN_SCOPE} AND id = @id`,
    ),
    embeddingsByIds: db
      .prepare<ByIdsParams, VectorRow>(
        `SELECT id, embedding FROM messages INDEXED BY messages_id
          WHERE ${IN_SCOPE} AND id IN (${IDS}) AND embedding IS NOT NULL`,
      )
      .raw(),
    messageVectors: db
      .prepare<ScopeParams, VectorRow>(
        `SELECT id, embedding FROM messages
          WHERE ${IN_SCOPE} AND deleted = 0 AND embedding IS NOT NULL`,
      )
      .raw(),
    toolCallVectors: db
      .prepare<ScopeParams, VectorRow>(
        `SELECT id, embedding FROM tool_calls
          WHERE ${IN_SCOPE} AND embedding IS NOT NULL AND ${CALLER_NOT_DELETED}`,
      )
      .raw(),
    // Turns without text (an assistant turn that only calls tools) have nothing to embed.
    pendingMessages: db.prepare<
      { limit: number },
      { partition: string; instance: string; id: string; content: string }
    >(
      `SELECT partition, instance, id, content FROM messages
        WHERE embedding IS NULL AND deleted = 0 AND content <> '' ORDER BY pk LIMIT @limit`,
    ),
    pendingToolCalls: db.prepare<
      { limit: number },
      ScopeParams & { id: string; toolName: string; arguments: string; result: string | null }
    >(
      `SELECT partition, instance, id, tool_name AS toolName, arguments, result FROM tool_calls
        WHERE embedding IS NULL AND ${CALLER_NOT_DELETED} ORDER BY pk LIMIT @limit`,
    ),
    clearMessageEmbeddings: db.prepare(
      'UPDATE messages SET embedding = NULL WHERE embedding IS NOT NULL',
    ),
    clearToolCallEmbeddings: db.prepare(
      'UPDATE tool_calls SET embedding = NULL WHERE embedding IS NOT NULL',
    ),
  };
}
