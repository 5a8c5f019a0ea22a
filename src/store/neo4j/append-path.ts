import { int } from 'neo4j-driver';
import { NotFoundError } from '../../errors';
import type { AppendedTurn, NewMessage, Scope, StoredMessage } from '../types';
import { makeSnippet } from '../../text/snippet';
import { projectMessage, toMessageProperties, toStoredMessage } from './map-record';
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

// The usual append, as one auto-commit statement (a round trip is what a turn costs): take the
// instance lock, find the parent, and unless the first turn is already stored under it (a retry
// or a resent history: then nothing is written and the transaction below sorts it out), create
// the turns, link them and advance the counter. The rows carry seq and branch_tokens relative
// to the parent; the statement adds the counter and the parent's tokens.
const APPEND_FRESH = `
MERGE (i:Instance {partition: $partition, instance: $instance})
  ON CREATE SET i.last_seq = 0
SET i.locked_at = timestamp()
WITH i, i.last_seq AS lastSeq
OPTIONAL MATCH (parent:Message {id: $parentId, partition: $partition, instance: $instance})
WHERE parent.is_chunk = false
CALL (parent) {
  OPTIONAL MATCH (dup:Message {partition: $partition, instance: $instance, content_hash: $firstHash})
  WHERE dup.role = $firstRole AND dup.deleted = false AND dup.is_chunk = false
    AND CASE WHEN $parentId IS NULL THEN NOT EXISTS { (dup)-[:REPLIES_TO]->(:Message) }
        ELSE EXISTS { (dup)-[:REPLIES_TO]->(parent) } END
  RETURN dup ORDER BY dup.seq LIMIT 1
}
WITH i, lastSeq, parent, dup, ($parentId IS NULL OR parent IS NOT NULL) AND dup IS NULL AS fresh
CALL (lastSeq, parent, fresh) {
  WITH lastSeq, parent WHERE fresh
  UNWIND $rows AS row
  CREATE (m:Message)
  SET m = row, m.seq = m.seq + lastSeq, m.branch_tokens = m.branch_tokens + coalesce(parent.branch_tokens, 0)
}
CALL (fresh) {
  WITH fresh WHERE fresh
  UNWIND $links AS link
  MATCH (child:Message {id: link.child, partition: $partition, instance: $instance})
  MATCH (up:Message {id: link.parent, partition: $partition, instance: $instance})
  CREATE (child)-[:REPLIES_TO]->(up)
  FOREACH (_ IN CASE WHEN up.role = 'user' AND child.role = 'assistant' THEN [1] ELSE [] END |
    CREATE (up)-[:RESPONDED_WITH]->(child))
}
SET i.last_seq = CASE WHEN fresh THEN lastSeq + size($rows) ELSE lastSeq END
RETURN lastSeq, parent IS NOT NULL AS parentFound, coalesce(parent.branch_tokens, 0) AS parentTokens,
       dup IS NOT NULL AS duplicate`;

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
 * Stores a path of turns atomically. The instance lock comes first, so the dedupe lookups and
 * the sequence numbers see every earlier writer of the instance, in this process or another;
 * turns found already stored are returned with created=false.
 */
export async function appendPath(options: AppendPathOptions): Promise<AppendedTurn[]> {
  if (options.messages.length === 0) return [];
  return (await appendFresh(options)) ?? appendDeduplicated(options);
}

/** The path as new turns in one statement, or null when its first turn is already stored. */
async function appendFresh(options: AppendPathOptions): Promise<AppendedTurn[] | null> {
  const { runner, scope, messages, parentId } = options;
  const first = messages[0] as NewMessage;
  const created: StoredMessage[] = [];
  let previous: StoredMessage | null = null;
  for (const [index, message] of messages.entries()) {
    // Relative figures: the statement adds the instance counter and the parent's tokens.
    const stored = newStoredMessage({ ...options, message, parent: previous, seq: index + 1 });
    stored.parentId = previous?.id ?? parentId;
    created.push(stored);
    previous = stored;
  }
  const links = created.flatMap((message) =>
    message.parentId === null ? [] : [{ child: message.id, parent: message.parentId }],
  );
  const [row] = await runner.write(APPEND_FRESH, {
    parentId,
    firstHash: first.contentHash,
    firstRole: first.role,
    rows: created.map(toMessageProperties),
    links,
    ...scopeParams(scope),
  });
  if (parentId !== null && row?.['parentFound'] !== true) throw parentNotFound(parentId);
  if (!row || row['duplicate'] === true) return null;
  const lastSeq = Number(row['lastSeq']);
  const parentTokens = Number(row['parentTokens']);
  return created.map((message) => ({
    message: { ...message, seq: message.seq + lastSeq, branchTokens: message.branchTokens + parentTokens },
    created: true,
  }));
}

/** The general case in one transaction: skip the turns already stored, create the rest. */
async function appendDeduplicated(options: AppendPathOptions): Promise<AppendedTurn[]> {
  const { runner, scope, messages } = options;
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
      rows: created.map(toMessageProperties),
      links,
      lastSeq: int(lastSeq),
      ...scopeParams(scope),
    });
    return turns;
  });
}

async function findParent(
  transaction: TransactionRunner,
  scope: Scope,
  id: string,
): Promise<StoredMessage> {
  const rows = await transaction.run(FIND_PARENT, { id, ...scopeParams(scope) });
  const row = rows[0];
  if (!row) throw parentNotFound(id);
  return toStoredMessage(row['message']);
}

function parentNotFound(id: string): NotFoundError {
  return new NotFoundError(`parent message ${id} is not a turn of this instance`, 'parentId');
}

async function findExisting(
  transaction: TransactionRunner,
  scope: Scope,
  parent: StoredMessage | null,
  message: NewMessage,
): Promise<StoredMessage | null> {
  const params = { contentHash: message.contentHash, role: message.role, ...scopeParams(scope) };
  const rows = parent
    ? await transaction.run(FIND_CHILD, { parentId: parent.id, ...params })
    : await transaction.run(FIND_ROOT, params);
  const row = rows[0];
  return row ? toStoredMessage(row['message']) : null;
}

/** A turn as appendPath stores it, before the statement makes seq and branch tokens absolute. */
export function newStoredMessage(options: {
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
