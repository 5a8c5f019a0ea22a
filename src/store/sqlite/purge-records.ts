import type { PurgeResult } from '../management-types';
import type { Scope } from '../types';
import { dropSummaries, requireTurn, type SqliteAdminContext } from './edit-message';
import { scopeParams } from './scope-sql';

/**
 * Deletes a turn for good in one transaction: its chunks, tool calls and every edge touching
 * them; the FTS delete triggers take their index rows along. Its children reply to its parent
 * from then on and the branch totals below it drop by its tokens.
 */
export function purgeMessage(
  context: SqliteAdminContext,
  target: { scope: Scope; id: string },
): PurgeResult {
  const { scope, id } = target;
  const { db, statements, admin } = context;
  const params = { id, ...scopeParams(scope) };
  return db
    .transaction(() => {
      const row = requireTurn(statements, { scope, id, action: 'purge' });
      if (row.token_count !== 0) admin.shiftDescendants.run({ delta: -row.token_count, ...params });
      admin.reparentChildren.run({ parentId: row.parent_id, ...params });
      statements.deleteChunkEdges.run({ parentId: id, ...scopeParams(scope) });
      const chunks = statements.deleteChunks.run({ parentId: id, ...scopeParams(scope) }).changes;
      admin.deleteEdgesFrom.run(params);
      admin.deleteEdgesTo.run(params);
      const toolCalls = admin.deleteToolCallsOf.run(params).changes;
      admin.deleteMessage.run(params);
      dropSummaries(admin, scope);
      return { messages: 1 + chunks, toolCalls };
    })
    .immediate();
}

/** Deletes every row of an instance for good, in one transaction. */
export function purgeInstance(context: SqliteAdminContext, scope: Scope): PurgeResult {
  const { db, admin } = context;
  const params = scopeParams(scope);
  return db
    .transaction(() => {
      admin.deleteInstanceEdges.run(params);
      const toolCalls = admin.deleteInstanceToolCalls.run(params).changes;
      const messages = admin.deleteInstanceMessages.run(params).changes;
      for (const statement of admin.deleteInstanceRest) statement.run(params);
      return { messages, toolCalls };
    })
    .immediate();
}
