import { int } from 'neo4j-driver';
import type { ListMessagesOptions } from '../memory-store';
import type { StoredMessage } from '../types';
import { projectMessage, toNumber, toStoredMessage } from './map-record';
import type { Row } from './neo4j-runner';
import { scopeParams, type ScopedRunner } from './scope-params';

// `m.seq >= 0` on a scope lookup lets the planner use the (partition, instance, seq) index.
const IN_SCOPE = 'MATCH (m:Message {partition: $partition, instance: $instance}) WHERE m.seq >= 0';
const TURN = 'm.is_chunk = false AND m.deleted = false';
const RETURN_MESSAGE = `RETURN ${projectMessage('m')} AS message`;

// Ordering by every property of the (partition, instance, seq) index lets the planner read the
// index in order and stop at LIMIT, instead of sorting every turn of a long-lived instance.
function orderBySeq(direction: 'ASC' | 'DESC'): string {
  return `ORDER BY m.partition ${direction}, m.instance ${direction}, m.seq ${direction}`;
}

/** Binds `m` to the instance's live turn with the highest seq (no row when it has none). */
export const LATEST_TURN = `${IN_SCOPE} AND ${TURN} WITH m ${orderBySeq('DESC')} LIMIT 1`;

/** The live turn with the highest seq in the instance, or null. */
export async function latestTurn(scoped: ScopedRunner): Promise<StoredMessage | null> {
  const { runner, scope } = scoped;
  const rows = await runner.read(`${LATEST_TURN} ${RETURN_MESSAGE}`, scopeParams(scope));
  return firstMessage(rows);
}

/** Live turns with this content hash, newest first. */
export async function findByHash(
  scoped: ScopedRunner,
  options: { contentHash: string; limit: number },
): Promise<StoredMessage[]> {
  const { runner, scope } = scoped;
  if (options.limit <= 0) return [];
  const rows = await runner.read(
    `MATCH (m:Message {partition: $partition, instance: $instance, content_hash: $contentHash})
     WHERE ${TURN} ${RETURN_MESSAGE} ORDER BY m.seq DESC LIMIT $limit`,
    {
      contentHash: options.contentHash,
      limit: int(Math.floor(options.limit)),
      ...scopeParams(scope),
    },
  );
  return toMessages(rows);
}

/** Turns or chunks by id (deleted ones too, flagged), in the order asked, missing ids left out. */
export async function getMessages(scoped: ScopedRunner, ids: string[]): Promise<StoredMessage[]> {
  const { runner, scope } = scoped;
  if (ids.length === 0) return [];
  const rows = await runner.read(
    `UNWIND $ids AS id
     MATCH (m:Message {id: id}) WHERE m.partition = $partition AND m.instance = $instance
     ${RETURN_MESSAGE}`,
    { ids: [...new Set(ids)], ...scopeParams(scope) },
  );
  const byId = new Map(toMessages(rows).map((message) => [message.id, message]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/** The live turns that reply to `parentId`, oldest first. */
export async function getChildren(
  scoped: ScopedRunner,
  parentId: string,
): Promise<StoredMessage[]> {
  const { runner, scope } = scoped;
  const rows = await runner.read(
    `MATCH (m:Message)-[:REPLIES_TO]->(:Message {id: $parentId, partition: $partition, instance: $instance})
     WHERE m.partition = $partition AND m.instance = $instance AND ${TURN}
     ${RETURN_MESSAGE} ORDER BY m.seq`,
    { parentId, ...scopeParams(scope) },
  );
  return toMessages(rows);
}

/** The RESPONDED_WITH partner of a turn: the latest live answer of a question, or the question of an answer. */
export async function getRespondedWith(
  scoped: ScopedRunner,
  id: string,
): Promise<StoredMessage | null> {
  const { runner, scope } = scoped;
  const rows = await runner.read(
    `MATCH (:Message {id: $id, partition: $partition, instance: $instance})-[:RESPONDED_WITH]-(m:Message)
     WHERE m.partition = $partition AND m.instance = $instance AND m.deleted = false
     ${RETURN_MESSAGE} ORDER BY m.seq DESC LIMIT 1`,
    { id, ...scopeParams(scope) },
  );
  return firstMessage(rows);
}

/** Turns of an instance in seq order, filtered as the options say (chunks never). */
export async function listMessages(
  scoped: ScopedRunner,
  options: ListMessagesOptions,
): Promise<StoredMessage[]> {
  const { runner, scope } = scoped;
  if (options.limit <= 0 || options.roles?.length === 0) return [];
  // Only fixed fragments are joined, one per option present, so the planner sees plain
  // range predicates it can serve from the (partition, instance, seq) index.
  const conditions = ['m.is_chunk = false'];
  const params: Row = { limit: int(Math.floor(options.limit)), ...scopeParams(scope) };
  if (!options.includeDeleted) conditions.push('m.deleted = false');
  if (options.afterSeq !== undefined) {
    conditions.push('m.seq > $afterSeq');
    params['afterSeq'] = int(Math.floor(options.afterSeq));
  }
  if (options.beforeSeq !== undefined) {
    conditions.push('m.seq < $beforeSeq');
    params['beforeSeq'] = int(Math.ceil(options.beforeSeq));
  }
  if (options.roles !== undefined) {
    conditions.push('m.role IN $roles');
    params['roles'] = options.roles;
  }
  if (options.fromTime !== undefined) {
    conditions.push('m.timestamp >= $fromTime');
    params['fromTime'] = options.fromTime;
  }
  if (options.toTime !== undefined) {
    conditions.push('m.timestamp < $toTime');
    params['toTime'] = options.toTime;
  }
  const order = options.order === 'desc' ? 'DESC' : 'ASC';
  const rows = await runner.read(
    `${IN_SCOPE} AND ${conditions.join(' AND ')} ${RETURN_MESSAGE} ${orderBySeq(order)} LIMIT $limit`,
    params,
  );
  return toMessages(rows);
}

/** Number of live turns in the instance. */
export async function countMessages(scoped: ScopedRunner): Promise<number> {
  const { runner, scope } = scoped;
  const rows = await runner.read(
    `${IN_SCOPE} AND ${TURN} RETURN count(m) AS count`,
    scopeParams(scope),
  );
  return toNumber(rows[0]?.['count']) ?? 0;
}

/** The messages of rows that carry a projected `message` column. */
export function toMessages(rows: Row[]): StoredMessage[] {
  return rows.map((row) => toStoredMessage(row['message']));
}

function firstMessage(rows: Row[]): StoredMessage | null {
  const row = rows[0];
  return row ? toStoredMessage(row['message']) : null;
}
