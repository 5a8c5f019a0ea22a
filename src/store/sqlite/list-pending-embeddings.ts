import type { PendingEmbedding } from '../types';
import { scopeParams } from './scope-sql';
import type { Statements } from './statements';

/**
 * Up to `limit` turns, chunks and tool calls of any scope still without an embedding, turns
 * first, each oldest first. A tool call is embedded as its name, arguments and result together,
 * the way a memory search would describe it.
 */
export function listPendingEmbeddings(statements: Statements, limit: number): PendingEmbedding[] {
  const pending: PendingEmbedding[] = statements.pendingMessages
    .all({ limit })
    .map((row) => ({ scope: scopeParams(row), kind: 'message', id: row.id, text: row.content }));
  const remaining = limit - pending.length;
  if (remaining <= 0) return pending;
  for (const row of statements.pendingToolCalls.all({ limit: remaining })) {
    const result = row.result === null ? '' : `\n${row.result}`;
    pending.push({
      scope: scopeParams(row),
      kind: 'toolcall',
      id: row.id,
      text: `${row.toolName}(${row.arguments})${result}`,
    });
  }
  return pending;
}
