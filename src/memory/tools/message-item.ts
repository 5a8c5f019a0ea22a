import type { StoredMessage, StoredToolCall } from '../../store/types';
import type { ResultItem } from './fit-result';
import { toMessageJson, toToolCallJson, withPreview, withToolCallPreview } from './to-message-json';

/** A stored message as an item of a tool result, shown shortened when it alone is too large. */
export function messageItem(message: StoredMessage, list: string, position?: number): ResultItem {
  const json = toMessageJson(message);
  return {
    id: message.id,
    list,
    value: json,
    shorten: (chars) => withPreview(json, chars),
    ...(position === undefined ? {} : { position }),
  };
}

/** A stored tool call as an item of a tool result, its arguments and result shortened when it alone is too large. */
export function toolCallItem(call: StoredToolCall, list: string): ResultItem {
  const json = toToolCallJson(call);
  return {
    id: call.id,
    list,
    value: json,
    shorten: (chars) => withToolCallPreview(json, Math.floor(chars / 2)),
  };
}
