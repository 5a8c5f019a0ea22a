import { int } from 'neo4j-driver';
import { InvalidRequestError, NotFoundError } from '../../errors';
import type { MessageEdit } from '../management-types';
import type { Scope, StoredMessage } from '../types';
import { makeSnippet } from '../../text/snippet';
import { projectMessage, toNumber, toStoredMessage } from './map-record';
import type { TransactionRunner } from './neo4j-runner';
import { lockInstance, scopeParams, type ScopedRunner } from './scope-params';

const THE_TURN = 'MATCH (m:Message {id: $id, partition: $partition, instance: $instance})';

const SHIFT_DESCENDANTS = `
${THE_TURN}<-[:REPLIES_TO*1..]-(below:Message)
SET below.branch_tokens = below.branch_tokens + $delta`;

const DELETE_CHUNKS = `
MATCH (chunk:Message {chunk_parent_id: $id})
WHERE chunk.partition = $partition AND chunk.instance = $instance AND chunk.is_chunk = true
WITH collect(chunk) AS chunks
FOREACH (chunk IN chunks | DETACH DELETE chunk)
RETURN size(chunks) AS count`;

// Run under the instance lock: a summary write waiting for the lock reads the epoch moved on.
const DROP_SUMMARIES = `
MATCH (i:Instance {partition: $partition, instance: $instance})
SET i.summary_epoch = coalesce(i.summary_epoch, 0) + 1
WITH i
OPTIONAL MATCH (s:Summary {partition: $partition, instance: $instance})
DELETE s`;

/**
 * Replaces a turn's text in one transaction under the instance lock (see MemoryStore.editMessage):
 * history, flags, hash and tokens, the branch totals below it; its embedding (and with it the
 * vector-index entry), chunks and synapses go, and it is marked for embedding again.
 */
export async function editMessage(
  scoped: ScopedRunner,
  options: { id: string; edit: MessageEdit; now: number },
): Promise<StoredMessage> {
  const { runner, scope } = scoped;
  const { id, edit } = options;
  const params = { id, ...scopeParams(scope) };
  return runner.writeTransaction(async (transaction) => {
    await lockInstance(transaction, scope);
    const turn = await requireTurn(transaction, { scope, id, action: 'edit' });
    const history = [...turn.editHistory, { content: turn.content, timestamp: options.now }];
    const rows = await transaction.run(
      `${THE_TURN}
       SET m.content = $content, m.raw = $raw, m.content_hash = $contentHash,
           m.token_count = $tokenCount, m.branch_tokens = m.branch_tokens + $delta,
           m.snippet = $snippet, m.edited = true, m.edit_history = $history,
           m.embedding = null, m.needs_embedding = CASE WHEN $content <> '' THEN true END
       RETURN ${projectMessage('m')} AS message`,
      {
        content: edit.content,
        raw: JSON.stringify(edit.raw),
        contentHash: edit.contentHash,
        tokenCount: int(edit.tokenCount),
        delta: int(edit.tokenCount - turn.tokenCount),
        snippet: makeSnippet(edit.content),
        history: JSON.stringify(history),
        ...params,
      },
    );
    await shiftDescendants(transaction, { scope, id, delta: edit.tokenCount - turn.tokenCount });
    await deleteChunks(transaction, { scope, id });
    await transaction.run(`${THE_TURN}-[link:SYNAPSE]-(:Message) DELETE link`, params);
    await dropSummaries(transaction, scope);
    return toStoredMessage(rows[0]?.['message']);
  });
}

/** Soft-deletes or restores a turn and its chunks, dropping the instance's summaries. */
export async function setMessageDeleted(
  scoped: ScopedRunner,
  options: { id: string; deleted: boolean },
): Promise<StoredMessage> {
  const { runner, scope } = scoped;
  const params = { id: options.id, deleted: options.deleted, ...scopeParams(scope) };
  return runner.writeTransaction(async (transaction) => {
    await lockInstance(transaction, scope);
    await requireTurn(transaction, {
      scope,
      id: options.id,
      action: options.deleted ? 'delete' : 'restore',
    });
    const rows = await transaction.run(
      `${THE_TURN} SET m.deleted = $deleted REMOVE m.deleted_with_instance
       RETURN ${projectMessage('m')} AS message`,
      params,
    );
    await transaction.run(
      `MATCH (chunk:Message {chunk_parent_id: $id})
       WHERE chunk.partition = $partition AND chunk.instance = $instance AND chunk.is_chunk = true
       SET chunk.deleted = $deleted REMOVE chunk.deleted_with_instance`,
      params,
    );
    await dropSummaries(transaction, scope);
    return toStoredMessage(rows[0]?.['message']);
  });
}

/**
 * Soft-deletes every live turn and chunk of an instance, marked `deleted_with_instance` so a
 * restore brings back exactly those; returns how many changed.
 */
export async function setInstanceDeleted(
  scoped: ScopedRunner,
  options: { deleted: boolean; now: number },
): Promise<number> {
  const { runner, scope } = scoped;
  const params = scopeParams(scope);
  return runner.writeTransaction(async (transaction) => {
    const found = await transaction.run(
      `MATCH (i:Instance {partition: $partition, instance: $instance})
       SET i.deleted_at = $deletedAt RETURN i.last_seq AS lastSeq`,
      { deletedAt: options.deleted ? int(options.now) : null, ...params },
    );
    if (!found[0])
      throw new NotFoundError(
        `instance ${scope.instance} does not exist in partition ${scope.partition}`,
        'instance',
      );
    const rows = await transaction.run(
      options.deleted
        ? `MATCH (m:Message {partition: $partition, instance: $instance}) WHERE m.seq >= 0 AND m.deleted = false
           SET m.deleted = true, m.deleted_with_instance = true RETURN count(m) AS count`
        : `MATCH (m:Message {partition: $partition, instance: $instance}) WHERE m.seq >= 0 AND m.deleted_with_instance = true
           SET m.deleted = false REMOVE m.deleted_with_instance RETURN count(m) AS count`,
      params,
    );
    await dropSummaries(transaction, scope);
    return toNumber(rows[0]?.['count']) ?? 0;
  });
}

/** Deletes the chunks of a turn (with their relationships and index entries); returns how many. */
export async function deleteChunks(
  transaction: TransactionRunner,
  turn: { scope: Scope; id: string },
): Promise<number> {
  const rows = await transaction.run(DELETE_CHUNKS, { id: turn.id, ...scopeParams(turn.scope) });
  return toNumber(rows[0]?.['count']) ?? 0;
}

/** Moves the branch totals of every turn below `id` by `delta` tokens. */
export async function shiftDescendants(
  transaction: TransactionRunner,
  options: { scope: Scope; id: string; delta: number },
): Promise<void> {
  if (options.delta === 0) return;
  await transaction.run(SHIFT_DESCENDANTS, {
    id: options.id,
    delta: int(options.delta),
    ...scopeParams(options.scope),
  });
}

/**
 * Drops the running summaries of an instance (they quote turns that changed) and moves its
 * summary epoch on, so a summary built from the turns as they were is not stored afterwards.
 */
export async function dropSummaries(transaction: TransactionRunner, scope: Scope): Promise<void> {
  await transaction.run(DROP_SUMMARIES, scopeParams(scope));
}

/** The turn `id` of the scope; a chunk is refused with a pointer to its turn. */
export async function requireTurn(
  transaction: TransactionRunner,
  options: { scope: Scope; id: string; action: string },
): Promise<StoredMessage> {
  const rows = await transaction.run(`${THE_TURN} RETURN ${projectMessage('m')} AS message`, {
    id: options.id,
    ...scopeParams(options.scope),
  });
  if (!rows[0])
    throw new NotFoundError(`message ${options.id} does not exist in this instance`, 'id');
  const message = toStoredMessage(rows[0]['message']);
  if (message.isChunk) {
    const turn = message.chunkParentId;
    throw new InvalidRequestError(
      `message ${message.id} is chunk ${message.chunkIndex} of turn ${turn}; ${options.action} the turn ${turn} instead (its chunks follow it)`,
      { param: 'id', code: 'chunk_not_allowed' },
    );
  }
  return message;
}
