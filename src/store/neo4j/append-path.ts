import { int } from 'neo4j-driver';
import { NotFoundError } from '../../errors';
import type { AppendedTurn, NewMessage, Scope, StoredMessage } from '../types';
import { makeSnippet, projectMessage, toMessageProperties, toStoredMessage } from './map-record';
import type { Neo4jRunner, TransactionRunner } from './neo4j-runner';
import { lockInstance, scopeParams } from './scope-params';

/** Inputs of appendPath. */
export interface AppendPathOptions {
  runner: Neo4jRunner;
  scope: Scope;
  parentId: string | null;
  messages: NewMessage[];
  /** Milliseconds since the epoch for turns that bring no timestamp. */
  clock: () => number;
  newId: () => string;
}

const FIND_PARENT = `
MATCH (m:Message {id: $id, partition: $partition, instance: $instance})
WHERE m.is_chunk = false
RETURN ${projectMessage('m')} AS message`;

// The oldest live child of the parent with the same role and hash: the turn a resent or
// retried request already stored.
const FIND_CHILD = `
MATCH (m:Message {partition: $partition, instance: $instance, content_hash: $contentHash})
      -[:REPLIES_TO]->(:Message {id: $parentId})
WHERE m.role = $role AND m.deleted = false AND m.is_chunk = false
RETURN ${projectMessage('m')} AS message
ORDER BY m.seq LIMIT 1`;

const FIND_ROOT = `
MATCH (m:Message {partition: $partition, instance: $instance, content_hash: $contentHash})
WHERE m.role = $role AND m.deleted = false AND m.is_chunk = false AND NOT (m)-[:REPLIES_TO]->(:Message)
RETURN ${projectMessage('m')} AS message
ORDER BY m.seq LIMIT 1`;

// Creating the turns, linking them and advancing the instance counter is one statement: each
// statement of a transaction is a round trip to the server, the cost that dominates a turn.
const CREATE_PATH = `
CALL () {
  UNWIND $rows AS row
  CREATE (m:Message)
  SET m = row
}
CALL () {
  UNWIND $links AS link
  MATCH (child:Message {id: link.child, partition: $partition, instance: $instance})
  MATCH (parent:Message {id: link.parent, partition: $partition, instance: $instance})
  CREATE (child)-[:REPLIES_TO]->(parent)
  FOREACH (_ IN CASE WHEN link.respondedWith THEN [1] ELSE [] END |
    CREATE (parent)-[:RESPONDED_WITH]->(child))
}
MATCH (i:Instance {partition: $partition, instance: $instance})
SET i.last_seq = $lastSeq`;

/**
 * Stores a path of turns in one write transaction. The instance lock comes first, so the
 * dedupe lookups and the sequence numbers see every earlier writer of the instance, in this
 * process or another; turns found already stored are returned with created=false.
 */
export async function appendPath(options: AppendPathOptions): Promise<AppendedTurn[]> {
  const { runner, scope, messages } = options;
  if (messages.length === 0) return [];
  return runner.writeTransaction(async (transaction) => {
    let lastSeq = await lockInstance(transaction, scope);
    let parent =
      options.parentId === null ? null : await findParent(transaction, scope, options.parentId);
    const turns: AppendedTurn[] = [];
    let index = 0;
    for (; index < messages.length; index += 1) {
      const existing = await findExisting(
        transaction,
        scope,
        parent,
        messages[index] as NewMessage,
      );
      if (!existing) break;
      turns.push({ message: existing, created: false });
      parent = existing;
    }
    if (index === messages.length) return turns;

    // Once one turn is new, every later turn is too: a new turn has no children yet.
    const created: StoredMessage[] = [];
    const links: { child: string; parent: string; respondedWith: boolean }[] = [];
    for (const message of messages.slice(index)) {
      lastSeq += 1;
      const stored = newStoredMessage({ ...options, message, parent, seq: lastSeq });
      created.push(stored);
      turns.push({ message: stored, created: true });
      if (parent) {
        links.push({
          child: stored.id,
          parent: parent.id,
          respondedWith: parent.role === 'user' && stored.role === 'assistant',
        });
      }
      parent = stored;
    }
    await transaction.run(CREATE_PATH, {
      ...scopeParams(scope),
      rows: created.map(toMessageProperties),
      links,
      lastSeq: int(lastSeq),
    });
    return turns;
  });
}

async function findParent(
  transaction: TransactionRunner,
  scope: Scope,
  id: string,
): Promise<StoredMessage> {
  const rows = await transaction.run(FIND_PARENT, { ...scopeParams(scope), id });
  const row = rows[0];
  if (!row)
    throw new NotFoundError(`parent message ${id} is not a turn of this instance`, 'parentId');
  return toStoredMessage(row['message']);
}

async function findExisting(
  transaction: TransactionRunner,
  scope: Scope,
  parent: StoredMessage | null,
  message: NewMessage,
): Promise<StoredMessage | null> {
  const params = { ...scopeParams(scope), contentHash: message.contentHash, role: message.role };
  const rows = parent
    ? await transaction.run(FIND_CHILD, { ...params, parentId: parent.id })
    : await transaction.run(FIND_ROOT, params);
  const row = rows[0];
  return row ? toStoredMessage(row['message']) : null;
}

function newStoredMessage(options: {
  scope: Scope;
  message: NewMessage;
  parent: StoredMessage | null;
  seq: number;
  clock: () => number;
  newId: () => string;
}): StoredMessage {
  const { scope, message, parent } = options;
  return {
    id: options.newId(),
    partition: scope.partition,
    instance: scope.instance,
    role: message.role,
    content: message.content,
    raw: message.raw,
    snippet: makeSnippet(message.content),
    timestamp: message.timestamp ?? options.clock(),
    seq: options.seq,
    tokenCount: message.tokenCount,
    branchTokens: (parent?.branchTokens ?? 0) + message.tokenCount,
    contentHash: message.contentHash,
    parentId: parent?.id ?? null,
    model: message.model ?? null,
    traceId: message.traceId ?? null,
    metadata: message.metadata ?? {},
    edited: false,
    deleted: false,
    editHistory: [],
    isChunk: false,
    chunkIndex: null,
    chunkParentId: null,
  };
}
