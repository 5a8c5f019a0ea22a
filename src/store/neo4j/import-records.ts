import { int } from 'neo4j-driver';
import { RecordImportError } from '../../errors';
import {
  fromMessageRecord,
  fromToolCallRecord,
  type CoreMemoryRecord,
  type GraphRecord,
  type InstanceRecord,
  type LinkRecord,
  type MessageRecord,
  type PeriodSummaryRecord,
  type SummaryRecord,
  type SynapseRecord,
  type ToolCallRecord,
  type TopicLinkRecord,
  type TopicRecord,
} from '../graph-record';
import type { ImportResult } from '../management-types';
import { scopeKey } from '../scope-key';
import type { Scope } from '../types';
import { importPeriodSummaries, importTopicLinks, importTopics } from './import-job-records';
import { importLinks } from './import-links';
import { count, fail, type ImportState, type Indexed } from './import-state';
import { toMessageProperties, toNumber, toToolCallProperties } from './map-record';
import type { Neo4jRunner, Row, TransactionRunner } from './neo4j-runner';
import { lockInstance } from './scope-params';

/**
 * Stores export records in one write transaction (see MemoryStore.importRecords). Nodes are
 * checked and created kind by kind with UNWIND, then relationships; the instances touched are
 * locked first, as appendPath locks them, so imported and live sequence numbers never collide.
 */
export async function importRecords(options: {
  runner: Neo4jRunner;
  records: GraphRecord[];
  dimensions: number;
}): Promise<ImportResult> {
  const groups = groupRecords(options.records);
  for (const { index, record } of [...groups.messages, ...groups.toolCalls]) {
    const length = record.embedding?.length ?? options.dimensions;
    if (length !== options.dimensions) {
      throw new RecordImportError(
        index,
        `embedding has ${length} dimensions; the store uses ${options.dimensions}`,
      );
    }
  }
  for (const { index, record } of groups.topics) {
    if (record.centroid.length !== options.dimensions) {
      throw new RecordImportError(
        index,
        `topic centroid has ${record.centroid.length} dimensions; the store uses ${options.dimensions}`,
      );
    }
  }
  return options.runner.writeTransaction(async (transaction) => {
    const state: ImportState = { transaction, result: { created: 0, unchanged: 0 } };
    const existed = await existingInstances(transaction, groups.instances);
    for (const scope of scopesOf([...groups.instances, ...groups.messages]))
      await lockInstance(transaction, scope);
    await importInstances(state, { records: groups.instances, existed });
    await importMessages(state, groups.messages);
    await importToolCalls(state, groups.toolCalls);
    await importKeyed(state, groups.keyed);
    await importTopics(state, groups.topics);
    await importPeriodSummaries(state, groups.periods);
    await importLinks(state, groups.links);
    await importTopicLinks(state, groups.topicLinks);
    return state.result;
  });
}

function groupRecords(records: GraphRecord[]) {
  const groups = {
    instances: [] as Indexed<InstanceRecord>[],
    messages: [] as Indexed<MessageRecord>[],
    toolCalls: [] as Indexed<ToolCallRecord>[],
    keyed: [] as Indexed<CoreMemoryRecord | SummaryRecord>[],
    topics: [] as Indexed<TopicRecord>[],
    periods: [] as Indexed<PeriodSummaryRecord>[],
    links: [] as Indexed<LinkRecord | SynapseRecord>[],
    topicLinks: [] as Indexed<TopicLinkRecord>[],
  };
  records.forEach((record, index) => {
    if (record.type === 'Instance') groups.instances.push({ index, record });
    else if (record.type === 'Message') groups.messages.push({ index, record });
    else if (record.type === 'ToolCall') groups.toolCalls.push({ index, record });
    else if (record.type === 'CoreMemory' || record.type === 'Summary')
      groups.keyed.push({ index, record });
    else if (record.type === 'Topic') groups.topics.push({ index, record });
    else if (record.type === 'PeriodSummary') groups.periods.push({ index, record });
    else if (record.type === 'BELONGS_TO') groups.topicLinks.push({ index, record });
    else groups.links.push({ index, record });
  });
  return groups;
}

async function existingInstances(
  transaction: TransactionRunner,
  records: Indexed<InstanceRecord>[],
): Promise<Set<string>> {
  if (records.length === 0) return new Set();
  const rows = await transaction.run(
    `UNWIND $scopes AS scope
     MATCH (i:Instance {partition: scope.partition, instance: scope.instance})
     RETURN i.partition AS partition, i.instance AS instance`,
    { scopes: scopesOf(records) },
  );
  return new Set(rows.map((row) => scopeKey(row as unknown as Scope)));
}

async function importInstances(
  state: ImportState,
  options: { records: Indexed<InstanceRecord>[]; existed: Set<string> },
): Promise<void> {
  const seen = new Set<string>();
  const rows: Row[] = [];
  for (const { record } of options.records) {
    const key = scopeKey(record);
    const created = !options.existed.has(key) && !seen.has(key);
    seen.add(key);
    count(state, created);
    rows.push({
      partition: record.partition,
      instance: record.instance,
      lastSeq: int(record.last_seq),
      deletedAt: created && record.deleted_at !== null ? int(record.deleted_at) : null,
      topicsCursor: int(record.topics_cursor),
      periodsCursor: int(record.periods_cursor),
    });
  }
  if (rows.length === 0) return;
  // The lock above created every missing counter with last_seq 0; an existing one only grows,
  // and so do the jobs' cursors (a job that already went further here keeps its place).
  await state.transaction.run(
    `UNWIND $rows AS row
     MATCH (i:Instance {partition: row.partition, instance: row.instance})
     SET i.last_seq = CASE WHEN i.last_seq < row.lastSeq THEN row.lastSeq ELSE i.last_seq END,
         i.deleted_at = coalesce(row.deletedAt, i.deleted_at),
         i.topics_cursor = CASE WHEN coalesce(i.topics_cursor, 0) < row.topicsCursor
                           THEN row.topicsCursor ELSE i.topics_cursor END,
         i.periods_cursor = CASE WHEN coalesce(i.periods_cursor, 0) < row.periodsCursor
                            THEN row.periodsCursor ELSE i.periods_cursor END`,
    { rows },
  );
}

async function importMessages(
  state: ImportState,
  records: Indexed<MessageRecord>[],
): Promise<void> {
  if (records.length === 0) return;
  const { transaction } = state;
  const found = await transaction.run(
    `UNWIND $rows AS row
     OPTIONAL MATCH (m:Message {id: row.id})
     OPTIONAL MATCH (s:Message {partition: row.partition, instance: row.instance, seq: row.seq})
       WHERE row.isChunk = false AND s.is_chunk = false AND s.id <> row.id
     RETURN row.index AS index, m.partition AS partition, m.instance AS instance, collect(s.id) AS seqOwners`,
    {
      rows: records.map(({ index, record }) => ({
        index,
        id: record.id,
        partition: record.partition,
        instance: record.instance,
        seq: int(record.seq),
        isChunk: record.is_chunk,
      })),
    },
  );
  const byIndex = new Map(found.map((row) => [toNumber(row['index']), row]));
  const ids = new Set<string>();
  const seqs = new Map<string, string>();
  const fresh: Indexed<MessageRecord>[] = [];
  for (const item of records) {
    const { index, record } = item;
    const row = byIndex.get(index);
    if (isExisting(state, { index, row, record, what: `message ${record.id}`, batchIds: ids }))
      continue;
    const seqKey = `${scopeKey(record)}\u0000${record.seq}`;
    const owner =
      (row?.['seqOwners'] as string[] | undefined)?.[0] ??
      (record.is_chunk ? undefined : seqs.get(seqKey));
    if (!record.is_chunk && owner !== undefined) {
      fail(
        index,
        `seq ${record.seq} of ${record.partition}/${record.instance} already belongs to message ${owner}`,
      );
    }
    if (!record.is_chunk) seqs.set(seqKey, record.id);
    fresh.push(item);
    count(state, true);
  }
  if (fresh.length === 0) return;
  await transaction.run('UNWIND $rows AS row CREATE (m:Message) SET m = row', {
    rows: fresh.map(({ record }) => messageProperties(record)),
  });
  await raiseCounters(transaction, fresh);
  await checkChunkTurns(
    transaction,
    fresh.filter(({ record }) => record.is_chunk),
  );
}

function messageProperties(record: MessageRecord): Row {
  const properties: Row = {
    ...toMessageProperties(fromMessageRecord(record)),
    embedding: record.embedding,
    needs_embedding: record.embedding === null && record.content !== '' ? true : null,
  };
  if (record.deleted_with_instance) properties['deleted_with_instance'] = true;
  return properties;
}

async function raiseCounters(
  transaction: TransactionRunner,
  records: Indexed<MessageRecord>[],
): Promise<void> {
  const highest = new Map<string, Scope & { lastSeq: number }>();
  for (const { record } of records) {
    const key = scopeKey(record);
    const known = highest.get(key);
    if (!known || known.lastSeq < record.seq)
      highest.set(key, {
        partition: record.partition,
        instance: record.instance,
        lastSeq: record.seq,
      });
  }
  await transaction.run(
    `UNWIND $rows AS row
     MATCH (i:Instance {partition: row.partition, instance: row.instance})
     SET i.last_seq = CASE WHEN i.last_seq < row.lastSeq THEN row.lastSeq ELSE i.last_seq END`,
    { rows: [...highest.values()].map((row) => ({ ...row, lastSeq: int(row.lastSeq) })) },
  );
}

async function checkChunkTurns(
  transaction: TransactionRunner,
  chunks: Indexed<MessageRecord>[],
): Promise<void> {
  if (chunks.length === 0) return;
  const rows = await transaction.run(
    `UNWIND $rows AS row
     OPTIONAL MATCH (turn:Message {id: row.turnId})
       WHERE turn.partition = row.partition AND turn.instance = row.instance AND turn.is_chunk = false
     RETURN row.index AS index, turn IS NOT NULL AS found`,
    {
      rows: chunks.map(({ index, record }) => ({
        index,
        turnId: record.chunk_parent_id,
        partition: record.partition,
        instance: record.instance,
      })),
    },
  );
  const missing = rows.find((row) => row['found'] !== true);
  if (missing) {
    const index = toNumber(missing['index']) ?? 0;
    const record = chunks.find((chunk) => chunk.index === index)?.record;
    fail(
      index,
      `chunk ${record?.id} belongs to turn ${record?.chunk_parent_id}, which is not a turn of this instance (a chunk's turn must come before it)`,
    );
  }
}

async function importToolCalls(
  state: ImportState,
  records: Indexed<ToolCallRecord>[],
): Promise<void> {
  if (records.length === 0) return;
  const { transaction } = state;
  const found = await transaction.run(
    `UNWIND $rows AS row
     OPTIONAL MATCH (t:ToolCall {id: row.id})
     OPTIONAL MATCH (m:Message {id: row.messageId})
       WHERE m.partition = row.partition AND m.instance = row.instance
     OPTIONAL MATCH (other:ToolCall {partition: row.partition, instance: row.instance, message_id: row.messageId})
       WHERE other.call_id = row.callId AND other.id <> row.id
     RETURN row.index AS index, t.partition AS partition, t.instance AS instance,
            m IS NOT NULL AS messageFound, collect(other.id) AS others`,
    {
      rows: records.map(({ index, record }) => ({
        index,
        id: record.id,
        partition: record.partition,
        instance: record.instance,
        messageId: record.message_id,
        callId: record.call_id,
      })),
    },
  );
  const byIndex = new Map(found.map((row) => [toNumber(row['index']), row]));
  const ids = new Set<string>();
  const calls = new Set<string>();
  const fresh: Row[] = [];
  for (const { index, record } of records) {
    const row = byIndex.get(index);
    if (isExisting(state, { index, row, record, what: `tool call ${record.id}`, batchIds: ids }))
      continue;
    if (row?.['messageFound'] !== true)
      fail(
        index,
        `tool call ${record.id} is CALLED_BY message ${record.message_id}, which is not in this instance`,
      );
    const other = (row['others'] as string[])[0];
    const callKey = `${record.message_id}\u0000${record.call_id}`;
    if (other !== undefined || calls.has(callKey))
      fail(
        index,
        `message ${record.message_id} already has a tool call with call_id ${record.call_id}`,
      );
    calls.add(callKey);
    fresh.push({
      ...toToolCallProperties(fromToolCallRecord(record)),
      embedding: record.embedding,
      needs_embedding: record.embedding === null ? true : null,
    });
    count(state, true);
  }
  if (fresh.length > 0)
    await transaction.run('UNWIND $rows AS row CREATE (t:ToolCall) SET t = row', { rows: fresh });
}

async function importKeyed(
  state: ImportState,
  records: Indexed<CoreMemoryRecord | SummaryRecord>[],
): Promise<void> {
  const seen = new Set<string>();
  for (const { record } of records) {
    const key = record.type === 'CoreMemory' ? record.name : record.boundary_id;
    const batchKey = `${record.type}\u0000${scopeKey(record)}\u0000${key}`;
    const params = {
      partition: record.partition,
      instance: record.instance,
      key,
      content: record.content,
      tokenCount: int(record.token_count),
      updatedAt: int(record.updated_at),
      turns: int(record.type === 'Summary' ? record.turns : 0),
    };
    const rows = await state.transaction.run(
      record.type === 'CoreMemory'
        ? `OPTIONAL MATCH (old:CoreMemory {partition: $partition, instance: $instance, name: $key})
           WITH old IS NULL AS created
           MERGE (c:CoreMemory {partition: $partition, instance: $instance, name: $key})
           ON CREATE SET c.content = $content, c.token_count = $tokenCount, c.updated_at = $updatedAt
           RETURN created`
        : `OPTIONAL MATCH (old:Summary {partition: $partition, instance: $instance, boundary_id: $key})
           WITH old IS NULL AS created
           MERGE (s:Summary {partition: $partition, instance: $instance, boundary_id: $key})
           ON CREATE SET s.content = $content, s.token_count = $tokenCount, s.turns = $turns, s.updated_at = $updatedAt
           RETURN created`,
      params,
    );
    count(state, rows[0]?.['created'] === true && !seen.has(batchKey));
    seen.add(batchKey);
  }
}

/** true when the node is already stored (or earlier in the batch) in its scope; another scope's node is an error. */
function isExisting(
  state: ImportState,
  options: {
    index: number;
    row: Row | undefined;
    record: MessageRecord | ToolCallRecord;
    what: string;
    batchIds: Set<string>;
  },
): boolean {
  const { index, row, record, what, batchIds } = options;
  const partition = row?.['partition'];
  if (typeof partition === 'string') {
    if (partition !== record.partition || row?.['instance'] !== record.instance) {
      fail(index, `${what} already exists in ${partition}/${String(row?.['instance'])}`);
    }
    count(state, false);
    return true;
  }
  if (batchIds.has(record.id)) {
    count(state, false);
    return true;
  }
  batchIds.add(record.id);
  return false;
}

function scopesOf(records: Indexed<Scope>[]): Scope[] {
  const scopes = new Map<string, Scope>();
  for (const { record } of records)
    scopes.set(scopeKey(record), { partition: record.partition, instance: record.instance });
  return [...scopes.values()];
}
