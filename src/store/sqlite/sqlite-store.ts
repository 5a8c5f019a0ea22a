import { mkdirSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { StoreUnavailableError } from '../../errors';
import { toNumbers } from '../../lists';
import {
  type ListMessagesOptions,
  type MemoryStore,
  type StoreHealth,
  type VectorHit,
  type VectorSearchOptions,
} from '../memory-store';
import type {
  AppendedTurn,
  BranchSummary,
  CoreMemoryBlock,
  EmbeddingItem,
  IdempotentEntry,
  Neighbour,
  NewMessage,
  NewToolCall,
  PendingEmbedding,
  PinnedMemory,
  Scope,
  ScoredId,
  StoredMessage,
  StoredToolCall,
  Synapse,
  VectorInput,
} from '../types';
import { createAppendPath, createContinueLatest, type AppendPath, type AppendPathInput } from './append-path';
import { FullTextQueue } from './full-text-queue';
import { FullTextSearch } from './full-text-search';
import { commitOtherBatches, GroupCommit } from './group-commit';
import { listPendingEmbeddings } from './list-pending-embeddings';
import { toStoredMessage, toStoredToolCall } from './message-row';
import { TurnCache } from './turn-cache';
import { configureConnection, migrateSchema } from './schema';
import { scopeParams } from './scope-sql';
import { exactSearchVectors, searchVectors } from './search-vectors';
import { SearchThread } from './search-thread';
import { VectorIndexCache } from './vector-index-cache';
import { WalCheckpointer } from './wal-checkpointer';
import { replaceChunks } from './replace-chunks';
import { prepareStatements, type Statements } from './statements';
import { storeToolCalls } from './store-tool-calls';
import { openIdempotencyTable, type IdempotencyTable } from './idempotency-table';
import { decodeVector, encodeVector } from '../vector-codec';
import { exportGraph } from '../export-graph';
import { forkBranch } from '../fork-branch';
import type { GraphRecord } from '../graph-record';
import type {
  AsOfOptions,
  ExportFilter,
  ForkInput,
  ImportResult,
  InstanceSummary,
  MessageEdit,
  PartitionSummary,
  PurgeResult,
  StoreStats,
} from '../management-types';
import { messagesAsOf } from '../messages-as-of';
import { sameScope } from '../scope-key';
import { summarizePartitions } from '../summarize-partitions';
import { adminStatements } from './admin-statements';
import {
  editMessage,
  setInstanceDeleted,
  setMessageDeleted,
  type SqliteAdminContext,
} from './edit-message';
import { sqliteGraphReader } from './graph-reader';
import { importRecords } from './import-records';
import { listInstances, storeStats } from './list-instances';
import { purgeInstance, purgeMessage } from './purge-records';
import { readNeighbours } from './read-neighbours';
import { SqliteMaintenance } from './maintenance-records';
import type {
  CursorJob,
  ExpiredDeletion,
  OrphanCleanup,
  PeriodQuery,
  PeriodSummary,
  ScopeFilter,
  StoredTopic,
  TopicBatch,
  TopicSummaryUpdate,
} from '../topic-types';

/** How long a writer waits for another process's write lock before SQLITE_BUSY. */
export const BUSY_TIMEOUT_MS = 10_000;

/** Options of the embedded store. */
export interface SqliteStoreOptions {
  /** Directory of `memory.sqlite`; created with its parents when missing. */
  dataDir: string;
  /** Milliseconds since the epoch for records stored without a timestamp (tests pin it). */
  clock?: () => number;
  /** Memory the in-memory vector indexes of recently searched scopes may use (default 512 MiB). */
  vectorCacheBytes?: number;
  /** Searches run on a thread of their own (SearchThread), not the caller's (default false). */
  searchThread?: boolean;
  /**
   * The writes of a turn of the event loop share one commit (GroupCommit; default true); false
   * commits each on its own, for processes that share the file with other busy writers.
   */
  groupCommit?: boolean;
}

interface Connection {
  db: Database.Database;
  statements: Statements;
  appendPath: AppendPath;
  continueLatest: ReturnType<typeof createContinueLatest>;
  dimensions: number;
  vectors: VectorIndexCache;
  fullText: FullTextSearch;
  fullTextQueue: FullTextQueue;
  checkpointer: WalCheckpointer;
  /** Where searches run when the store has a search thread. */
  searcher: SearchThread | null;
  turns: TurnCache;
  /** Every write of the store's methods goes through it: one commit a turn of the event loop. */
  commits: GroupCommit;
}

const ALL_ROLES = JSON.stringify(['user', 'assistant', 'tool']);
/**
 * Rows from which a write commits on its own instead of joining the open batch (GroupCommit.alone):
 * a request's writes are one or a few turns, a bulk load's or a first resent history's many.
 */
const BULK_WRITE_ROWS = 64;

/**
 * The embedded MemoryStore: DESIGN.md section 3's graph mapped to SQLite tables, FTS5 for
 * full text, and cosine search over Float32 BLOBs through an in-memory approximate index per
 * recently searched scope (VectorIndexCache). better-sqlite3 is synchronous;
 * the async methods only wrap it, and cross-process safety comes from WAL and
 * BEGIN IMMEDIATE transactions.
 */
export class SqliteStore implements MemoryStore {
  readonly kind = 'sqlite' as const;
  /** Path of the database file. */
  readonly file: string;
  private readonly dataDir: string;
  private readonly clock: () => number;
  private readonly vectorCacheBytes: number | undefined;
  private readonly searchThread: boolean;
  private readonly groupCommit: boolean;
  private connection: Connection | null = null;
  private idempotency: IdempotencyTable | null = null;

  constructor(options: SqliteStoreOptions) {
    this.dataDir = options.dataDir;
    this.file = path.join(options.dataDir, 'memory.sqlite');
    this.clock = options.clock ?? Date.now;
    this.vectorCacheBytes = options.vectorCacheBytes;
    this.searchThread = options.searchThread ?? false;
    this.groupCommit = options.groupCommit ?? true;
  }

  async init(options: { embeddingDimensions: number }): Promise<void> {
    if (this.connection !== null) {
      this.connection.dimensions = options.embeddingDimensions;
      this.connection.vectors.close();
      this.connection.vectors = this.vectorCache(this.connection.db, options.embeddingDimensions);
      this.connection.searcher?.setDimensions(options.embeddingDimensions);
      return;
    }
    let db: Database.Database | null = null;
    try {
      mkdirSync(this.dataDir, { recursive: true });
      db = new Database(this.file, { timeout: BUSY_TIMEOUT_MS });
      configureConnection(db);
      commitOtherBatches(db);
      migrateSchema(db);
      const statements = prepareStatements(db);
      const appendPath = createAppendPath({ statements, clock: this.clock });
      const continueLatest = createContinueLatest({ statements, appendPath });
      const dimensions = options.embeddingDimensions;
      const vectors = this.vectorCache(db, dimensions);
      const fullText = new FullTextSearch(db);
      const fullTextQueue = new FullTextQueue(db);
      this.idempotency = openIdempotencyTable(db);
      const checkpointer = new WalCheckpointer(db, this.file);
      const searcher = this.searchThread
        ? new SearchThread({
            file: this.file,
            dimensions,
            vectorCacheBytes: this.vectorCacheBytes,
            busyTimeoutMs: BUSY_TIMEOUT_MS,
          })
        : null;
      const turns = new TurnCache(() => statements.turnEpoch.get() ?? 0);
      // What is kept in memory of a rolled-back batch's writes: the turns it stored.
      const commits = new GroupCommit(db, {
        grouped: this.groupCommit,
        onRollback: () => turns.clear(),
      });
      this.connection = {
        db,
        statements,
        turns,
        appendPath,
        continueLatest,
        dimensions,
        vectors,
        fullText,
        fullTextQueue,
        checkpointer,
        searcher,
        commits,
      };
    } catch (error) {
      db?.close();
      throw new StoreUnavailableError(`cannot open ${this.file}: ${errorMessage(error)}`, error);
    }
  }

  async close(): Promise<void> {
    this.connection?.commits.flush();
    await this.connection?.searcher?.close();
    await this.connection?.checkpointer.stop();
    this.connection?.fullTextQueue.close();
    this.connection?.vectors.close();
    this.connection?.db.close();
    this.connection = null;
    this.idempotency = null;
  }

  async health(): Promise<StoreHealth> {
    try {
      this.open.statements.ping.get();
      // A stopped search thread leaves searches to the event loop: slower, not wrong.
      const thread = this.open.searcher?.state === 'stopped' ? ' (search thread stopped: searching in the event loop)' : '';
      return { ok: true, store: 'sqlite', detail: `${this.file}${thread}` };
    } catch (error) {
      return { ok: false, store: 'sqlite', detail: errorMessage(error) };
    }
  }

  async appendPath(scope: Scope, input: AppendPathInput): Promise<AppendedTurn[]> {
    if (input.messages.length === 0) return [];
    const { appendPath, turns } = this.open;
    return this.write(
      () => {
        const appended = appendPath(scope, input);
        turns.extend(appended.map((turn) => turn.message));
        return appended;
      },
      { rows: input.messages.length },
    );
  }

  async continueLatest(scope: Scope, message: NewMessage): Promise<AppendedTurn> {
    const { continueLatest, turns } = this.open;
    return this.write(() => {
      const appended = continueLatest(scope, message);
      turns.extend([appended.message]);
      return appended;
    });
  }

  async latestTurn(scope: Scope): Promise<StoredMessage | null> {
    const row = this.open.statements.latestTurn.get(scopeParams(scope));
    return row === undefined ? null : toStoredMessage(row);
  }

  async findByHash(scope: Scope, contentHash: string, limit: number): Promise<StoredMessage[]> {
    const rows = this.open.statements.byHash.all({ contentHash, limit, ...scopeParams(scope) });
    return rows.map(toStoredMessage);
  }

  async getBranch(
    scope: Scope,
    leafId: string,
    options: { limit: number },
  ): Promise<StoredMessage[]> {
    if (options.limit <= 0) return [];
    const { turns, statements } = this.open;
    turns.check();
    const cached = turns.branch(scope, leafId, options.limit);
    if (cached.missing === null) return cached.turns;
    const rest = statements.branch
      .all({ id: cached.missing, limit: options.limit - cached.turns.length, ...scopeParams(scope) })
      .map(toStoredMessage);
    return [...cached.turns, ...turns.add(rest)];
  }

  async getMessage(scope: Scope, id: string): Promise<StoredMessage | null> {
    const { turns, statements } = this.open;
    turns.check();
    const cached = turns.get(id);
    if (cached !== undefined) return sameScope(cached, scope) ? cached : null;
    const row = statements.messageById.get({ id, ...scopeParams(scope) });
    return row === undefined ? null : turns.add([toStoredMessage(row)])[0]!;
  }

  async getMessages(scope: Scope, ids: string[]): Promise<StoredMessage[]> {
    if (ids.length === 0) return [];
    const { turns, statements } = this.open;
    turns.check();
    const byId = new Map<string, StoredMessage>();
    const missing: string[] = [];
    for (const id of ids) {
      const cached = turns.get(id);
      if (cached === undefined) missing.push(id);
      else if (sameScope(cached, scope)) byId.set(id, cached);
    }
    if (missing.length > 0) {
      const rows = statements.messagesByIds.all({ ids: JSON.stringify(missing), ...scopeParams(scope) });
      for (const turn of turns.add(rows.map(toStoredMessage))) byId.set(turn.id, turn);
    }
    return ids.flatMap((id) => byId.get(id) ?? []);
  }

  async getChildren(scope: Scope, parentId: string): Promise<StoredMessage[]> {
    return this.open.statements.children
      .all({ parentId, ...scopeParams(scope) })
      .map(toStoredMessage);
  }

  async getRespondedWith(scope: Scope, id: string): Promise<StoredMessage | null> {
    const row = this.open.statements.respondedWith.get({ id, ...scopeParams(scope) });
    return row === undefined ? null : toStoredMessage(row);
  }

  async listMessages(scope: Scope, options: ListMessagesOptions): Promise<StoredMessage[]> {
    const { statements } = this.open;
    const statement =
      options.order === 'desc' ? statements.listDescending : statements.listAscending;
    // Absent bounds become bounds that hold for every row, so one statement serves every
    // combination and the seq bounds still narrow the index range.
    const rows = statement.all({
      afterSeq: options.afterSeq ?? -1,
      beforeSeq: options.beforeSeq ?? Number.MAX_SAFE_INTEGER,
      fromTime: options.fromTime ?? Number.MIN_SAFE_INTEGER,
      toTime: options.toTime ?? Number.MAX_SAFE_INTEGER,
      roles: options.roles === undefined ? ALL_ROLES : JSON.stringify(options.roles),
      includeDeleted: options.includeDeleted === true ? 1 : 0,
      limit: options.limit,
      ...scopeParams(scope),
    });
    return rows.map(toStoredMessage);
  }

  async countMessages(scope: Scope): Promise<number> {
    return this.open.statements.count.get(scopeParams(scope)) ?? 0;
  }

  async setChunks(
    scope: Scope,
    parentId: string,
    chunks: { content: string; tokenCount: number }[],
    options: { parentHash?: string } = {},
  ): Promise<StoredMessage[]> {
    const { statements } = this.open;
    const { parentHash } = options;
    return this.write(() => replaceChunks({ statements, scope, parentId, chunks, parentHash }));
  }

  async getChunks(scope: Scope, parentId: string): Promise<StoredMessage[]> {
    return this.open.statements.chunks
      .all({ parentId, ...scopeParams(scope) })
      .map(toStoredMessage);
  }

  async addToolCalls(
    scope: Scope,
    messageId: string,
    calls: NewToolCall[],
  ): Promise<StoredToolCall[]> {
    if (calls.length === 0) return [];
    const { statements } = this.open;
    const now = this.clock();
    return this.write(() => storeToolCalls({ statements, scope, messageId, calls, now }));
  }

  async getToolCall(scope: Scope, id: string): Promise<StoredToolCall | null> {
    const row = this.open.statements.toolCallById.get({ id, ...scopeParams(scope) });
    return row === undefined ? null : toStoredToolCall(row);
  }

  async getToolCallsByMessage(scope: Scope, messageId: string): Promise<StoredToolCall[]> {
    const rows = this.open.statements.toolCallsByMessage.all({ messageId, ...scopeParams(scope) });
    return rows.map(toStoredToolCall);
  }

  async setEmbeddings(scope: Scope, items: EmbeddingItem[], links: Synapse[] = []): Promise<void> {
    const { statements, dimensions, vectors, searcher } = this.open;
    for (const item of items) checkDimensions(item.vector, dimensions);
    const params = scopeParams(scope);
    // As stored (Float32), for the in-memory indexes: the same bytes, not a second conversion.
    const stored: { pk: number; vector: Float32Array }[] = [];
    const write = () => {
      const stale = new Set<string>();
      for (const item of items) {
        const vector = encodeVector(item.vector);
        if (item.kind === 'toolcall') {
          statements.setToolCallEmbedding.run({ id: item.id, vector, ...params });
          continue;
        }
        const contentHash = item.contentHash ?? null;
        const pk = statements.setMessageEmbedding.get({
          id: item.id,
          vector,
          contentHash,
          ...params,
        });
        if (pk !== undefined) stored.push({ pk, vector: decodeVector(vector) });
        else if (contentHash !== null) stale.add(item.id);
      }
      // A link from a turn of this write holds only while that turn's vector does.
      this.upsertSynapses(
        scope,
        stale.size === 0 ? links : links.filter((link) => !stale.has(link.fromId)),
      );
    };
    // Once committed: an index never holds a vector whose row a failed commit took back, and
    // gets it before any search can ask for it.
    const index = () => {
      vectors.added(scope, stored);
      searcher?.added(scope, stored);
    };
    await this.write(write, { rows: items.length, afterCommit: index });
  }

  async getEmbeddings(scope: Scope, ids: string[]): Promise<Map<string, number[]>> {
    const embeddings = new Map<string, number[]>();
    if (ids.length === 0) return embeddings;
    const rows = this.open.statements.embeddingsByIds.all({
      ids: JSON.stringify(ids),
      ...scopeParams(scope),
    });
    for (const [id, blob] of rows) embeddings.set(id, toNumbers(decodeVector(blob)));
    return embeddings;
  }

  async pendingEmbeddings(limit: number): Promise<PendingEmbedding[]> {
    return listPendingEmbeddings(this.open.statements, limit);
  }

  async clearEmbeddings(): Promise<void> {
    const { statements, vectors, searcher } = this.open;
    const clear = () => {
      statements.clearMessageEmbeddings.run();
      statements.clearToolCallEmbeddings.run();
    };
    await this.write(clear, {
      afterCommit: () => {
        vectors.clear();
        searcher?.cleared();
      },
    });
  }

  /** Where searches run: 'none' without a search thread (see SearchThread.state). */
  get searchThreadState(): SearchThread['state'] | 'none' {
    return this.open.searcher?.state ?? 'none';
  }

  async vectorSearch(
    scope: Scope,
    vector: number[],
    options: VectorSearchOptions,
  ): Promise<VectorHit[]> {
    const { statements, dimensions, vectors, searcher } = this.open;
    checkDimensions(vector, dimensions);
    // Null when the thread could not answer, undefined without one: either way, search here.
    const hits = (await searcher?.vectorSearch(scope, vector, options, vectors.dataVersion())) ?? null;
    if (hits !== null) return hits;
    return searchVectors({ statements, vectors, scope, vector, search: options });
  }

  /**
   * Loads a scope's vector index and waits until it is fully loaded and trained, which a first
   * search otherwise starts and lets finish in the background (benchmarks, tests).
   */
  async warmVectorIndex(scope: Scope): Promise<{ vectors: number; lists: number; bytes: number }> {
    const { searcher, vectors } = this.open;
    const warmed = await searcher?.warm(scope, vectors.dataVersion());
    return warmed ?? vectors.warm(scope);
  }

  /** Exact nearest turns and chunks by brute force, bypassing the index (to measure its recall). */
  async exactVectorSearch(scope: Scope, vector: number[], k: number): Promise<VectorHit[]> {
    const { statements, dimensions } = this.open;
    checkDimensions(vector, dimensions);
    return exactSearchVectors({ statements, scope, vector, k });
  }

  async fullTextSearch(scope: Scope, text: string, options: { k: number; withMessages?: boolean; fresh?: boolean }): Promise<ScoredId[]> {
    const { fullTextQueue, searcher, fullText, commits } = this.open;
    if (options.fresh !== false) {
      fullTextQueue.indexAll();
      // Indexed inside an open batch, the turns reach the search thread's connection with it.
      if (searcher !== null) await commits.settled();
    }
    const heads = options.withMessages === true;
    const hits = (await searcher?.fullTextSearch(scope, text, options.k, heads)) ?? null;
    if (hits !== null) return hits;
    return fullText.search(scope, text, options.k, heads);
  }

  async addSynapses(scope: Scope, synapses: Synapse[]): Promise<void> {
    await this.write(() => this.upsertSynapses(scope, synapses));
  }

  /** Adds or updates links, self-links skipped; inside the caller's transaction. */
  private upsertSynapses(scope: Scope, synapses: Synapse[]): void {
    const params = scopeParams(scope);
    for (const synapse of synapses) {
      if (synapse.fromId === synapse.toId) continue;
      this.open.statements.upsertSynapse.run({ ...params, ...synapseParams(synapse) });
    }
  }

  async getSynapses(scope: Scope, id: string): Promise<Synapse[]> {
    return this.open.statements.synapsesOf.all({ id, ...scopeParams(scope) });
  }

  async neighbours(scope: Scope, ids: string[], options: { limit: number; withMessages?: boolean }): Promise<Neighbour[]> {
    if (ids.length === 0 || options.limit <= 0) return [];
    const found = await this.open.searcher?.neighbours(scope, ids, options);
    return found ?? readNeighbours(this.open.statements, scope, ids, options);
  }

  async getCoreMemory(scope: Scope): Promise<CoreMemoryBlock[]> {
    return this.open.statements.coreMemory.all(scopeParams(scope));
  }

  async putCoreMemory(scope: Scope, block: CoreMemoryBlock): Promise<void> {
    const { name, content, tokenCount, updatedAt } = block;
    await this.write(() => this.open.statements.putCoreMemory.run({
      name,
      content,
      tokenCount,
      updatedAt,
      ...scopeParams(scope),
    }));
  }

  async getSummary(scope: Scope, boundaryId: string): Promise<BranchSummary | null> {
    return this.open.statements.summary.get({ boundaryId, ...scopeParams(scope) }) ?? null;
  }

  async getPinnedMemory(scope: Scope, boundaryId: string | null): Promise<PinnedMemory> {
    return {
      coreMemory: await this.getCoreMemory(scope),
      summary: boundaryId === null ? null : await this.getSummary(scope, boundaryId),
    };
  }

  async summaryEpoch(scope: Scope): Promise<number> {
    return this.open.statements.summaryEpoch.get(scopeParams(scope)) ?? 0;
  }

  async putSummary(
    scope: Scope,
    summary: BranchSummary,
    condition: { epoch: number },
  ): Promise<boolean> {
    const { boundaryId, content, tokenCount, turns, updatedAt } = summary;
    const written = await this.write(() => this.open.statements.putSummary.run({
      boundaryId,
      content,
      tokenCount,
      turns,
      updatedAt,
      epoch: condition.epoch,
      ...scopeParams(scope),
    }));
    return written.changes > 0;
  }

  async getIdempotent(scope: Scope, key: string): Promise<IdempotentEntry | null> {
    return this.idempotencyTable.get(scope, key, this.clock());
  }

  async putIdempotent(scope: Scope, entry: IdempotentEntry): Promise<void> {
    await this.write(() => this.idempotencyTable.put(scope, entry, this.clock()));
  }

  async getMeta(key: string): Promise<string | null> {
    return this.open.statements.meta.get(key) ?? null;
  }

  async setMeta(key: string, value: string): Promise<void> {
    await this.write(() => this.open.statements.putMeta.run(key, value));
  }

  async listInstances(partition?: string): Promise<InstanceSummary[]> {
    return listInstances(this.admin.admin, partition);
  }

  async listPartitions(): Promise<PartitionSummary[]> {
    return summarizePartitions(await this.listInstances());
  }

  async stats(options: { since: number }): Promise<StoreStats> {
    const { db, admin } = this.admin;
    return storeStats({ db, admin, since: options.since });
  }

  async editMessage(scope: Scope, id: string, edit: MessageEdit): Promise<StoredMessage> {
    return this.write(() => editMessage(this.admin, { scope, id, edit }));
  }

  async setMessageDeleted(scope: Scope, id: string, deleted: boolean): Promise<StoredMessage> {
    return this.write(() => setMessageDeleted(this.admin, { scope, id, deleted }));
  }

  async setInstanceDeleted(scope: Scope, deleted: boolean): Promise<number> {
    return this.write(() => setInstanceDeleted(this.admin, { scope, deleted }));
  }

  async purgeMessage(scope: Scope, id: string): Promise<PurgeResult> {
    return this.write(() => purgeMessage(this.admin, { scope, id }));
  }

  async purgeInstance(scope: Scope): Promise<PurgeResult> {
    return this.write(() => {
      const removed = purgeInstance(this.admin, scope);
      this.maintenance.forgetInstance(scope);
      return removed;
    });
  }

  async forkInstance(scope: Scope, input: ForkInput): Promise<StoredMessage[]> {
    return forkBranch(this, scope, input);
  }

  async messagesAsOf(scope: Scope, options: AsOfOptions): Promise<StoredMessage[]> {
    return messagesAsOf(this, scope, options);
  }

  exportRecords(filter: ExportFilter): AsyncIterable<GraphRecord> {
    const { statements, admin } = this.admin;
    return exportGraph(sqliteGraphReader(statements, admin, this.maintenance), filter);
  }

  async importRecords(records: GraphRecord[]): Promise<ImportResult> {
    const { db, statements, dimensions, fullTextQueue } = this.open;
    const result = await this.write(() => importRecords({ db, statements, dimensions, records }), {
      rows: records.length,
    });
    // An import's batch is large enough to index at once, and a store restored from an export
    // is searched as soon as it is done (the proxy that opens it next would otherwise index a
    // whole import in the background).
    fullTextQueue.indexAll();
    return result;
  }

  async listTopics(scope: Scope): Promise<StoredTopic[]> {
    return this.maintenance.listTopics(scope);
  }

  async saveTopicBatch(scope: Scope, batch: TopicBatch): Promise<boolean> {
    return this.write(() => this.maintenance.saveTopicBatch(scope, batch));
  }

  async setTopicSummaries(scope: Scope, updates: TopicSummaryUpdate[]): Promise<void> {
    await this.write(() => this.maintenance.setTopicSummaries(scope, updates));
  }

  async listTopicMessages(
    scope: Scope,
    topicId: string,
    options: { afterSeq?: number; limit: number },
  ): Promise<StoredMessage[]> {
    return this.maintenance.listTopicMessages(scope, topicId, options);
  }

  async getTopicIds(scope: Scope, ids: string[]): Promise<Map<string, string>> {
    return this.maintenance.getTopicIds(scope, ids);
  }

  async getJobCursor(scope: Scope, job: CursorJob): Promise<number> {
    return this.maintenance.getJobCursor(scope, job);
  }

  async savePeriodSummaries(
    scope: Scope,
    input: { summaries: PeriodSummary[]; cursor: number },
  ): Promise<void> {
    await this.write(() => this.maintenance.savePeriodSummaries(scope, input));
  }

  async listPeriodSummaries(scope: Scope, query: PeriodQuery): Promise<PeriodSummary[]> {
    return this.maintenance.listPeriodSummaries(scope, query);
  }

  async deleteOrphans(filter?: ScopeFilter): Promise<OrphanCleanup> {
    return this.write(() => this.maintenance.deleteOrphans(filter));
  }

  async stampDeletions(now: number, filter?: ScopeFilter): Promise<void> {
    await this.write(() => this.maintenance.stampDeletions(now, filter));
  }

  async expiredDeletions(
    before: number,
    limit: number,
    filter?: ScopeFilter,
  ): Promise<ExpiredDeletion[]> {
    return this.maintenance.expiredDeletions(before, limit, filter);
  }

  /**
   * Runs a write of about `rows` rows (1 unless given); its result once it has committed, and
   * `afterCommit` with it the moment it has (GroupCommit.write). A write of BULK_WRITE_ROWS rows
   * or more commits on its own, the others in the connection's open batch.
   */
  private write<T>(
    work: () => T,
    options: { rows?: number; afterCommit?: (result: T) => void } = {},
  ): Promise<T> {
    const { commits } = this.open;
    const { rows = 1, afterCommit } = options;
    return rows >= BULK_WRITE_ROWS ? commits.alone(work, afterCommit) : commits.write(work, afterCommit);
  }

  /** The background jobs' records of the open connection (tables made on first use). */
  private get maintenance(): SqliteMaintenance {
    return new SqliteMaintenance(this.open.db);
  }

  /** The management statements of the open connection (prepared on first use). */
  private get admin(): SqliteAdminContext {
    const { db, statements } = this.open;
    return { db, statements, admin: adminStatements(db), clock: this.clock };
  }

  private get idempotencyTable(): IdempotencyTable {
    if (this.idempotency === null) {
      throw new StoreUnavailableError(`the SQLite store ${this.file} is not open`);
    }
    return this.idempotency;
  }

  private vectorCache(db: Database.Database, dimensions: number): VectorIndexCache {
    return new VectorIndexCache({ db, dimensions, budgetBytes: this.vectorCacheBytes });
  }

  private get open(): Connection {
    if (this.connection === null) {
      throw new StoreUnavailableError(`the SQLite store ${this.file} is not open`);
    }
    return this.connection;
  }
}

function synapseParams(synapse: Synapse): { fromId: string; toId: string; score: number } {
  return { fromId: synapse.fromId, toId: synapse.toId, score: synapse.score };
}

function checkDimensions(vector: VectorInput, dimensions: number): void {
  // A vector of another length would be stored fine and then never match anything.
  if (vector.length !== dimensions) {
    throw new RangeError(
      `vector has ${vector.length} dimensions; the store was opened with ${dimensions}`,
    );
  }
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
