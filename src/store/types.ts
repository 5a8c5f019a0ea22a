/** Every node and every query is confined to one scope. */
export interface Scope {
  partition: string;
  instance: string;
}

/** Roles stored as conversation turns; system messages are never stored as turns. */
export type TurnRole = 'user' | 'assistant' | 'tool';

/** A tool call an assistant turn asked for, as OpenAI sends it. */
export interface AssistantToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** A turn to store, before it has an id or a place in the tree. */
export interface NewMessage {
  role: TurnRole;
  /** Plain text of the turn (text parts joined), used for tokens, search and embeddings. */
  content: string;
  /** The OpenAI message exactly as it must be replayed upstream (content arrays, tool_calls...). */
  raw: Record<string, unknown>;
  /** Stable hash of role, content, tool calls and tool_call_id: how resent history is matched. */
  contentHash: string;
  tokenCount: number;
  model?: string | null;
  traceId?: string | null;
  metadata?: Record<string, unknown>;
  /** Milliseconds since the epoch; the store's clock decides when absent. */
  timestamp?: number;
}

/** A stored turn (a `Message` node, or a row of the embedded store's messages table). */
export interface StoredMessage {
  id: string;
  partition: string;
  instance: string;
  role: TurnRole;
  content: string;
  raw: Record<string, unknown>;
  snippet: string;
  timestamp: number;
  /** Instance-wide sequence number: 1, 2, 3... without gaps or duplicates. Chunks have none (0). */
  seq: number;
  tokenCount: number;
  /** Tokens of this turn plus all its ancestors along REPLIES_TO (for block-stable windows). */
  branchTokens: number;
  contentHash: string;
  /** The turn this one REPLIES_TO; null for the first turn of a conversation. */
  parentId: string | null;
  model: string | null;
  traceId: string | null;
  metadata: Record<string, unknown>;
  edited: boolean;
  deleted: boolean;
  editHistory: { content: string; timestamp: number }[];
  isChunk: boolean;
  chunkIndex: number | null;
  chunkParentId: string | null;
}

/** The outcome of storing a path of turns: each input turn, stored now or found already stored. */
export interface AppendedTurn {
  message: StoredMessage;
  created: boolean;
}

/** A tool call the proxy ran (or a client tool call), a `ToolCall` node `CALLED_BY` a message. */
export interface NewToolCall {
  /** The call id upstream gave; unique within its message. */
  callId: string;
  toolName: string;
  arguments: string;
  result: string | null;
  tokenCount: number;
  durationMs?: number | null;
  timestamp?: number;
}

/** A stored tool call. */
export interface StoredToolCall {
  id: string;
  partition: string;
  instance: string;
  callId: string;
  toolName: string;
  arguments: string;
  result: string | null;
  timestamp: number;
  messageId: string;
  tokenCount: number;
  durationMs: number | null;
}

/**
 * What ranking a retrieved turn needs of it, without its content: a search that reads each hit's
 * row anyway can bring this much with the hit, and the caller loads whole turns only for the few
 * it goes on to show.
 */
export type TurnHead = Pick<StoredMessage, 'id' | 'role' | 'seq' | 'timestamp' | 'deleted' | 'isChunk' | 'chunkParentId'>;

/** A hit from a vector or full-text search; higher score is better. */
export interface ScoredId {
  id: string;
  score: number;
  /**
   * The turn or chunk hit, when the search was asked for it (`withMessages`) and the adapter
   * reads it in the same query; otherwise the caller loads it by id.
   */
  message?: StoredMessage;
  /** Instead of `message`, what an adapter brings of the hit without its content (`withMessages`). */
  head?: TurnHead;
}

/**
 * A vector handed to a store: plain numbers, or the Float32 values a loader or an embedder
 * already holds (stored as Float32 either way, so a Float32Array is taken without converting it).
 */
export type VectorInput = readonly number[] | Float32Array;

/** An embedding to store on a message, chunk or tool call. */
export interface EmbeddingItem {
  kind: 'message' | 'toolcall';
  id: string;
  vector: VectorInput;
  /**
   * The content hash of the text the vector was made from. With it a message's vector is stored
   * only while the message still has that hash, and so are the links made from it: a turn edited
   * after its background job read it would otherwise keep a vector of its old text for good.
   */
  contentHash?: string;
}

/** A semantic link between two turns. */
export interface Synapse {
  fromId: string;
  toId: string;
  score: number;
}

/** A neighbour of a turn in the graph, and the relationship that led to it. */
export interface Neighbour {
  id: string;
  fromId: string;
  via: 'SYNAPSE' | 'RESPONDED_WITH' | 'REPLIES_TO';
  score: number;
  /** The neighbouring turn, as in ScoredId. */
  message?: StoredMessage;
  /** Its head, as in ScoredId. */
  head?: TurnHead;
}

/** A named core-memory block pinned into every request of an instance. */
export interface CoreMemoryBlock {
  name: string;
  content: string;
  tokenCount: number;
  updatedAt: number;
}

/** Something stored that still lacks an embedding (found by the startup sweep). */
export interface PendingEmbedding {
  scope: Scope;
  kind: 'message' | 'toolcall';
  id: string;
  text: string;
}

/** The running summary of a branch up to (not including) a boundary turn. */
export interface BranchSummary {
  boundaryId: string;
  content: string;
  tokenCount: number;
  /** Number of turns folded into this summary. */
  turns: number;
  updatedAt: number;
}

/** The core memory of an instance and the summary stored at one boundary turn, read together. */
export interface PinnedMemory {
  coreMemory: CoreMemoryBlock[];
  summary: BranchSummary | null;
}

/** The answer stored under a client's Idempotency-Key, replayed when the request is retried. */
export interface IdempotentEntry {
  key: string;
  /** The stored answer, serialised by the caller. */
  response: string;
  createdAt: number;
  /** Milliseconds since the epoch after which the entry is never returned. */
  expiresAt: number;
}
