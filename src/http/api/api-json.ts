import type { RetrievedTurn } from '../../memory/retrieve';
import type { InstanceSummary, PartitionSummary, StoreStats } from '../../store/management-types';
import type { StoredMessage, StoredToolCall, Synapse } from '../../store/types';

/** A time as the API shows it: ISO 8601, or null. */
function iso(time: number | null): string | null {
  return time === null ? null : new Date(time).toISOString();
}

/** A stored turn or chunk as the management API returns it (everything but the embedding). */
export function messageJson(message: StoredMessage) {
  return {
    object: 'memory.message',
    id: message.id,
    partition: message.partition,
    instance: message.instance,
    role: message.role,
    content: message.content,
    seq: message.seq,
    timestamp: iso(message.timestamp),
    token_count: message.tokenCount,
    parent_id: message.parentId,
    model: message.model,
    trace_id: message.traceId,
    metadata: message.metadata,
    edited: message.edited,
    edit_history: message.editHistory.map((entry) => ({
      content: entry.content,
      replaced_at: iso(entry.timestamp),
    })),
    deleted: message.deleted,
    is_chunk: message.isChunk,
    chunk_index: message.chunkIndex,
    chunk_parent_id: message.chunkParentId,
    raw: message.raw,
  };
}

/** A tool call as the management API returns it. */
export function toolCallJson(call: StoredToolCall) {
  return {
    object: 'memory.tool_call',
    id: call.id,
    call_id: call.callId,
    message_id: call.messageId,
    tool_name: call.toolName,
    arguments: call.arguments,
    result: call.result,
    timestamp: iso(call.timestamp),
    token_count: call.tokenCount,
    duration_ms: call.durationMs,
  };
}

/** A synapse as the management API returns it. */
export function synapseJson(synapse: Synapse) {
  return { from_id: synapse.fromId, to_id: synapse.toId, score: synapse.score };
}

/** An instance and its figures. */
export function instanceJson(instance: InstanceSummary) {
  return {
    object: 'memory.instance',
    partition: instance.partition,
    instance: instance.instance,
    messages: instance.messages,
    deleted_messages: instance.deletedMessages,
    tokens: instance.tokens,
    first_activity: iso(instance.firstActivity),
    last_activity: iso(instance.lastActivity),
    last_seq: instance.lastSeq,
    deleted: instance.deletedAt !== null,
    deleted_at: iso(instance.deletedAt),
  };
}

/** A partition and the figures of its instances. */
export function partitionJson(partition: PartitionSummary) {
  return {
    object: 'memory.partition',
    partition: partition.partition,
    instances: partition.instances,
    messages: partition.messages,
    tokens: partition.tokens,
    last_activity: iso(partition.lastActivity),
  };
}

/** A search hit: the turn, its fused score and what found it (and the chunk that matched). */
export function searchHitJson(hit: RetrievedTurn) {
  return {
    object: 'memory.search_result',
    score: hit.score,
    matched_by: hit.sources,
    message: messageJson(hit.message),
    chunk: hit.chunk
      ? { id: hit.chunk.id, chunk_index: hit.chunk.chunkIndex, content: hit.chunk.content }
      : null,
  };
}

/** Store-wide figures, "today" counted from `since`. */
export function statsJson(stats: StoreStats, extra: { since: number; backgroundPending: number }) {
  return {
    object: 'memory.stats',
    store: {
      kind: stats.kind,
      size_bytes: stats.sizeBytes,
      nodes: stats.nodes,
      relationships: stats.relationships,
    },
    partitions: stats.partitions,
    instances: stats.instances,
    active_instances: stats.activeInstances,
    messages_today: stats.messagesSince,
    messages: stats.messages,
    tokens: stats.tokens,
    tool_calls: stats.toolCalls,
    today_since: iso(extra.since),
    background_pending: extra.backgroundPending,
  };
}
