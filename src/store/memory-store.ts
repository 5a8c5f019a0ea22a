import type {
  AppendedTurn,
  BranchSummary,
  CoreMemoryBlock,
  EmbeddingItem,
  IdempotentEntry,
  NewMessage,
  NewToolCall,
  Neighbour,
  PendingEmbedding,
  PinnedMemory,
  Scope,
  ScoredId,
  StoredMessage,
  StoredToolCall,
  Synapse,
  TurnRole,
} from './types';
import type { GraphRecord } from './graph-record';
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
} from './management-types';
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
} from './topic-types';

/** Options for listing the turns of an instance in sequence order. */
export interface ListMessagesOptions {
  /** Only turns with seq greater than this (cursor pagination). */
  afterSeq?: number;
  /** Only turns with seq lower than this. */
  beforeSeq?: number;
  limit: number;
  roles?: TurnRole[];
  /** Inclusive lower bound on timestamp (ms). */
  fromTime?: number;
  /** Exclusive upper bound on timestamp (ms). */
  toTime?: number;
  /** 'asc' (default) or 'desc' by seq. */
  order?: 'asc' | 'desc';
  includeDeleted?: boolean;
}

/** Options for a vector search. */
export interface VectorSearchOptions {
  k: number;
  /** Also search ToolCall nodes (their ids are returned with kind 'toolcall'). */
  includeToolCalls?: boolean;
  /** Return message hits with their message where that saves the caller a read (ScoredId). */
  withMessages?: boolean;
}

/** A vector search hit: a message (or chunk) or a tool call. */
export interface VectorHit extends ScoredId {
  kind: 'message' | 'toolcall';
}

/**
 * The scores `neighbours` gives structural links (a SYNAPSE keeps its own score), so both
 * adapters rank graph expansion alike.
 */
export const NEIGHBOUR_SCORES = {
  /** The question of an answer or the answer of a question: as strong as a link gets. */
  RESPONDED_WITH: 1,
  /** The parent or a child in the conversation tree: adjacent, but maybe a change of subject. */
  REPLIES_TO: 0.9,
} as const;

/** Whether the store answers, and what it is. */
export interface StoreHealth {
  ok: boolean;
  store: 'sqlite' | 'neo4j';
  detail: string;
}

/**
 * The graph of DESIGN.md section 3 behind one interface; the embedded (SQLite) and Neo4j
 * adapters implement it and pass the same contract suite. Every method is confined to the
 * scope it is given; deleted turns are skipped unless an option says otherwise.
 */
export interface MemoryStore {
  readonly kind: 'sqlite' | 'neo4j';

  /** Creates tables / constraints / indexes idempotently. Embedding dimensions fix the vector index. */
  init(options: { embeddingDimensions: number }): Promise<void>;
  /** Releases connections and file handles. */
  close(): Promise<void>;
  /** Reports whether the store answers right now (for /ready). */
  health(): Promise<StoreHealth>;

  /**
   * Stores a path of turns atomically: the first REPLIES_TO `parentId` (null: a new root), each
   * next one REPLIES_TO the previous. A turn whose parent already has a child with the same
   * role and content hash is not stored again: the existing child is returned (created=false)
   * and the path continues from it. New turns get the next instance sequence numbers, without
   * gaps or duplicates even under concurrent writers. An assistant turn whose parent is a user
   * turn also gets `(user)-[:RESPONDED_WITH]->(assistant)`. Rejects when `parentId` is not a turn
   * of the scope.
   */
  appendPath(scope: Scope, input: { parentId: string | null; messages: NewMessage[] }): Promise<AppendedTurn[]>;

  /**
   * Stores one turn as the reply to the instance's latest turn (a new root in an empty
   * instance), unless it repeats what is there: the latest turn itself, or the live question an
   * assistant latest turn answered, with the same role and content hash (repeated-turn.ts). That
   * turn is then returned with created=false and nothing is written. One atomic step: a request
   * that sends only its new message costs one round trip to a server store, not two.
   */
  continueLatest(scope: Scope, message: NewMessage): Promise<AppendedTurn>;

  /** The turn with the highest seq in the instance (not a chunk, not deleted), or null. */
  latestTurn(scope: Scope): Promise<StoredMessage | null>;
  /** Turns (not chunks) with this content hash, newest first. */
  findByHash(scope: Scope, contentHash: string, limit: number): Promise<StoredMessage[]>;
  /** The branch ending at `leafId`, leaf first, following REPLIES_TO up to `limit` turns; deleted turns are skipped. */
  getBranch(scope: Scope, leafId: string, options: { limit: number }): Promise<StoredMessage[]>;
  /** One turn or chunk by id (deleted ones too, flagged), or null. */
  getMessage(scope: Scope, id: string): Promise<StoredMessage | null>;
  /** Turns or chunks by id, in the order asked, missing ids left out. */
  getMessages(scope: Scope, ids: string[]): Promise<StoredMessage[]>;
  /** The turns that REPLY_TO `parentId`, oldest first. */
  getChildren(scope: Scope, parentId: string): Promise<StoredMessage[]>;
  /** The partner of a turn over RESPONDED_WITH (the latest answer of a user turn, or the question of an answer). */
  getRespondedWith(scope: Scope, id: string): Promise<StoredMessage | null>;
  /** Turns of an instance in seq order (chunks excluded). */
  listMessages(scope: Scope, options: ListMessagesOptions): Promise<StoredMessage[]>;
  /** Number of turns (not chunks, not deleted) in the instance. */
  countMessages(scope: Scope): Promise<number>;

  /**
   * Stores the chunks of a long turn, each `CHUNK_OF` the parent; replaces earlier chunks of it.
   * With `parentHash`, stores none (and answers none) once the parent's content hash is another:
   * the chunks were cut from its text before an edit.
   */
  setChunks(
    scope: Scope,
    parentId: string,
    chunks: { content: string; tokenCount: number }[],
    options?: { parentHash?: string },
  ): Promise<StoredMessage[]>;
  /** The chunks of a turn, in order. */
  getChunks(scope: Scope, parentId: string): Promise<StoredMessage[]>;

  /** Stores tool calls `CALLED_BY` a message; a call id already stored for that message is not stored twice. */
  addToolCalls(scope: Scope, messageId: string, calls: NewToolCall[]): Promise<StoredToolCall[]>;
  getToolCall(scope: Scope, id: string): Promise<StoredToolCall | null>;
  getToolCallsByMessage(scope: Scope, messageId: string): Promise<StoredToolCall[]>;

  /**
   * Sets embeddings of messages, chunks or tool calls, and adds `links` (as addSynapses does) in
   * the same write: new turns' vectors and the links made from them cost one commit. A message
   * item with a content hash the message no longer has is skipped, with the links from it.
   */
  setEmbeddings(scope: Scope, items: EmbeddingItem[], links?: Synapse[]): Promise<void>;
  /** Embeddings by message id (missing ones left out). */
  getEmbeddings(scope: Scope, ids: string[]): Promise<Map<string, number[]>>;
  /** Messages, chunks and tool calls in any scope that have no embedding yet. */
  pendingEmbeddings(limit: number): Promise<PendingEmbedding[]>;
  /** Removes every embedding (before re-embedding with another model). */
  clearEmbeddings(): Promise<void>;
  /** Nearest neighbours by cosine similarity (the score, -1..1) within the scope (messages and chunks; tool calls on request). */
  vectorSearch(scope: Scope, vector: number[], options: VectorSearchOptions): Promise<VectorHit[]>;
  /**
   * BM25 full-text search over message content within the scope; the text is user text, never
   * syntax. `fresh: false` lets a store with background indexing (Neo4j) answer without waiting
   * for the turns stored in the last moments to be indexed, which it may then miss; by default
   * every turn stored before the call can be found.
   */
  fullTextSearch(scope: Scope, text: string, options: { k: number; withMessages?: boolean; fresh?: boolean }): Promise<ScoredId[]>;

  /** Adds or updates `(from)-[:SYNAPSE {score}]->(to)` links. */
  addSynapses(scope: Scope, synapses: Synapse[]): Promise<void>;
  /** Synapses touching a turn, either direction, strongest first. */
  getSynapses(scope: Scope, id: string): Promise<Synapse[]>;
  /**
   * Graph neighbours of the given turns over SYNAPSE, RESPONDED_WITH and REPLIES_TO (both ways),
   * excluding the given ids, each once with its strongest link (scored per NEIGHBOUR_SCORES),
   * strongest first.
   */
  neighbours(scope: Scope, ids: string[], options: { limit: number; withMessages?: boolean }): Promise<Neighbour[]>;

  /** The pinned core-memory blocks of the instance, by name. */
  getCoreMemory(scope: Scope): Promise<CoreMemoryBlock[]>;
  /** Creates or replaces a core-memory block. */
  putCoreMemory(scope: Scope, block: CoreMemoryBlock): Promise<void>;

  /** The stored running summary of a branch before a boundary turn, or null. */
  getSummary(scope: Scope, boundaryId: string): Promise<BranchSummary | null>;
  /**
   * What a request pins before its window: the core-memory blocks (as getCoreMemory) and, for a
   * boundary turn, the summary stored there (as getSummary; null without a boundary). One
   * statement on a server store, where each statement costs a round trip.
   */
  getPinnedMemory(scope: Scope, boundaryId: string | null): Promise<PinnedMemory>;
  /**
   * The instance's summary epoch: it moves on in the same transaction as every edit, delete,
   * restore or purge that drops the instance's summaries (0 before the first).
   */
  summaryEpoch(scope: Scope): Promise<number>;
  /**
   * Creates or replaces the summary stored under its boundary turn, only while the summary epoch
   * is still `epoch` (read before any turn the summary was built from) and the boundary turn is
   * stored and not deleted; returns whether it was written. A summary built from turns an edit
   * or delete changed meanwhile is never stored.
   */
  putSummary(scope: Scope, summary: BranchSummary, condition: { epoch: number }): Promise<boolean>;

  /** The answer stored under an Idempotency-Key of the scope, or null (never an expired one). */
  getIdempotent(scope: Scope, key: string): Promise<IdempotentEntry | null>;
  /** Stores or replaces the answer of an Idempotency-Key, and drops the scope's expired entries. */
  putIdempotent(scope: Scope, entry: IdempotentEntry): Promise<void>;

  /** A store-wide setting (e.g. the embedding model and dimensions the vectors were made with). */
  getMeta(key: string): Promise<string | null>;
  setMeta(key: string, value: string): Promise<void>;

  // Owning memory: listing, edits and versions, deletes, forks, export and import.

  /** Instances of one partition (of every partition when absent) with their figures, by name. */
  listInstances(partition?: string): Promise<InstanceSummary[]>;
  /** Partitions with the figures of their instances added up, by name. */
  listPartitions(): Promise<PartitionSummary[]>;
  /** Store-wide figures; `since` (ms) bounds the active-instance and recent-turn counts. */
  stats(options: { since: number }): Promise<StoreStats>;
  /**
   * Replaces a turn's text: the previous text and when it was replaced go to edit_history and
   * edited becomes true. The turn's embedding, chunks and synapses are removed for the caller to
   * rebuild (embedAndLink; the startup sweep catches what it misses), branch token totals below
   * it follow, and the instance's running summaries are dropped. Refuses a chunk.
   */
  editMessage(scope: Scope, id: string, edit: MessageEdit): Promise<StoredMessage>;
  /**
   * Soft-deletes (true) or restores (false) a turn with its chunks; drops the instance's
   * summaries. Refuses a chunk.
   */
  setMessageDeleted(scope: Scope, id: string, deleted: boolean): Promise<StoredMessage>;
  /**
   * Soft-deletes or restores a whole instance (turns deleted on their own stay deleted); returns
   * the turns and chunks changed.
   */
  setInstanceDeleted(scope: Scope, deleted: boolean): Promise<number>;
  /**
   * Deletes a turn for good with its chunks, tool calls, relationships and search-index entries;
   * its children reply to its parent from then on. Refuses a chunk.
   */
  purgeMessage(scope: Scope, id: string): Promise<PurgeResult>;
  /** Deletes every node and relationship of an instance for good. */
  purgeInstance(scope: Scope): Promise<PurgeResult>;
  /**
   * Copies the live branch from the root to `messageId` into a new, empty instance of the same
   * partition: new ids, the same contents and embeddings, relationships rebuilt, seq 1..n.
   */
  forkInstance(scope: Scope, input: ForkInput): Promise<StoredMessage[]>;
  /** Live turns with seq <= options.seq, in seq order, with the text they had when `seq` was stored. */
  messagesAsOf(scope: Scope, options: AsOfOptions): Promise<StoredMessage[]>;
  /** Every node and relationship of the filtered scopes; a scope's nodes come before its relationships. */
  exportRecords(filter: ExportFilter): AsyncIterable<GraphRecord>;
  /**
   * Stores export records in one transaction, keeping their ids; records already stored (same id
   * or key) are left as they are, so importing twice changes nothing. A record that cannot be
   * stored throws RecordImportError with its index and nothing of the batch is stored.
   */
  importRecords(records: GraphRecord[]): Promise<ImportResult>;

  // Background upkeep: topics, period summaries, orphaned chunks, retention (src/memory/maintenance).

  /** The topics of an instance with their live turn counts, largest first. */
  listTopics(scope: Scope): Promise<StoredTopic[]>;
  /**
   * Writes one step of the topic job atomically (see TopicBatch); false, writing nothing, when
   * the stored cursor is no longer `batch.after` (another process did the step first).
   */
  saveTopicBatch(scope: Scope, batch: TopicBatch): Promise<boolean>;
  /** Replaces the labels and summaries of topics. */
  setTopicSummaries(scope: Scope, updates: TopicSummaryUpdate[]): Promise<void>;
  /** Live turns that belong to a topic, in seq order, after a cursor. */
  listTopicMessages(scope: Scope, topicId: string, options: { afterSeq?: number; limit: number }): Promise<StoredMessage[]>;
  /** The topic of each given turn that has one. */
  getTopicIds(scope: Scope, ids: string[]): Promise<Map<string, string>>;
  /** The last seq a background job finished in the instance (0: none). */
  getJobCursor(scope: Scope, job: CursorJob): Promise<number>;
  /** Stores period summaries (replacing those of the same periods) and the period job's cursor, atomically. */
  savePeriodSummaries(scope: Scope, input: { summaries: PeriodSummary[]; cursor: number }): Promise<void>;
  /** Period summaries of an instance, oldest first. */
  listPeriodSummaries(scope: Scope, query: PeriodQuery): Promise<PeriodSummary[]>;
  /** Deletes chunks whose turn is gone or no longer contains their text, and topic links of vanished turns. */
  deleteOrphans(filter?: ScopeFilter): Promise<OrphanCleanup>;
  /** Notes `now` as the deletion time of turns soft-deleted since the last call, and forgets restored ones. */
  stampDeletions(now: number, filter?: ScopeFilter): Promise<void>;
  /** Soft-deleted turns (not chunks) noted as deleted before `before`, oldest note first. */
  expiredDeletions(before: number, limit: number, filter?: ScopeFilter): Promise<ExpiredDeletion[]>;
}
