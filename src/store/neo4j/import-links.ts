import type { LinkRecord, SynapseRecord } from '../graph-record';
import { count, fail, type ImportState, type Indexed } from './import-state';
import { toNumber } from './map-record';
import type { Row } from './neo4j-runner';

type MessageLinkRecord = LinkRecord | SynapseRecord;

// One MERGE per type: Cypher cannot take a relationship type as a parameter, and these texts
// are constants, never built from a record.
const MERGE_LINK: Record<MessageLinkRecord['type'], string> = {
  REPLIES_TO:
    'MATCH (a:Message {id: row.from}) MATCH (b:Message {id: row.to}) MERGE (a)-[:REPLIES_TO]->(b)',
  RESPONDED_WITH:
    'MATCH (a:Message {id: row.from}) MATCH (b:Message {id: row.to}) MERGE (a)-[:RESPONDED_WITH]->(b)',
  SYNAPSE:
    'MATCH (a:Message {id: row.from}) MATCH (b:Message {id: row.to}) MERGE (a)-[link:SYNAPSE]->(b) ON CREATE SET link.score = row.score',
  CHUNK_OF:
    'MATCH (a:Message {id: row.from}) MATCH (b:Message {id: row.to}) MERGE (a)-[:CHUNK_OF]->(b)',
  CALLED_BY:
    'MATCH (a:ToolCall {id: row.from}) MATCH (b:Message {id: row.to}) MERGE (a)-[:CALLED_BY]->(b)',
};

// What each relationship's ends look like now: both ends, the link if it exists, and for a
// REPLIES_TO the parent the turn already has.
const INSPECT_LINKS = `
UNWIND $rows AS row
OPTIONAL MATCH (a:Message {id: row.from})
OPTIONAL MATCH (call:ToolCall {id: row.from})
OPTIONAL MATCH (b:Message {id: row.to})
OPTIONAL MATCH (a)-[existing]->(b) WHERE type(existing) = row.type
OPTIONAL MATCH (call)-[called:CALLED_BY]->(b)
OPTIONAL MATCH (a)-[:REPLIES_TO]->(parent:Message)
RETURN row.index AS index,
       a.partition AS fromPartition, a.instance AS fromInstance, a.is_chunk AS fromChunk,
       a.chunk_parent_id AS chunkOf, call.partition AS callPartition, call.instance AS callInstance,
       call.message_id AS calledBy, b.partition AS toPartition, b.instance AS toInstance,
       count(existing) + count(called) AS existing, collect(DISTINCT parent.id) AS parents`;

/**
 * Checks every relationship record against the graph (both ends stored in the record's scope, a
 * CHUNK_OF or CALLED_BY agreeing with the node's own property, one parent per turn), then MERGEs
 * the new ones type by type.
 */
export async function importLinks(
  state: ImportState,
  records: Indexed<MessageLinkRecord>[],
): Promise<void> {
  if (records.length === 0) return;
  const found = await state.transaction.run(INSPECT_LINKS, {
    rows: records.map(({ index, record }) => ({
      index,
      from: record.from,
      to: record.to,
      type: record.type,
    })),
  });
  const byIndex = new Map(found.map((row) => [toNumber(row['index']), row]));
  const fresh = new Map<MessageLinkRecord['type'], Row[]>();
  const seen = new Set<string>();
  const parents = new Map<string, string>();
  for (const { index, record } of records) {
    const row = byIndex.get(index) ?? {};
    checkLink(index, record, row);
    const key = `${record.type}\u0000${record.from}\u0000${record.to}`;
    if (record.type === 'REPLIES_TO') {
      const parent = parents.get(record.from) ?? (row['parents'] as string[] | undefined)?.[0];
      if (parent !== undefined && parent !== record.to)
        fail(index, `message ${record.from} already replies to ${parent}`);
      parents.set(record.from, record.to);
    }
    const created = (toNumber(row['existing']) ?? 0) === 0 && !seen.has(key);
    seen.add(key);
    count(state, created);
    if (!created) continue;
    const rows = fresh.get(record.type) ?? [];
    rows.push({
      from: record.from,
      to: record.to,
      score: record.type === 'SYNAPSE' ? record.score : null,
    });
    fresh.set(record.type, rows);
  }
  for (const [type, rows] of fresh)
    await state.transaction.run(`UNWIND $rows AS row ${MERGE_LINK[type]}`, { rows });
}

function checkLink(index: number, record: MessageLinkRecord, row: Row): void {
  const what = `${record.type} from ${record.from} to ${record.to}`;
  const inScope = (partition: unknown, instance: unknown) =>
    partition === record.partition && instance === record.instance;
  if (!inScope(row['toPartition'], row['toInstance']))
    fail(index, `${what}: message ${record.to} must be stored in this instance before it`);
  if (record.type === 'CALLED_BY') {
    if (!inScope(row['callPartition'], row['callInstance']) || row['calledBy'] !== record.to) {
      fail(index, `${what}: no tool call ${record.from} of message ${record.to} in this instance`);
    }
    return;
  }
  if (!inScope(row['fromPartition'], row['fromInstance']))
    fail(index, `${what}: message ${record.from} must be stored in this instance before it`);
  if (record.type === 'CHUNK_OF' && (row['fromChunk'] !== true || row['chunkOf'] !== record.to)) {
    fail(index, `${what}: message ${record.from} is not a chunk of ${record.to}`);
  }
}
