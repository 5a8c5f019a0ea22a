import type Database from 'better-sqlite3';
import { InvalidRequestError, NotFoundError } from '../../errors';
import type { MessageEdit } from '../management-types';
import type { Scope, StoredMessage } from '../types';
import type { AdminStatements } from './admin-statements';
import { makeSnippet } from '../../text/snippet';
import { toStoredMessage, type MessageRow } from './message-row';
import { scopeParams } from './scope-sql';
import type { Statements } from './statements';

/** What the management writes of the embedded store work with. */
export interface SqliteAdminContext {
  db: Database.Database;
  statements: Statements;
  admin: AdminStatements;
  clock: () => number;
}

/**
 * Replaces a turn's text in one transaction (see MemoryStore.editMessage): history, flags,
 * hash and tokens, the branch totals below it; its embedding, chunks and synapses go, and the
 * FTS row follows through the update trigger.
 */
export function editMessage(
  context: SqliteAdminContext,
  target: { scope: Scope; id: string; edit: MessageEdit },
): StoredMessage {
  const { db, statements, admin } = context;
  const { scope, id, edit } = target;
  const params = { id, ...scopeParams(scope) };
  return db
    .transaction(() => {
      const row = requireTurn(statements, { scope, id, action: 'edit' });
      const history = [...(JSON.parse(row.edit_history) as StoredMessage['editHistory'])];
      history.push({ content: row.content, timestamp: context.clock() });
      const delta = edit.tokenCount - row.token_count;
      const updated = admin.editTurn.get({
        content: edit.content,
        raw: JSON.stringify(edit.raw),
        contentHash: edit.contentHash,
        tokenCount: edit.tokenCount,
        delta,
        snippet: makeSnippet(edit.content),
        history: JSON.stringify(history),
        ...params,
      });
      if (delta !== 0) admin.shiftDescendants.run({ delta, ...params });
      statements.deleteChunkEdges.run({ parentId: id, ...scopeParams(scope) });
      statements.deleteChunks.run({ parentId: id, ...scopeParams(scope) });
      admin.deleteSynapsesFrom.run(params);
      admin.deleteSynapsesTo.run(params);
      dropSummaries(admin, scope);
      if (updated === undefined) throw new Error('update returned no row');
      return toStoredMessage(updated);
    })
    .immediate();
}

/** Soft-deletes or restores a turn and its chunks, dropping the instance's summaries. */
export function setMessageDeleted(
  context: SqliteAdminContext,
  target: { scope: Scope; id: string; deleted: boolean },
): StoredMessage {
  const { db, statements, admin } = context;
  const { scope, id, deleted } = target;
  const params = { id, deleted: deleted ? 1 : 0, ...scopeParams(scope) };
  return db
    .transaction(() => {
      requireTurn(statements, { scope, id, action: deleted ? 'delete' : 'restore' });
      admin.setTurnDeleted.run(params);
      admin.setChunksDeleted.run(params);
      dropSummaries(admin, scope);
      const row = statements.messageById.get({ id, ...scopeParams(scope) });
      if (row === undefined) throw new Error('the turn vanished inside its transaction');
      return toStoredMessage(row);
    })
    .immediate();
}

/** Soft-deletes or restores a whole instance; returns the turns and chunks changed. */
export function setInstanceDeleted(
  context: SqliteAdminContext,
  target: { scope: Scope; deleted: boolean },
): number {
  const { scope, deleted } = target;
  const { db, admin } = context;
  const params = scopeParams(scope);
  return db
    .transaction(() => {
      if (admin.counter.get(params) === undefined) {
        throw new NotFoundError(
          `instance ${scope.instance} does not exist in partition ${scope.partition}`,
          'instance',
        );
      }
      const changed = deleted
        ? admin.deleteInstanceTurns.run(params)
        : admin.restoreInstanceTurns.run(params);
      admin.putInstanceState.run({ deletedAt: deleted ? context.clock() : null, ...params });
      dropSummaries(admin, scope);
      return changed.changes;
    })
    .immediate();
}

/**
 * Drops the running summaries of an instance (they quote turns that changed) and moves its
 * summary epoch on, so a summary built from the turns as they were is not stored afterwards.
 */
export function dropSummaries(admin: AdminStatements, scope: Scope): void {
  const params = scopeParams(scope);
  admin.deleteSummaries.run(params);
  admin.bumpSummaryEpoch.run(params);
}

/** The turn `id` of the scope; a chunk is refused with a pointer to its turn. */
export function requireTurn(
  statements: Statements,
  target: { scope: Scope; id: string; action: string },
): MessageRow {
  const { scope, id, action } = target;
  const row = statements.messageById.get({ id, ...scopeParams(scope) });
  if (row === undefined)
    throw new NotFoundError(`message ${id} does not exist in this instance`, 'id');
  if (row.is_chunk === 1) {
    throw new InvalidRequestError(
      `message ${id} is chunk ${row.chunk_index} of turn ${row.chunk_parent_id}; ${action} the turn ${row.chunk_parent_id} instead (its chunks follow it)`,
      { param: 'id', code: 'chunk_not_allowed' },
    );
  }
  return row;
}
