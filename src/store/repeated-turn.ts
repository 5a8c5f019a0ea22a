import type { NewMessage, StoredMessage } from './types';

/**
 * The stored turn a single new message repeats, or null: the latest turn itself (a retry before
 * the answer was stored), or the live question the latest turn answered (a retry after it, or a
 * regenerate), with the same role and content hash. Neo4j's continueLatest applies the same rule
 * in its statement.
 */
export function repeatedTurn(
  latest: StoredMessage | null,
  question: StoredMessage | null,
  message: NewMessage,
): StoredMessage | null {
  if (latest === null) return null;
  if (sameTurn(latest, message)) return latest;
  if (latest.role !== 'assistant' || question === null || question.deleted) return null;
  return sameTurn(question, message) ? question : null;
}

/** Whether a stored turn is the sent one: same role and content hash. */
export function sameTurn(stored: StoredMessage, sent: NewMessage): boolean {
  return stored.contentHash === sent.contentHash && stored.role === sent.role;
}
