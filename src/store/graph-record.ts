import type { PeriodGranularity, PeriodTopic, SummaryKind } from './topic-types';
import type { Scope, StoredMessage, StoredToolCall, TurnRole } from './types';

/** Format name and version of an export's first line, so an import knows what it reads. */
export const EXPORT_FORMAT = 'memory-proxy-graph';
/**
 * Version 2 added topics, their BELONGS_TO links, period summaries and the jobs' cursors;
 * version 3 writes Float32 vectors as base64 (validate-record.ts, formatRecordLine).
 */
export const EXPORT_VERSION = 3;
/** Versions an import reads: a version 1 file simply has no job records, and only version 3 has base64 vectors. */
export const READABLE_VERSIONS = [1, 2, 3] as const;

/** The first line of an export. */
export interface HeaderRecord {
  type: 'header';
  format: typeof EXPORT_FORMAT;
  version: (typeof READABLE_VERSIONS)[number];
  /** `model:dimensions` of the exported vectors; an import into another vector space drops them. */
  embedding_model: string | null;
}

interface ScopedRecord {
  partition: string;
  instance: string;
}

/**
 * An instance's counter node: the last sequence number handed out, its soft deletion, and the
 * last seq the topic and period jobs finished (so they resume there after an import).
 */
export interface InstanceRecord extends ScopedRecord {
  type: 'Instance';
  last_seq: number;
  deleted_at: number | null;
  topics_cursor: number;
  periods_cursor: number;
}

/** A `Message` node (a turn, or a chunk of one), every property of DESIGN.md section 3. */
export interface MessageRecord extends ScopedRecord {
  type: 'Message';
  id: string;
  role: TurnRole;
  seq: number;
  timestamp: number;
  content: string;
  raw: Record<string, unknown>;
  snippet: string;
  token_count: number;
  branch_tokens: number;
  content_hash: string;
  model: string | null;
  trace_id: string | null;
  metadata: Record<string, unknown>;
  edited: boolean;
  edit_history: { content: string; timestamp: number }[];
  deleted: boolean;
  /** Deleted together with its instance: restoring the instance restores it. */
  deleted_with_instance: boolean;
  is_chunk: boolean;
  chunk_index: number | null;
  chunk_parent_id: string | null;
  embedding: number[] | null;
}

/** A `ToolCall` node. */
export interface ToolCallRecord extends ScopedRecord {
  type: 'ToolCall';
  id: string;
  message_id: string;
  call_id: string;
  tool_name: string;
  arguments: string;
  result: string | null;
  timestamp: number;
  token_count: number;
  duration_ms: number | null;
  embedding: number[] | null;
}

/** A pinned core-memory block of an instance. */
export interface CoreMemoryRecord extends ScopedRecord {
  type: 'CoreMemory';
  name: string;
  content: string;
  token_count: number;
  updated_at: number;
}

/** A stored running summary of a branch before its boundary turn. */
export interface SummaryRecord extends ScopedRecord {
  type: 'Summary';
  boundary_id: string;
  content: string;
  token_count: number;
  turns: number;
  updated_at: number;
}

/** A `Topic` node of the topic job; its live turn count is read from its links, not stored. */
export interface TopicRecord extends ScopedRecord {
  type: 'Topic';
  id: string;
  label: string;
  summary: string;
  summary_kind: SummaryKind;
  highlight_ids: string[];
  size: number;
  centroid: number[];
  period_start: number;
  period_end: number;
  updated_at: number;
}

/** A `PeriodSummary` node: what an instance held during one UTC day or ISO week. */
export interface PeriodSummaryRecord extends ScopedRecord {
  type: 'PeriodSummary';
  granularity: PeriodGranularity;
  period: string;
  start: number;
  end: number;
  messages: number;
  tokens: number;
  user_messages: number;
  topics: PeriodTopic[];
  summary: string;
  highlight_ids: string[];
  updated_at: number;
}

/** Relationship types between messages (CALLED_BY goes from a tool call to its message). */
export type LinkType = 'REPLIES_TO' | 'RESPONDED_WITH' | 'CHUNK_OF' | 'CALLED_BY';

/** A relationship without properties. */
export interface LinkRecord extends ScopedRecord {
  type: LinkType;
  from: string;
  to: string;
}

/** `(turn)-[:BELONGS_TO]->(topic)`: the topic the topic job put a turn in. */
export interface TopicLinkRecord extends ScopedRecord {
  type: 'BELONGS_TO';
  from: string;
  to: string;
}

/** A `SYNAPSE` relationship and its score. */
export interface SynapseRecord extends ScopedRecord {
  type: 'SYNAPSE';
  from: string;
  to: string;
  score: number;
}

/** A relationship record. */
export type RelationshipRecord = LinkRecord | SynapseRecord | TopicLinkRecord;

/** One line of an export (besides the header): a node or a relationship of one scope. */
export type GraphRecord =
  | InstanceRecord
  | MessageRecord
  | ToolCallRecord
  | CoreMemoryRecord
  | SummaryRecord
  | TopicRecord
  | PeriodSummaryRecord
  | RelationshipRecord;

/** Node record types, in the order an export writes them. */
export const NODE_TYPES = [
  'Instance',
  'Message',
  'ToolCall',
  'CoreMemory',
  'Summary',
  'Topic',
  'PeriodSummary',
] as const;
/** Relationship record types. */
export const RELATIONSHIP_TYPES = [
  'REPLIES_TO',
  'RESPONDED_WITH',
  'SYNAPSE',
  'BELONGS_TO',
  'CHUNK_OF',
  'CALLED_BY',
] as const;

/** The scope a record belongs to. */
export function recordScope(record: GraphRecord): Scope {
  return { partition: record.partition, instance: record.instance };
}

/** A stored message (and its embedding) as an export record; the key order is fixed so lines compare. */
export function toMessageRecord(
  message: StoredMessage,
  extra: { embedding: number[] | null; deletedWithInstance: boolean },
): MessageRecord {
  return {
    type: 'Message',
    partition: message.partition,
    instance: message.instance,
    id: message.id,
    role: message.role,
    seq: message.seq,
    timestamp: message.timestamp,
    content: message.content,
    raw: message.raw,
    snippet: message.snippet,
    token_count: message.tokenCount,
    branch_tokens: message.branchTokens,
    content_hash: message.contentHash,
    model: message.model,
    trace_id: message.traceId,
    metadata: message.metadata,
    edited: message.edited,
    edit_history: message.editHistory.map((entry) => ({
      content: entry.content,
      timestamp: entry.timestamp,
    })),
    deleted: message.deleted,
    deleted_with_instance: message.deleted && extra.deletedWithInstance,
    is_chunk: message.isChunk,
    chunk_index: message.chunkIndex,
    chunk_parent_id: message.chunkParentId,
    embedding: extra.embedding,
  };
}

/** The stored message a record describes; the parent comes from its REPLIES_TO record. */
export function fromMessageRecord(record: MessageRecord): StoredMessage {
  return {
    id: record.id,
    partition: record.partition,
    instance: record.instance,
    role: record.role,
    content: record.content,
    raw: record.raw,
    snippet: record.snippet,
    timestamp: record.timestamp,
    seq: record.seq,
    tokenCount: record.token_count,
    branchTokens: record.branch_tokens,
    contentHash: record.content_hash,
    parentId: null,
    model: record.model,
    traceId: record.trace_id,
    metadata: record.metadata,
    edited: record.edited,
    deleted: record.deleted,
    editHistory: record.edit_history,
    isChunk: record.is_chunk,
    chunkIndex: record.chunk_index,
    chunkParentId: record.chunk_parent_id,
  };
}

/** A stored tool call (and its embedding) as an export record. */
export function toToolCallRecord(call: StoredToolCall, embedding: number[] | null): ToolCallRecord {
  return {
    type: 'ToolCall',
    partition: call.partition,
    instance: call.instance,
    id: call.id,
    message_id: call.messageId,
    call_id: call.callId,
    tool_name: call.toolName,
    arguments: call.arguments,
    result: call.result,
    timestamp: call.timestamp,
    token_count: call.tokenCount,
    duration_ms: call.durationMs,
    embedding,
  };
}

/** The stored tool call a record describes. */
export function fromToolCallRecord(record: ToolCallRecord): StoredToolCall {
  return {
    id: record.id,
    partition: record.partition,
    instance: record.instance,
    callId: record.call_id,
    toolName: record.tool_name,
    arguments: record.arguments,
    result: record.result,
    timestamp: record.timestamp,
    messageId: record.message_id,
    tokenCount: record.token_count,
    durationMs: record.duration_ms,
  };
}

/** A relationship record with its keys in the fixed order. */
export function relationshipRecord(
  scope: Scope,
  link: { type: RelationshipRecord['type']; from: string; to: string; score?: number | null },
): RelationshipRecord {
  const base = {
    partition: scope.partition,
    instance: scope.instance,
    from: link.from,
    to: link.to,
  };
  if (link.type === 'SYNAPSE') return { type: 'SYNAPSE', ...base, score: link.score ?? 0 };
  return { type: link.type, ...base };
}
