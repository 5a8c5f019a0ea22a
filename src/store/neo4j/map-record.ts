import { int, isInt } from 'neo4j-driver';
import type { Integer } from 'neo4j-driver';
import type { StoredMessage, StoredToolCall, TurnRole } from '../types';

/**
 * The properties toStoredMessage reads, named one by one: `.*` would read every property,
 * the embedding too (384 floats from the array store per turn, ~160 turns in a window's page),
 * only to drop it.
 */
const MESSAGE_KEYS = [
  'id',
  'partition',
  'instance',
  'role',
  'content',
  'raw',
  'snippet',
  'timestamp',
  'seq',
  'token_count',
  'branch_tokens',
  'content_hash',
  'model',
  'trace_id',
  'metadata',
  'edited',
  'deleted',
  'edit_history',
  'is_chunk',
  'chunk_index',
  'chunk_parent_id',
]
  .map((key) => `.${key}`)
  .join(', ');

/** The properties toStoredToolCall reads (its embedding left out, as a message's). */
const TOOL_CALL_KEYS = ['id', 'partition', 'instance', 'call_id', 'tool_name', 'arguments', 'result', 'timestamp', 'message_id', 'token_count', 'duration_ms']
  .map((key) => `.${key}`)
  .join(', ');

/**
 * The Cypher map projection of a Message bound to `variable` (a name from code, never input):
 * every property but the embedding, which is large and rarely needed, plus the parent id.
 */
export function projectMessage(variable: string): string {
  return `${variable} {${MESSAGE_KEYS}, parent_id: [(${variable})-[:REPLIES_TO]->(parent:Message) | parent.id][0]}`;
}

/** The message projection when `$withMessages` is true, else null (searches that load hits). */
export function projectMessageIfWanted(variable: string): string {
  return `CASE WHEN $withMessages THEN ${projectMessage(variable)} END`;
}

/** The stored message of a row's optional projection. */
export function optionalMessage(value: unknown): { message?: StoredMessage } {
  return value === null || value === undefined ? {} : { message: toStoredMessage(value) };
}

/** The Cypher map projection of a ToolCall bound to `variable`, without its embedding. */
export function projectToolCall(variable: string): string {
  return `${variable} {${TOOL_CALL_KEYS}}`;
}

/** A stored message from a projected Message map. */
export function toStoredMessage(value: unknown): StoredMessage {
  const node = value as Record<string, unknown>;
  return {
    id: text(node['id']),
    partition: text(node['partition']),
    instance: text(node['instance']),
    role: text(node['role']) as TurnRole,
    content: text(node['content']),
    raw: parseJson(node['raw'], {}),
    snippet: text(node['snippet']),
    timestamp: toNumber(node['timestamp']) ?? 0,
    seq: toNumber(node['seq']) ?? 0,
    tokenCount: toNumber(node['token_count']) ?? 0,
    branchTokens: toNumber(node['branch_tokens']) ?? 0,
    contentHash: text(node['content_hash']),
    parentId: textOrNull(node['parent_id']),
    model: textOrNull(node['model']),
    traceId: textOrNull(node['trace_id']),
    metadata: parseJson(node['metadata'], {}),
    edited: node['edited'] === true,
    deleted: node['deleted'] === true,
    editHistory: parseJson(node['edit_history'], []),
    isChunk: node['is_chunk'] === true,
    chunkIndex: toNumber(node['chunk_index']),
    chunkParentId: textOrNull(node['chunk_parent_id']),
  };
}

/** The properties of a Message node (snake_case, JSON strings, integers as INTEGER). */
export function toMessageProperties(message: StoredMessage): Record<string, unknown> {
  return {
    id: message.id,
    partition: message.partition,
    instance: message.instance,
    role: message.role,
    content: message.content,
    raw: JSON.stringify(message.raw),
    snippet: message.snippet,
    timestamp: int(message.timestamp),
    seq: int(message.seq),
    token_count: int(message.tokenCount),
    branch_tokens: int(message.branchTokens),
    content_hash: message.contentHash,
    model: message.model,
    trace_id: message.traceId,
    metadata: JSON.stringify(message.metadata),
    edited: message.edited,
    deleted: message.deleted,
    edit_history: JSON.stringify(message.editHistory),
    is_chunk: message.isChunk,
    chunk_index: message.chunkIndex === null ? null : int(message.chunkIndex),
    chunk_parent_id: message.chunkParentId,
    // Indexed flag instead of `embedding IS NULL`, so the embedding sweep needs no label scan;
    // a turn without text (an assistant turn that only calls tools) has nothing to embed.
    needs_embedding: message.content !== '',
  };
}

/** A stored tool call from a projected ToolCall map. */
export function toStoredToolCall(value: unknown): StoredToolCall {
  const node = value as Record<string, unknown>;
  return {
    id: text(node['id']),
    partition: text(node['partition']),
    instance: text(node['instance']),
    callId: text(node['call_id']),
    toolName: text(node['tool_name']),
    arguments: text(node['arguments']),
    result: textOrNull(node['result']),
    timestamp: toNumber(node['timestamp']) ?? 0,
    messageId: text(node['message_id']),
    tokenCount: toNumber(node['token_count']) ?? 0,
    durationMs: toNumber(node['duration_ms']),
  };
}

/** The properties of a ToolCall node. */
export function toToolCallProperties(call: StoredToolCall): Record<string, unknown> {
  return {
    id: call.id,
    partition: call.partition,
    instance: call.instance,
    call_id: call.callId,
    tool_name: call.toolName,
    arguments: call.arguments,
    result: call.result,
    timestamp: int(call.timestamp),
    message_id: call.messageId,
    token_count: int(call.tokenCount),
    duration_ms: call.durationMs === null ? null : int(Math.round(call.durationMs)),
    is_chunk: false,
    needs_embedding: true,
  };
}

/** A number from a driver value (a JS number, or a neo4j Integer if lossless integers are on). */
export function toNumber(value: unknown): number | null {
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return Number(value);
  if (isInt(value)) return (value as Integer).toNumber();
  return null;
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function textOrNull(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

function parseJson<T>(value: unknown, fallback: T): T {
  if (typeof value !== 'string') return fallback;
  try {
    return JSON.parse(value) as T;
  } catch {
    // a value written by hand or by another tool: show it as absent rather than fail the read
    return fallback;
  }
}
