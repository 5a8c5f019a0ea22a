import { cosineSimilarity, type Embedder } from '../embeddings/embedder';
import type { MemoryStore, VectorHit } from '../store/memory-store';
import { scopeKey } from '../store/scope-key';
import type {
  EmbeddingItem,
  PendingEmbedding,
  Scope,
  StoredMessage,
  Synapse,
} from '../store/types';
import { countTokens } from '../tokens/count-tokens';
import { splitByTokens } from '../tokens/split-by-tokens';
import { yieldToRequests } from './maintenance/yield-to-requests';

/** Tokens shared by consecutive chunks, so a fact cut at a boundary is whole in one of them. */
export const CHUNK_OVERLAP_TOKENS = 200;
/** Earlier turns looked at for semantic links of a new turn. */
const SIMILAR_CANDIDATES = 8;
/** Most semantic links a new turn gets to earlier turns (besides its parent). */
const MAX_SIMILAR_LINKS = 3;
/** Similarity searches of one batch in flight at once. */
const SEARCHES_AT_ONCE = 8;
/**
 * Turns the sweep finishes per write. On the embedded store nothing in it waits on I/O: between
 * its searches and after each write it lets requests in, and a write of 32 takes a few ms.
 */
const SWEEP_STEP = 32;
/** Characters of a turn embedded as a whole; longer turns are covered by their chunks. */
export const MAX_EMBED_CHARS = 32_000;

/** What writing memory needs. */
export interface MemoryWriter {
  store: MemoryStore;
  embedder: Embedder;
  chunkThreshold: number;
  synapseThreshold: number;
}

/** Stored turns to finish, and what their caller already knows of them. */
export interface TurnBatch {
  scope: Scope;
  /** In the order they were stored: each is linked to similar turns before it. */
  turns: StoredMessage[];
  /** By turn id, the nearest stored turns a search for its own text found (the retrieval for a new question). */
  nearest?: ReadonlyMap<string, VectorHit[]>;
  /**
   * By turn id, the vector of its own text that search used: the turn is not embedded again (a
   * call to a remote embedding model saved on every request).
   */
  vectors?: ReadonlyMap<string, number[]>;
  /** The turns with tool calls stored, when the caller knows them: the others' are not read. */
  toolCallers?: ReadonlySet<string>;
}

/**
 * Finishes stored turns: chunks long ones (`CHUNK_OF`), embeds turns, chunks and tool calls,
 * and links each turn by `SYNAPSE` to its parent and to its most similar earlier turns when
 * they score at least the threshold. A turn whose vector is stored is left as it is: the one
 * write that stored it stored its links too, after its chunks and tool calls. So running twice
 * on the same turns does nothing the second time, which is what happens when the proxy
 * processes sharing a store sweep the same unfinished turns.
 */
export async function embedAndLink(writer: MemoryWriter, batch: TurnBatch): Promise<void> {
  const { scope, turns, nearest = new Map<string, VectorHit[]>(), toolCallers, vectors: known } = batch;
  const candidates = turns.filter((turn) => !turn.isChunk && !turn.deleted);
  if (candidates.length === 0) return;
  // The parents' vectors come in the same read: each turn is linked to its parent by them.
  const wanted = new Set(
    candidates.flatMap((turn) => (turn.parentId === null ? [turn.id] : [turn.id, turn.parentId])),
  );
  const existing = await writer.store.getEmbeddings(scope, [...wanted]);
  const live = candidates.filter((turn) => !existing.has(turn.id));
  if (live.length === 0) return;
  const vectors = new Map(existing);
  for (const turn of live) if (known?.has(turn.id)) vectors.set(turn.id, known.get(turn.id)!);
  const unembedded = live.filter((turn) => !vectors.has(turn.id));
  if (unembedded.length > 0) {
    const embedded = await writer.embedder.embed(
      unembedded.map((turn) => turn.content.slice(0, MAX_EMBED_CHARS)),
    );
    unembedded.forEach((turn, i) => vectors.set(turn.id, embedded[i]!));
  }
  // The new vectors are written with the links made from them, one commit for the lot; until
  // then a search cannot see them, so turns of this batch are scored against each other here.
  for (const turn of live) {
    if (turn.tokenCount > writer.chunkThreshold) await chunkTurn(writer, scope, turn);
    if (turn.role === 'assistant' && (toolCallers?.has(turn.id) ?? true))
      await embedToolCalls(writer, scope, turn);
  }
  // A turn links back only: a similar pair of this batch is linked once, by its later turn.
  const similar = await mapConcurrently(
    live,
    async (turn, index) =>
      nearest.get(turn.id) ??
      similarTurns(writer, {
        scope,
        vector: vectors.get(turn.id)!,
        vectors,
        earlier: live.slice(0, index),
      }),
  );
  const synapses = live.flatMap((turn, index) => linksOf(writer, turn, vectors, similar[index]!));
  await writer.store.setEmbeddings(scope, embeddingItems('message', live, live.map((turn) => vectors.get(turn.id)!)), synapses);
}

/**
 * The nearest stored turns of questions whose finishing was left to a sweep because the
 * background queue was full: the question's retrieval found them already, so the sweep reuses
 * them instead of searching again (they are also exactly the turns stored before the question,
 * which is what it links back to). Bounded: past the bound the oldest are forgotten, and the
 * sweep searches for those questions itself.
 */
export class NearestForSweep {
  private readonly byTurn = new Map<string, VectorHit[]>();

  constructor(private readonly capacity = 10_000) {}

  /** Keeps a request's nearest turns by turn id (only the few linking looks at). */
  keep(nearest: ReadonlyMap<string, VectorHit[]>): void {
    for (const [id, hits] of nearest) {
      this.byTurn.delete(id);
      this.byTurn.set(id, hits.slice(0, SIMILAR_CANDIDATES));
      if (this.byTurn.size > this.capacity) this.byTurn.delete(this.byTurn.keys().next().value!);
    }
  }

  /** The kept nearest turns of these turns, forgotten here once handed out. */
  take(turns: readonly StoredMessage[]): Map<string, VectorHit[]> {
    const taken = new Map<string, VectorHit[]>();
    for (const turn of turns) {
      const hits = this.byTurn.get(turn.id);
      if (hits === undefined) continue;
      taken.set(turn.id, hits);
      this.byTurn.delete(turn.id);
    }
    return taken;
  }

  get size(): number {
    return this.byTurn.size;
  }
}

/**
 * Finishes whatever the store holds without an embedding: turns as embedAndLink does (chunked,
 * embedded, linked), chunks and tool calls embedded. A crash or an overflowing queue leaves turns
 * so; a model change drops every vector, and the links are scored again by the new model.
 */
export async function sweepMissingEmbeddings(
  writer: MemoryWriter,
  options: { batchSize?: number; nearest?: NearestForSweep } = {},
): Promise<number> {
  const batchSize = options.batchSize ?? 256;
  let done = 0;
  for (;;) {
    const pending = await writer.store.pendingEmbeddings(batchSize);
    if (pending.length === 0) return done;
    const byScope = new Map<string, { scope: Scope; items: PendingEmbedding[] }>();
    for (const item of pending) {
      const key = scopeKey(item.scope);
      const group = byScope.get(key) ?? { scope: item.scope, items: [] };
      group.items.push(item);
      byScope.set(key, group);
    }
    for (const group of byScope.values()) {
      await finishPending(writer, group, options.nearest);
      await yieldToRequests();
    }
    done += pending.length;
    if (pending.length < batchSize) return done;
  }
}

/** Finishes a scope's pending turns with embedAndLink, and embeds its other pending items. */
async function finishPending(
  writer: MemoryWriter,
  group: { scope: Scope; items: PendingEmbedding[] },
  kept: NearestForSweep | undefined,
): Promise<void> {
  const { scope, items } = group;
  const ids = items.flatMap((item) => (item.kind === 'message' ? [item.id] : []));
  const turns = (ids.length > 0 ? await writer.store.getMessages(scope, ids) : [])
    .filter((turn) => !turn.isChunk && !turn.deleted)
    .sort((a, b) => a.seq - b.seq);
  for (let start = 0; start < turns.length; start += SWEEP_STEP) {
    const step = turns.slice(start, start + SWEEP_STEP);
    // Their tool calls are pending items of this sweep too, embedded with the rest.
    await embedAndLink(writer, { scope, turns: step, toolCallers: new Set(), nearest: kept?.take(step) });
    await yieldToRequests();
  }
  const finished = new Set(turns.map((turn) => turn.id));
  const rest = items.filter((item) => item.kind === 'toolcall' || !finished.has(item.id));
  if (rest.length === 0) return;
  const vectors = await writer.embedder.embed(
    rest.map((item) => item.text.slice(0, MAX_EMBED_CHARS)),
  );
  await writer.store.setEmbeddings(
    scope,
    rest.map((item, i) => ({ kind: item.kind, id: item.id, vector: vectors[i]! })),
  );
}

async function chunkTurn(writer: MemoryWriter, scope: Scope, turn: StoredMessage): Promise<void> {
  const existing = await writer.store.getChunks(scope, turn.id);
  if (existing.length > 0) return;
  const pieces = splitByTokens(turn.content, writer.chunkThreshold, CHUNK_OVERLAP_TOKENS);
  if (pieces.length < 2) return;
  const chunks = await writer.store.setChunks(
    scope,
    turn.id,
    pieces.map((content) => ({ content, tokenCount: countTokens(content) })),
    { parentHash: turn.contentHash },
  );
  const vectors = await writer.embedder.embed(chunks.map((chunk) => chunk.content));
  await writer.store.setEmbeddings(scope, embeddingItems('message', chunks, vectors));
}

async function embedToolCalls(
  writer: MemoryWriter,
  scope: Scope,
  turn: StoredMessage,
): Promise<void> {
  const calls = await writer.store.getToolCallsByMessage(scope, turn.id);
  if (calls.length === 0) return;
  const texts = calls.map((call) =>
    `${call.toolName}(${call.arguments})${call.result ? ` -> ${call.result}` : ''}`.slice(
      0,
      MAX_EMBED_CHARS,
    ),
  );
  const vectors = await writer.embedder.embed(texts);
  await writer.store.setEmbeddings(scope, embeddingItems('toolcall', calls, vectors));
}

/**
 * `map` over `items`, SEARCHES_AT_ONCE calls in flight at most: a sweep's batch searches for
 * hundreds of turns, each a round trip on Neo4j.
 */
async function mapConcurrently<T, R>(
  items: readonly T[],
  map: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const work = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await map(items[index]!, index);
      // An embedded store's search never waits on I/O: let requests in between.
      if (next < items.length) await yieldToRequests();
    }
  };
  await Promise.all(Array.from({ length: Math.min(SEARCHES_AT_ONCE, items.length) }, work));
  return results;
}

/** What setEmbeddings takes: each record with the vector at its index. */
function embeddingItems(
  kind: EmbeddingItem['kind'],
  records: readonly { id: string; contentHash?: string }[],
  vectors: readonly number[][],
): EmbeddingItem[] {
  // A message's hash makes the write a no-op if the text was edited since it was read.
  return records.map((record, i) => ({
    kind,
    id: record.id,
    vector: vectors[i]!,
    ...(record.contentHash === undefined ? {} : { contentHash: record.contentHash }),
  }));
}

/** Where a turn of a batch stands among the others, for similarTurns. */
interface BatchPlace {
  scope: Scope;
  vector: number[];
  /** Vectors by turn id: the batch's own and those already read. */
  vectors: ReadonlyMap<string, number[]>;
  /** Turns of the batch before this one (none of the batch's vectors is stored yet). */
  earlier: readonly StoredMessage[];
}

/**
 * The turns nearest to a batch's turn, best first: stored turns, and the batch's earlier turns
 * ranked among them; never the batch's later turns (a search cannot see them yet).
 */
async function similarTurns(writer: MemoryWriter, place: BatchPlace): Promise<VectorHit[]> {
  const { scope, vector, vectors, earlier } = place;
  const stored = await writer.store.vectorSearch(scope, vector, { k: SIMILAR_CANDIDATES });
  if (earlier.length === 0) return stored;
  const batch = earlier.map((turn) => ({
    kind: 'message' as const,
    id: turn.id,
    score: cosineSimilarity(vector, vectors.get(turn.id)!),
  }));
  return [...stored, ...batch].sort((a, b) => b.score - a.score).slice(0, SIMILAR_CANDIDATES);
}

/**
 * The links of `turn` to its parent and its most similar earlier turns; `vectors` holds its own,
 * those of the turns beside it and those of their parents (a parent without one is not linked).
 */
function linksOf(
  writer: MemoryWriter,
  turn: StoredMessage,
  vectors: Map<string, number[]>,
  similar: VectorHit[],
): Synapse[] {
  const vector = vectors.get(turn.id)!;
  const synapses: Synapse[] = [];
  if (turn.parentId) {
    const parent = vectors.get(turn.parentId);
    if (parent) {
      const score = cosineSimilarity(vector, parent);
      if (score >= writer.synapseThreshold)
        synapses.push({ fromId: turn.parentId, toId: turn.id, score });
    }
  }
  const linked = new Set([turn.id, turn.parentId]);
  for (const hit of similar.slice(0, SIMILAR_CANDIDATES)) {
    if (synapses.length > MAX_SIMILAR_LINKS) break;
    if (hit.kind !== 'message' || linked.has(hit.id) || hit.score < writer.synapseThreshold)
      continue;
    linked.add(hit.id);
    synapses.push({ fromId: hit.id, toId: turn.id, score: hit.score });
  }
  return synapses;
}
