import type { StoredMessage, StoredToolCall, TurnRole } from '../types';

/** The message columns every read selects (never the embedding, which only vector code needs). */
export const MESSAGE_COLUMNS = `id, partition, instance, role, seq, timestamp, token_count, branch_tokens,
  content_hash, parent_id, model, trace_id, edited, deleted, is_chunk, chunk_index,
  chunk_parent_id, snippet, metadata, edit_history, content, raw`;

/** The tool-call columns every read selects. */
export const TOOL_CALL_COLUMNS = `id, partition, instance, message_id, call_id, tool_name, timestamp,
  token_count, duration_ms, arguments, result`;

/** A row of `messages` as MESSAGE_COLUMNS selects it. */
export interface MessageRow {
  id: string;
  partition: string;
  instance: string;
  role: TurnRole;
  seq: number;
  timestamp: number;
  token_count: number;
  branch_tokens: number;
  content_hash: string;
  parent_id: string | null;
  model: string | null;
  trace_id: string | null;
  edited: number;
  deleted: number;
  is_chunk: number;
  chunk_index: number | null;
  chunk_parent_id: string | null;
  snippet: string;
  metadata: string;
  edit_history: string;
  content: string;
  raw: string;
}

/** A row of `tool_calls` as TOOL_CALL_COLUMNS selects it. */
export interface ToolCallRow {
  id: string;
  partition: string;
  instance: string;
  message_id: string;
  call_id: string;
  tool_name: string;
  timestamp: number;
  token_count: number;
  duration_ms: number | null;
  arguments: string;
  result: string | null;
}

/** The one place a messages row becomes a StoredMessage (booleans, parsed JSON). */
export function toStoredMessage(row: MessageRow): StoredMessage {
  return {
    id: row.id,
    partition: row.partition,
    instance: row.instance,
    role: row.role,
    content: row.content,
    raw: JSON.parse(row.raw) as Record<string, unknown>,
    snippet: row.snippet,
    timestamp: row.timestamp,
    seq: row.seq,
    tokenCount: row.token_count,
    branchTokens: row.branch_tokens,
    contentHash: row.content_hash,
    parentId: row.parent_id,
    model: row.model,
    traceId: row.trace_id,
    metadata: JSON.parse(row.metadata) as Record<string, unknown>,
    edited: row.edited === 1,
    // 1: deleted on its own; 2: deleted with its instance (restored with it).
    deleted: row.deleted !== 0,
    editHistory: JSON.parse(row.edit_history) as StoredMessage['editHistory'],
    isChunk: row.is_chunk === 1,
    chunkIndex: row.chunk_index,
    chunkParentId: row.chunk_parent_id,
  };
}

/** The one place a tool_calls row becomes a StoredToolCall. */
export function toStoredToolCall(row: ToolCallRow): StoredToolCall {
  return {
    id: row.id,
    partition: row.partition,
    instance: row.instance,
    callId: row.call_id,
    toolName: row.tool_name,
    arguments: row.arguments,
    result: row.result,
    timestamp: row.timestamp,
    messageId: row.message_id,
    tokenCount: row.token_count,
    durationMs: row.duration_ms,
  };
}
