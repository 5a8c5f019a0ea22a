import { createHash } from 'node:crypto';
import type { NewMessage, TurnRole } from '../store/types';
import { countMessageTokens } from '../tokens/count-tokens';

/** Roles a client may send; system and developer messages are kept for upstream but not stored. */
export const CLIENT_ROLES = ['system', 'developer', 'user', 'assistant', 'tool', 'function'] as const;

/** The plain text of a message's content: a string as is, text parts joined by newlines. */
export function messageText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const texts: string[] = [];
  for (const part of content) {
    if (typeof part !== 'object' || part === null) continue;
    const record = part as Record<string, unknown>;
    if (typeof record['text'] === 'string') texts.push(record['text']);
    else if (typeof record['refusal'] === 'string') texts.push(record['refusal']);
  }
  return texts.join('\n');
}

/**
 * The hash that identifies a turn when a client resends history: role, text, tool calls and
 * tool_call_id, so a regenerated answer or edited question hashes differently.
 */
export function contentHash(message: Record<string, unknown>): string {
  const role = message['role'] === 'function' ? 'tool' : message['role'];
  const toolCalls = Array.isArray(message['tool_calls'])
    ? (message['tool_calls'] as Record<string, unknown>[]).map((call) => {
        const fn = (call['function'] ?? {}) as Record<string, unknown>;
        return [call['id'] ?? null, fn['name'] ?? null, fn['arguments'] ?? null];
      })
    : [];
  const canonical = JSON.stringify([
    role,
    messageText(message['content']),
    contentParts(message['content']),
    toolCalls,
    message['tool_call_id'] ?? null,
  ]);
  return createHash('sha256').update(canonical).digest('hex').slice(0, 32);
}

/** Converts a client (or upstream) chat message into a turn to store. */
export function toNewMessage(
  message: Record<string, unknown>,
  extra: { model?: string | null; traceId?: string | null; metadata?: Record<string, unknown> } = {},
): NewMessage {
  const role = (message['role'] === 'function' ? 'tool' : message['role']) as TurnRole;
  // Hash and token count are worked out when first read: a client that resends its whole
  // history on every request would otherwise pay for hashing and tokenizing every turn the
  // store already holds, while only the unseen tail is stored and only the newest is checked.
  let hash: string | undefined;
  let tokens: number | undefined;
  return {
    role,
    content: messageText(message['content']),
    raw: message,
    get contentHash() {
      return (hash ??= contentHash(message));
    },
    get tokenCount() {
      return (tokens ??= countMessageTokens(message));
    },
    model: extra.model ?? null,
    traceId: extra.traceId ?? null,
    metadata: extra.metadata ?? {},
  };
}

/** Non-text parts (images, audio, files) identified by their payload, so the hash tells them apart. */
function contentParts(content: unknown): string[] {
  if (!Array.isArray(content)) return [];
  const parts: string[] = [];
  for (const part of content) {
    if (typeof part !== 'object' || part === null) continue;
    const record = part as Record<string, unknown>;
    if (typeof record['text'] === 'string') continue;
    parts.push(createHash('sha256').update(JSON.stringify(record)).digest('hex').slice(0, 16));
  }
  return parts;
}
