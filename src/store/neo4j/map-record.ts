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
] as const;

/** Where each property sits in a projected message; the parent id comes after them all. */
const AT = Object.fromEntries(MESSAGE_KEYS.map((key, index) => [key, index])) as Record<(typeof MESSAGE_KEYS)[number], number>;
const PARENT_AT = MESSAGE_KEYS.length;

/** The properties toStoredToolCall reads (its embedding left out, as a message's). */
const TOOL_CALL_KEYS = ['id', 'partition', 'instance', 'call_id', 'tool_name', 'arguments', 'result', 'timestamp', 'message_id', 'token_count', 'duration_ms']
  .map((key) => `.${key}`)
  .join(', ');

/**
 * The Cypher projection of a Message bound to `variable` (a name from code, never input): every
 * property but the embedding, which is large and rarely needed, then the parent id; null for a
 * null node. A list, not a map: the driver decodes every key of every map it receives, and a
 * map's 22 key strings took half of the Node time spent reading a page of turns (1.5 against
 * 2.2-3.2 ms for 65 turns). The list inside a CASE is read as one expression per row: as a bare
 * projection the planner first copied each named property into a row cache (CacheProperties)
 * because of the parent lookup beside them, and a page of 257 turns took 7.7 ms instead of 5.5.
 */
export function projectMessage(variable: string): string {
  const values = MESSAGE_KEYS.map((key) => `${variable}.${key}`).join(', ');
  return `CASE WHEN ${variable} IS NULL THEN null ELSE [${values}, [(${variable})-[:REPLIES_TO]->(parent:Message) | parent.id][0]] END`;
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

/** A stored message from a projected Message (projectMessage's list). */
export function toStoredMessage(value: unknown): StoredMessage {
  if (!Array.isArray(value)) throw new Error('A projected message is a list of its properties');
  const node = value as unknown[];
  return {
    id: text(node[AT.id]),
    partition: text(node[AT.partition]),
    instance: text(node[AT.instance]),
    role: text(node[AT.role]) as TurnRole,
    content: text(node[AT.content]),
    raw: parseJson(node[AT.raw], {}),
    snippet: text(node[AT.snippet]),
    timestamp: toNumber(node[AT.timestamp]) ?? 0,
    seq: toNumber(node[AT.seq]) ?? 0,
    tokenCount: toNumber(node[AT.token_count]) ?? 0,
    branchTokens: toNumber(node[AT.branch_tokens]) ?? 0,
    contentHash: text(node[AT.content_hash]),
    parentId: textOrNull(node[PARENT_AT]),
    model: textOrNull(node[AT.model]),
    traceId: textOrNull(node[AT.trace_id]),
    metadata: parseJson(node[AT.metadata], {}),
    edited: node[AT.edited] === true,
    deleted: node[AT.deleted] === true,
    editHistory: parseJson(node[AT.edit_history], []),
    isChunk: node[AT.is_chunk] === true,
    chunkIndex: toNumber(node[AT.chunk_index]),
    chunkParentId: textOrNull(node[AT.chunk_parent_id]),
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
    // a turn without text (an assistant turn that only calls tools) has nothing to embed. True or
    // absent, never false: embedded turns leave the index instead of piling up under `false`,
    // which grew its file by ~4.6 KB a turn in a bulk load (bench/NOTES.md).
    needs_embedding: message.content !== '' ? true : null,
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
