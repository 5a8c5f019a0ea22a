import type { StoredMessage, StoredToolCall } from '../../store/types';

/** The spec's `Message` as a tool result shows it. */
export interface MessageJson {
  id: string;
  role: string;
  content: string;
  timestamp: string;
  seq: number;
  parent_id: string | null;
  token_count: number;
  is_chunk: boolean;
  chunk_index: number | null;
  chunk_parent_id: string | null;
  edited: boolean;
  /** Present (true) when `content` is a shortened preview, never when it is the whole text. */
  content_truncated?: true;
}

/** The spec's `ToolCall` as a tool result shows it; `call_id` is the id upstream gave the call. */
export interface ToolCallJson {
  id: string;
  call_id: string;
  tool_name: string;
  arguments: string;
  result: string | null;
  timestamp: string;
  message_id: string;
  result_truncated?: true;
}

/** Converts a stored turn or chunk to the spec's `Message` shape (no raw payload, no embedding). */
export function toMessageJson(message: StoredMessage): MessageJson {
  return {
    id: message.id,
    role: message.role,
    content: message.content,
    timestamp: new Date(message.timestamp).toISOString(),
    seq: message.seq,
    parent_id: message.parentId,
    token_count: message.tokenCount,
    is_chunk: message.isChunk,
    chunk_index: message.chunkIndex,
    chunk_parent_id: message.chunkParentId,
    edited: message.edited,
  };
}

/** Converts a stored tool call to the spec's `ToolCall` shape. */
export function toToolCallJson(call: StoredToolCall): ToolCallJson {
  return {
    id: call.id,
    call_id: call.callId,
    tool_name: call.toolName,
    arguments: call.arguments,
    result: call.result,
    timestamp: new Date(call.timestamp).toISOString(),
    message_id: call.messageId,
  };
}

/** A message whose content is cut to `length` characters (flagged), or the message as is when it is short. */
export function withPreview(message: MessageJson, length: number): MessageJson {
  if (message.content.length <= length) return message;
  return { ...message, content: cutText(message.content, length), content_truncated: true };
}

/** A tool call whose arguments and result are cut to `length` characters each, flagged when cut. */
export function withToolCallPreview(call: ToolCallJson, length: number): ToolCallJson {
  const result = call.result;
  if (call.arguments.length <= length && (result === null || result.length <= length)) return call;
  return {
    ...call,
    arguments: cutText(call.arguments, length),
    result: result === null ? null : cutText(result, length),
    result_truncated: true,
  };
}

function cutText(text: string, length: number): string {
  return text.length > length ? `${text.slice(0, Math.max(0, length))}…` : text;
}
