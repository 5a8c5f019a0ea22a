/**
 * Token counts for bench/recall.ts, made here with gpt-tokenizer (o200k_base) independently of
 * the proxy's own accounting, the way test/long-conversation.test.ts counts what upstream got.
 */
import { countTokens } from 'gpt-tokenizer';

/** Tokens the chat format adds per message and to prime the reply (OpenAI's published rule). */
const PER_MESSAGE = 4;
const REPLY_PRIMER = 3;

/** Tokens of a messages array as sent upstream. */
export function messagesTokens(messages: readonly { role?: string; content?: unknown }[]): number {
  let total = REPLY_PRIMER;
  for (const message of messages) {
    const content = message.content;
    total +=
      PER_MESSAGE +
      countTokens(typeof content === 'string' ? content : JSON.stringify(content ?? ''));
  }
  return total;
}

/** Tokens of a tools array (its JSON): what the memory tools cost every request. */
export function toolsTokens(tools: unknown): number {
  return Array.isArray(tools) && tools.length > 0 ? countTokens(JSON.stringify(tools)) : 0;
}
