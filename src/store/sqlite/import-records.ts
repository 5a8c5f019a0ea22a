import type Database from 'better-sqlite3';
import { RecordImportError } from '../../errors';
import type {
  GraphRecord,
  LinkRecord,
  MessageRecord,
  SynapseRecord,
  ToolCallRecord,
} from '../graph-record';
import type { ImportResult } from '../management-types';
import { sameScope } from '../scope-key';
import type { Scope } from '../types';
import { adminStatements, DELETED_WITH_INSTANCE, type AdminStatements } from './admin-statements';
import { JobRecordImporter } from './import-job-records';
import { IN_SCOPE, scopeParams, type ScopeParams } from './scope-sql';
import type { Statements } from './statements';
import { encodeVector } from '../vector-codec';

type Owner = ScopeParams & {
  isChunk: number;
  parentId: string | null;
  chunkParentId: string | null;
};

const cache = new WeakMap<Database.Database, ReturnType<typeof prepare>>();

function prepare(db: Database.Database) {
  return {
    messageOwner: db.prepare<[string], Owner>(
      `SELECT partition, instance, is_chunk AS isChunk, parent_id AS parentId, chunk_parent_id AS chunkParentId
         FROM messages INDEXED BY messages_id WHERE id = ?`,
    ),
    seqOwner: db
      .prepare<ScopeParams & { seq: number }, string>(
        `SELECT id FROM messages INDEXED BY messages_scope_seq
          WHERE ${IN_SCOPE} AND seq = @seq AND is_chunk = 0 LIMIT 1`,
      )
      .pluck(),
    insertMessage: db.prepare(
      `INSERT INTO messages (id, partition, instance, role, seq, timestamp, token_count, branch_tokens,
         content_hash, parent_id, model, trace_id, edited, deleted, is_chunk, chunk_index,
         chunk_parent_id, snippet, metadata, edit_history, embedding, content, raw)
       VALUES (@id, @partition, @instance, @role, @seq, @timestamp, @tokenCount, @branchTokens,
         @contentHash, NULL, @model, @traceId, @edited, @deleted, @isChunk, @chunkIndex,
         @chunkParentId, @snippet, @metadata, @editHistory, @embedding, @content, @raw)`,
    ),
    raiseCounter: db.prepare<ScopeParams & { lastSeq: number }>(
      `INSERT INTO instance_counters (partition, instance, last_seq) VALUES (@partition, @instance, @lastSeq)
       ON CONFLICT (partition, instance) DO UPDATE SET last_seq = max(last_seq, excluded.last_seq)`,
    ),
    insertInstanceState: db.prepare<ScopeParams & { deletedAt: number }>(
      `INSERT INTO instance_states (partition, instance, deleted_at) VALUES (@partition, @instance, @deletedAt)
       ON CONFLICT (partition, instance) DO NOTHING`,
    ),
    toolCallOwner: db.prepare<[string], ScopeParams & { messageId: string }>(
      'SELECT partition, instance, message_id AS messageId FROM tool_calls INDEXED BY tool_calls_id WHERE id = ?',
    ),
    callIdOwner: db
      .prepare<{ messageId: string; callId: string }, string>(
        'SELECT id FROM tool_calls WHERE message_id = @messageId AND call_id = @callId',
      )
      .pluck(),
    insertToolCall: db.prepare(
      `INSERT INTO tool_calls (id, partition, instance, message_id, call_id, tool_name, timestamp,
         token_count, duration_ms, embedding, arguments, result)
       VALUES (@id, @partition, @instance, @messageId, @callId, @toolName, @timestamp, @tokenCount,
         @durationMs, @embedding, @arguments, @result)`,
    ),
    insertCoreMemory: db.prepare(
      `INSERT INTO core_memory (partition, instance, name, content, token_count, updated_at)
       VALUES (@partition, @instance, @name, @content, @tokenCount, @updatedAt)
       ON CONFLICT (partition, instance, name) DO NOTHING`,
    ),
    insertSummary: db.prepare(
      `INSERT INTO summaries (partition, instance, boundary_id, content, token_count, turns, updated_at)
       VALUES (@partition, @instance, @boundaryId, @content, @tokenCount, @turns, @updatedAt)
       ON CONFLICT (partition, instance, boundary_id) DO NOTHING`,
    ),
    setParent: db.prepare<ScopeParams & { from: string; to: string }>(
      `UPDATE messages SET parent_id = @to WHERE ${IN_SCOPE} AND id = @from AND parent_id IS NULL`,
    ),
  };
}

/**
 * Stores export records (see MemoryStore.importRecords); run it in one transaction that took the
 * write lock first (GroupCommit). Records are taken in order, so a relationship finds nodes of
 * the same batch stored before it.
 */
export function importRecords(options: {
  db: Database.Database;
  statements: Statements;
  dimensions: number;
  records: GraphRecord[];
}): ImportResult {
  const { db } = options;
  const admin = adminStatements(db);
  let own = cache.get(db);
  if (!own) {
    own = prepare(db);
    cache.set(db, own);
  }
  const importer = new RecordImporter({ ...options, admin, own });
  return importer.run(options.records);
}

type Deps = {
  db: Database.Database;
  statements: Statements;
  admin: AdminStatements;
  own: ReturnType<typeof prepare>;
  dimensions: number;
};

class RecordImporter {
  private readonly result: ImportResult = { created: 0, unchanged: 0 };
  private index = 0;
  private readonly jobs: JobRecordImporter;

  constructor(private readonly deps: Deps) {
    this.jobs = new JobRecordImporter(deps.db, {
      dimensions: deps.dimensions,
      fail: (message) => this.fail(message),
    });
  }

  run(records: GraphRecord[]): ImportResult {
    records.forEach((record, index) => {
      this.index = index;
      this.count(this.store(record));
    });
    return this.result;
  }

  private store(record: GraphRecord): boolean {
    const { own, admin } = this.deps;
    const params = scopeParams(record);
    switch (record.type) {
      case 'Instance': {
        const existed = admin.counter.get(params) !== undefined;
        own.raiseCounter.run({ lastSeq: record.last_seq, ...params });
        if (!existed && record.deleted_at !== null)
          own.insertInstanceState.run({ deletedAt: record.deleted_at, ...params });
        this.jobs.cursors(record);
        return !existed;
      }
      case 'Message':
        return this.message(record);
      case 'ToolCall':
        return this.toolCall(record);
      case 'CoreMemory':
        return (
          own.insertCoreMemory.run({
            name: record.name,
            content: record.content,
            tokenCount: record.token_count,
            updatedAt: record.updated_at,
            ...params,
          }).changes > 0
        );
      case 'Summary':
        return (
          own.insertSummary.run({
            boundaryId: record.boundary_id,
            content: record.content,
            tokenCount: record.token_count,
            turns: record.turns,
            updatedAt: record.updated_at,
            ...params,
          }).changes > 0
        );
      case 'Topic':
      case 'PeriodSummary':
      case 'BELONGS_TO':
        return this.jobs.store(record);
      default:
        return this.relationship(record);
    }
  }

  private message(record: MessageRecord): boolean {
    const { own } = this.deps;
    const params = scopeParams(record);
    if (this.existing(own.messageOwner.get(record.id), record, `message ${record.id}`))
      return false;
    if (record.is_chunk) {
      const turn = own.messageOwner.get(record.chunk_parent_id ?? '');
      if (!turn || !sameScope(turn, record) || turn.isChunk === 1) {
        this.fail(
          `chunk ${record.id} belongs to turn ${record.chunk_parent_id}, which is not a turn of this instance (a chunk's turn must come before it)`,
        );
      }
    } else {
      const owner = own.seqOwner.get({ seq: record.seq, ...params });
      if (owner !== undefined)
        this.fail(
          `seq ${record.seq} of ${record.partition}/${record.instance} already belongs to message ${owner}`,
        );
    }
    const { lastInsertRowid } = own.insertMessage.run({
      id: record.id,
      role: record.role,
      seq: record.seq,
      timestamp: record.timestamp,
      tokenCount: record.token_count,
      branchTokens: record.branch_tokens,
      contentHash: record.content_hash,
      model: record.model,
      traceId: record.trace_id,
      edited: record.edited ? 1 : 0,
      deleted: record.deleted ? (record.deleted_with_instance ? DELETED_WITH_INSTANCE : 1) : 0,
      isChunk: record.is_chunk ? 1 : 0,
      chunkIndex: record.chunk_index,
      chunkParentId: record.chunk_parent_id,
      snippet: record.snippet,
      metadata: JSON.stringify(record.metadata),
      editHistory: JSON.stringify(record.edit_history),
      embedding: this.vector(record.embedding),
      content: record.content,
      raw: JSON.stringify(record.raw),
      ...params,
    });
    this.deps.statements.queueFullText.run(lastInsertRowid);
    if (!record.is_chunk) own.raiseCounter.run({ lastSeq: record.seq, ...params });
    return true;
  }

  private toolCall(record: ToolCallRecord): boolean {
    const { own } = this.deps;
    if (this.existing(own.toolCallOwner.get(record.id), record, `tool call ${record.id}`))
      return false;
    const message = own.messageOwner.get(record.message_id);
    if (!message || !sameScope(message, record))
      this.fail(
        `tool call ${record.id} is CALLED_BY message ${record.message_id}, which is not in this instance`,
      );
    const other = own.callIdOwner.get({ messageId: record.message_id, callId: record.call_id });
    if (other !== undefined)
      this.fail(
        `message ${record.message_id} already has tool call ${other} with call_id ${record.call_id}`,
      );
    own.insertToolCall.run({
      id: record.id,
      messageId: record.message_id,
      callId: record.call_id,
      toolName: record.tool_name,
      timestamp: record.timestamp,
      tokenCount: record.token_count,
      durationMs: record.duration_ms,
      embedding: this.vector(record.embedding),
      arguments: record.arguments,
      result: record.result,
      ...scopeParams(record),
    });
    return true;
  }

  private relationship(record: LinkRecord | SynapseRecord): boolean {
    const { own, statements } = this.deps;
    const what = `${record.type} from ${record.from} to ${record.to}`;
    if (record.type === 'CALLED_BY') {
      const call = own.toolCallOwner.get(record.from);
      if (!call || !sameScope(call, record) || call.messageId !== record.to)
        this.fail(`${what}: no tool call ${record.from} of message ${record.to} in this instance`);
      return false;
    }
    const from = own.messageOwner.get(record.from);
    const to = own.messageOwner.get(record.to);
    if (!from || !to || !sameScope(from, record) || !sameScope(to, record))
      this.fail(`${what}: both messages must be stored in this instance before it`);
    if (record.type === 'CHUNK_OF') {
      if (from.chunkParentId !== record.to || from.isChunk !== 1)
        this.fail(`${what}: message ${record.from} is not a chunk of ${record.to}`);
      return false;
    }
    if (record.type === 'REPLIES_TO') {
      if (from.parentId === record.to) return false;
      if (from.parentId !== null)
        this.fail(`${what}: message ${record.from} already replies to ${from.parentId}`);
      own.setParent.run({ from: record.from, to: record.to, ...scopeParams(record) });
      return true;
    }
    const score = record.type === 'SYNAPSE' ? record.score : 1;
    return (
      statements.insertEdge.run({
        type: record.type,
        fromId: record.from,
        toId: record.to,
        score,
        ...scopeParams(record),
      }).changes > 0
    );
  }

  /** true when the record's node is already stored in its scope; a node of another scope is an error. */
  private existing(owner: ScopeParams | undefined, record: Scope, what: string): boolean {
    if (owner === undefined) return false;
    if (!sameScope(owner, record))
      this.fail(`${what} already exists in ${owner.partition}/${owner.instance}`);
    return true;
  }

  private vector(values: number[] | null): Buffer | null {
    if (values === null) return null;
    if (values.length !== this.deps.dimensions)
      this.fail(
        `embedding has ${values.length} dimensions; the store uses ${this.deps.dimensions}`,
      );
    return encodeVector(values);
  }

  private count(created: boolean): void {
    if (created) this.result.created += 1;
    else this.result.unchanged += 1;
  }

  private fail(message: string): never {
    throw new RecordImportError(this.index, message);
  }
}
