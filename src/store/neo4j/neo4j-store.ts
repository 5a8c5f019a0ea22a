import type { Neo4jConfig } from '../../config/load-config';
import { idFactory } from '../../ids';
import { keywordsOf } from '../../text/keywords';
import type {
  ListMessagesOptions,
  MemoryStore,
  StoreHealth,
  VectorHit,
  VectorSearchOptions,
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
import { appendPath } from './append-path';
import { continueLatest } from './continue-latest';
import { getChunks, setChunks } from './chunk-queries';
import {
  clearEmbeddings,
  dropEmbeddedMarks,
  getEmbeddings,
  pendingEmbeddings,
  setEmbeddings,
} from './embedding-queries';
import { fullTextSearch } from './full-text-search';
import { getBranch } from './get-branch';
import { ensureIdempotencySchema, getIdempotent, putIdempotent } from './idempotency-queries';
import { getSynapses, neighbours } from './graph-queries';
import {
  getCoreMemory,
  getMeta,
  getPinnedMemory,
  getSummary,
  putCoreMemory,
  putSummary,
  setMeta,
  summaryEpoch,
} from './key-value-queries';
import * as messages from './message-queries';
import { Neo4jRunner } from './neo4j-runner';
import { ensureSchema, type VectorStrategy } from './schema';
import type { ScopedRunner } from './scope-params';
import { ScopeShares } from './scope-share';
import { addToolCalls, getToolCall, getToolCallsByMessage } from './tool-call-queries';
import { EXACT_SCAN_LIMIT, exactVectorSearch, vectorSearch } from './vector-search';
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
import { summarizePartitions } from '../summarize-partitions';
import { editMessage, setInstanceDeleted, setMessageDeleted } from './edit-message';
import { neo4jGraphReader } from './graph-reader';
import { importRecords } from './import-records';
import { listInstances, storeStats } from './list-instances';
import { purgeInstance, purgeMessage } from './purge-records';
import { deleteOrphans, expiredDeletions, stampDeletions } from './maintenance-queries';
import * as topics from './topic-queries';
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

/** Options of the Neo4j store: the connection settings, and a clock tests can pin. */
export type Neo4jStoreOptions = Neo4jConfig & {
  /** Milliseconds since the epoch for records stored without a timestamp. */
  clock?: () => number;
  /** 'scoped' skips in-index filtering even where the server has it (tests, or a misbehaving server). */
  vectorStrategy?: 'scoped';
  /** Scoped strategy: scopes with at most this many embedded nodes are scanned exactly. */
  exactScanLimit?: number;
};

/**
 * The production MemoryStore: DESIGN.md section 3's graph in Neo4j (5.26 LTS or 2025+/2026.x,
 * Community or Enterprise), parameterised Cypher only, every query confined to one scope.
 * Several proxy processes may share one database: writers of an instance serialise on its
 * `Instance` node.
 */
export class Neo4jStore implements MemoryStore {
  readonly kind = 'neo4j' as const;
  private readonly runner: Neo4jRunner;
  private readonly clock: () => number;
  private readonly newId: () => string;
  private dimensions = 0;
  private strategy: VectorStrategy = 'scoped';
  private fullPrecision = false;
  private agent = '';
  private readonly forcedStrategy: 'scoped' | null;
  private readonly exactScanLimit: number;
  private readonly shares: ScopeShares;

  constructor(options: Neo4jStoreOptions) {
    this.runner = new Neo4jRunner(options);
    this.clock = options.clock ?? Date.now;
    // Ids follow the store's clock (tests set it), still increasing within a millisecond.
    const ids = idFactory();
    this.newId = () => ids(Math.max(Math.floor(this.clock()), 0));
    this.forcedStrategy = options.vectorStrategy ?? null;
    this.exactScanLimit = options.exactScanLimit ?? EXACT_SCAN_LIMIT;
    this.shares = new ScopeShares(this.runner);
  }

  /** The vector search strategy init chose for this server (for health output and tests). */
  get vectorStrategy(): VectorStrategy {
    return this.strategy;
  }

  /** Whether the vector indexes search full-precision vectors, whose scores need no rescoring. */
  get vectorFullPrecision(): boolean {
    return this.fullPrecision;
  }

  async init(options: { embeddingDimensions: number }): Promise<void> {
    this.agent = await this.runner.serverAgent();
    const detected = await ensureSchema(this.runner, {
      dimensions: options.embeddingDimensions,
      agent: this.agent,
    });
    this.strategy = this.forcedStrategy ?? detected.strategy;
    this.fullPrecision = detected.fullPrecision;
    this.dimensions = options.embeddingDimensions;
    await ensureIdempotencySchema(this.runner);
    await dropEmbeddedMarks(this.runner);
  }

  async close(): Promise<void> {
    await this.runner.close();
  }

  async health(): Promise<StoreHealth> {
    try {
      const agent = await this.runner.serverAgent();
      return { ok: true, store: 'neo4j', detail: `${agent}, vector search ${this.strategy}` };
    } catch (error) {
      return {
        ok: false,
        store: 'neo4j',
        detail: error instanceof Error ? error.message : String(error),
      };
    }
  }

  async appendPath(
    scope: Scope,
    input: { parentId: string | null; messages: NewMessage[] },
  ): Promise<AppendedTurn[]> {
    const now = this.clock();
    // One timestamp for the whole path, as the embedded store does.
    return appendPath({
      runner: this.runner,
      scope,
      ...input,
      clock: () => now,
      newId: this.newId,
    });
  }

  async continueLatest(scope: Scope, message: NewMessage): Promise<AppendedTurn> {
    return continueLatest({
      runner: this.runner,
      scope,
      message,
      clock: this.clock,
      newId: this.newId,
    });
  }

  async latestTurn(scope: Scope): Promise<StoredMessage | null> {
    return messages.latestTurn(this.at(scope));
  }

  async findByHash(scope: Scope, contentHash: string, limit: number): Promise<StoredMessage[]> {
    return messages.findByHash(this.at(scope), { contentHash, limit });
  }

  async getBranch(
    scope: Scope,
    leafId: string,
    options: { limit: number },
  ): Promise<StoredMessage[]> {
    return getBranch(this.at(scope), { leafId, limit: options.limit });
  }

  async getMessage(scope: Scope, id: string): Promise<StoredMessage | null> {
    const [message] = await messages.getMessages(this.at(scope), [id]);
    return message ?? null;
  }

  async getMessages(scope: Scope, ids: string[]): Promise<StoredMessage[]> {
    return messages.getMessages(this.at(scope), ids);
  }

  async getChildren(scope: Scope, parentId: string): Promise<StoredMessage[]> {
    return messages.getChildren(this.at(scope), parentId);
  }

  async getRespondedWith(scope: Scope, id: string): Promise<StoredMessage | null> {
    return messages.getRespondedWith(this.at(scope), id);
  }

  async listMessages(scope: Scope, options: ListMessagesOptions): Promise<StoredMessage[]> {
    return messages.listMessages(this.at(scope), options);
  }

  async countMessages(scope: Scope): Promise<number> {
    return messages.countMessages(this.at(scope));
  }

  async setChunks(
    scope: Scope,
    parentId: string,
    chunks: { content: string; tokenCount: number }[],
    options: { parentHash?: string } = {},
  ): Promise<StoredMessage[]> {
    const { runner, newId } = this;
    return setChunks({ runner, scope, parentId, chunks, newId, parentHash: options.parentHash });
  }

  async getChunks(scope: Scope, parentId: string): Promise<StoredMessage[]> {
    return getChunks(this.at(scope), parentId);
  }

  async addToolCalls(
    scope: Scope,
    messageId: string,
    calls: NewToolCall[],
  ): Promise<StoredToolCall[]> {
    return addToolCalls({
      runner: this.runner,
      scope,
      messageId,
      calls,
      clock: this.clock,
      newId: this.newId,
    });
  }

  async getToolCall(scope: Scope, id: string): Promise<StoredToolCall | null> {
    return getToolCall(this.at(scope), id);
  }

  async getToolCallsByMessage(scope: Scope, messageId: string): Promise<StoredToolCall[]> {
    return getToolCallsByMessage(this.at(scope), messageId);
  }

  async setEmbeddings(scope: Scope, items: EmbeddingItem[], links: Synapse[] = []): Promise<void> {
    for (const item of items) this.checkDimensions(item.vector);
    await setEmbeddings(this.at(scope), items, links);
  }

  async getEmbeddings(scope: Scope, ids: string[]): Promise<Map<string, number[]>> {
    return getEmbeddings(this.at(scope), ids);
  }

  async pendingEmbeddings(limit: number): Promise<PendingEmbedding[]> {
    return pendingEmbeddings(this.runner, limit);
  }

  async clearEmbeddings(): Promise<void> {
    await clearEmbeddings(this.runner);
  }

  async vectorSearch(
    scope: Scope,
    vector: number[],
    options: VectorSearchOptions,
  ): Promise<VectorHit[]> {
    this.checkDimensions(vector);
    // A zero vector has no direction: nothing is similar to it.
    if (options.k <= 0 || vector.every((value) => value === 0)) return [];
    const input = {
      runner: this.runner,
      scope,
      vector,
      k: options.k,
      includeToolCalls: options.includeToolCalls === true,
      withMessages: options.withMessages === true,
      strategy: this.strategy,
      fullPrecision: this.fullPrecision,
      dimensions: this.dimensions,
      exactScanLimit: this.exactScanLimit,
      share: this.strategy === 'filtered' ? await this.shares.of(scope) : 0,
    };
    try {
      return await vectorSearch(input);
    } catch (error) {
      // Neo4j 2026.08: once vectors of a scope left the index (a purge, an edit, new chunks), a
      // filtered search asking for more hits than the scope has live fails with ExecutionFailed
      // "Index ... out of bounds"; the scoped strategy reads the same hits another way.
      const code = (error as { code?: unknown }).code;
      if (input.strategy !== 'filtered' || code !== 'Neo.DatabaseError.Statement.ExecutionFailed') {
        throw error;
      }
      return vectorSearch({ ...input, strategy: 'scoped' });
    }
  }

  /** The exact k nearest messages of a scope, bypassing the index (to measure its recall). */
  async exactVectorSearch(scope: Scope, vector: number[], k: number): Promise<VectorHit[]> {
    this.checkDimensions(vector);
    return exactVectorSearch({ runner: this.runner, scope, vector, k, dimensions: this.dimensions });
  }

  async fullTextSearch(
    scope: Scope,
    text: string,
    options: { k: number; withMessages?: boolean; fresh?: boolean },
  ): Promise<ScoredId[]> {
    if (options.k <= 0) return [];
    return fullTextSearch(this.at(scope), {
      text: keywordsOf(text),
      k: options.k,
      withMessages: options.withMessages === true,
      fresh: options.fresh !== false,
      share: await this.shares.of(scope),
    });
  }

  async addSynapses(scope: Scope, synapses: Synapse[]): Promise<void> {
    await setEmbeddings(this.at(scope), [], synapses);
  }

  async getSynapses(scope: Scope, id: string): Promise<Synapse[]> {
    return getSynapses(this.at(scope), id);
  }

  async neighbours(
    scope: Scope,
    ids: string[],
    options: { limit: number; withMessages?: boolean },
  ): Promise<Neighbour[]> {
    return neighbours(this.at(scope), {
      ids,
      limit: options.limit,
      withMessages: options.withMessages === true,
    });
  }

  async getCoreMemory(scope: Scope): Promise<CoreMemoryBlock[]> {
    return getCoreMemory(this.at(scope));
  }

  async putCoreMemory(scope: Scope, block: CoreMemoryBlock): Promise<void> {
    await putCoreMemory(this.at(scope), block);
  }

  async getSummary(scope: Scope, boundaryId: string): Promise<BranchSummary | null> {
    return getSummary(this.at(scope), boundaryId);
  }

  async getPinnedMemory(scope: Scope, boundaryId: string | null): Promise<PinnedMemory> {
    return getPinnedMemory(this.at(scope), boundaryId);
  }

  async summaryEpoch(scope: Scope): Promise<number> {
    return summaryEpoch(this.at(scope));
  }

  async putSummary(
    scope: Scope,
    summary: BranchSummary,
    condition: { epoch: number },
  ): Promise<boolean> {
    return putSummary(this.at(scope), summary, condition);
  }

  async getIdempotent(scope: Scope, key: string): Promise<IdempotentEntry | null> {
    return getIdempotent(this.at(scope), key, this.clock());
  }

  async putIdempotent(scope: Scope, entry: IdempotentEntry): Promise<void> {
    await putIdempotent(this.at(scope), entry, this.clock());
  }

  async getMeta(key: string): Promise<string | null> {
    return getMeta(this.runner, key);
  }

  async setMeta(key: string, value: string): Promise<void> {
    await setMeta(this.runner, { key, value });
  }

  async listInstances(partition?: string): Promise<InstanceSummary[]> {
    return listInstances(this.runner, partition);
  }

  async listPartitions(): Promise<PartitionSummary[]> {
    return summarizePartitions(await this.listInstances());
  }

  async stats(options: { since: number }): Promise<StoreStats> {
    return storeStats(this.runner, options.since);
  }

  async editMessage(scope: Scope, id: string, edit: MessageEdit): Promise<StoredMessage> {
    return editMessage(this.at(scope), { id, edit, now: this.clock() });
  }

  async setMessageDeleted(scope: Scope, id: string, deleted: boolean): Promise<StoredMessage> {
    return setMessageDeleted(this.at(scope), { id, deleted });
  }

  async setInstanceDeleted(scope: Scope, deleted: boolean): Promise<number> {
    return setInstanceDeleted(this.at(scope), { deleted, now: this.clock() });
  }

  async purgeMessage(scope: Scope, id: string): Promise<PurgeResult> {
    return purgeMessage(this.at(scope), id);
  }

  async purgeInstance(scope: Scope): Promise<PurgeResult> {
    return purgeInstance(this.at(scope));
  }

  async forkInstance(scope: Scope, input: ForkInput): Promise<StoredMessage[]> {
    return forkBranch(this, scope, input);
  }

  async messagesAsOf(scope: Scope, options: AsOfOptions): Promise<StoredMessage[]> {
    return messagesAsOf(this, scope, options);
  }

  exportRecords(filter: ExportFilter): AsyncIterable<GraphRecord> {
    return exportGraph(neo4jGraphReader(this.runner), filter);
  }

  async importRecords(records: GraphRecord[]): Promise<ImportResult> {
    return importRecords({ runner: this.runner, records, dimensions: this.dimensions });
  }

  async listTopics(scope: Scope): Promise<StoredTopic[]> {
    return topics.listTopics(this.at(scope));
  }

  async saveTopicBatch(scope: Scope, batch: TopicBatch): Promise<boolean> {
    return topics.saveTopicBatch(this.at(scope), batch);
  }

  async setTopicSummaries(scope: Scope, updates: TopicSummaryUpdate[]): Promise<void> {
    await topics.setTopicSummaries(this.at(scope), updates);
  }

  async listTopicMessages(
    scope: Scope,
    topicId: string,
    options: { afterSeq?: number; limit: number },
  ): Promise<StoredMessage[]> {
    return topics.listTopicMessages(this.at(scope), { topicId, ...options });
  }

  async getTopicIds(scope: Scope, ids: string[]): Promise<Map<string, string>> {
    return topics.getTopicIds(this.at(scope), ids);
  }

  async getJobCursor(scope: Scope, job: CursorJob): Promise<number> {
    return topics.getJobCursor(this.at(scope), job);
  }

  async savePeriodSummaries(
    scope: Scope,
    input: { summaries: PeriodSummary[]; cursor: number },
  ): Promise<void> {
    await topics.savePeriodSummaries(this.at(scope), input);
  }

  async listPeriodSummaries(scope: Scope, query: PeriodQuery): Promise<PeriodSummary[]> {
    return topics.listPeriodSummaries(this.at(scope), query);
  }

  async deleteOrphans(filter?: ScopeFilter): Promise<OrphanCleanup> {
    return deleteOrphans(this.runner, filter ?? {});
  }

  async stampDeletions(now: number, filter?: ScopeFilter): Promise<void> {
    await stampDeletions(this.runner, { now, filter: filter ?? {} });
  }

  async expiredDeletions(
    before: number,
    limit: number,
    filter?: ScopeFilter,
  ): Promise<ExpiredDeletion[]> {
    return expiredDeletions(this.runner, { before, limit, filter: filter ?? {} });
  }

  private at(scope: Scope): ScopedRunner {
    return { runner: this.runner, scope };
  }

  private checkDimensions(vector: VectorInput): void {
    // A vector of another length would be stored and then never match anything (the index
    // skips it); reject it where the mistake is made, as the embedded store does.
    if (this.dimensions > 0 && vector.length !== this.dimensions) {
      throw new RangeError(
        `vector has ${vector.length} dimensions; the store was opened with ${this.dimensions}`,
      );
    }
  }
}
