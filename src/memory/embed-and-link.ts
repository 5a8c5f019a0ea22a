import { cosineSimilarity, type Embedder } from '../embeddings/embedder';
import type { MemoryStore, VectorHit } from '../store/memory-store';
import type { Scope, StoredMessage, Synapse } from '../store/types';
import { countTokens } from '../tokens/count-tokens';
import { splitByTokens } from '../tokens/split-by-tokens';

/** Tokens shared by consecutive chunks, so a fact cut at a boundary is whole in one of them. */
export const CHUNK_OVERLAP_TOKENS = 200;
/** Earlier turns looked at for semantic links of a new turn. */
const SIMILAR_CANDIDATES = 8;
/** Most semantic links a new turn gets to earlier turns (besides its parent). */
const MAX_SIMILAR_LINKS = 3;
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
  turns: StoredMessage[];
  /** By turn id, the nearest stored turns a search for its own text found (the retrieval for a new question). */
  nearest?: ReadonlyMap<string, VectorHit[]>;
  /** The turns with tool calls stored, when the caller knows them: the others' are not read. */
  toolCallers?: ReadonlySet<string>;
}

/**
 * Finishes stored turns: chunks long ones (`CHUNK_OF`), embeds turns, chunks and tool calls,
 * and links each turn by `SYNAPSE` to its parent and to its most similar earlier turns when
 * they score at least the threshold. Safe to run twice on the same turns.
 */
export async function embedAndLink(writer: MemoryWriter, batch: TurnBatch): Promise<void> {
  const { scope, turns, nearest = new Map<string, VectorHit[]>(), toolCallers } = batch;
  const live = turns.filter((turn) => !turn.isChunk && !turn.deleted);
  if (live.length === 0) return;
  // The parents' vectors come in the same read: each turn is linked to its parent by them.
  const wanted = new Set(
    live.flatMap((turn) => (turn.parentId === null ? [turn.id] : [turn.id, turn.parentId])),
  );
  const existing = await writer.store.getEmbeddings(scope, [...wanted]);
  const missing = live.filter((turn) => !existing.has(turn.id));
  const vectors = new Map(existing);
  const embedded =
    missing.length > 0
      ? await writer.embedder.embed(missing.map((turn) => turn.content.slice(0, MAX_EMBED_CHARS)))
      : [];
  missing.forEach((turn, i) => vectors.set(turn.id, embedded[i]!));
  // The new vectors are written with the links made from them, one commit for the lot; until
  // then a search cannot see them, so turns of this batch are scored against each other here.
  const unsearchable = missing.map((turn) => turn.id);
  const synapses: Synapse[] = [];
  for (const turn of live) {
    if (turn.tokenCount > writer.chunkThreshold) await chunkTurn(writer, scope, turn);
    if (turn.role === 'assistant' && (toolCallers?.has(turn.id) ?? true))
      await embedToolCalls(writer, scope, turn);
    const similar =
      nearest.get(turn.id) ??
      (await similarTurns(writer, scope, vectors.get(turn.id)!, unsearchable, vectors));
    synapses.push(...linksOf(writer, turn, vectors, similar));
  }
  if (missing.length > 0 || synapses.length > 0)
    await writer.store.setEmbeddings(scope, embeddingItems('message', missing, embedded), synapses);
}

/** Embeds whatever the store holds without an embedding (after a crash, or a model change). */
export async function sweepMissingEmbeddings(
  writer: MemoryWriter,
  batchSize = 256,
): Promise<number> {
  let done = 0;
  for (;;) {
    const pending = await writer.store.pendingEmbeddings(batchSize);
    if (pending.length === 0) return done;
    const vectors = await writer.embedder.embed(
      pending.map((item) => item.text.slice(0, MAX_EMBED_CHARS)),
    );
    const byScope = new Map<
      string,
      { scope: Scope; items: { kind: 'message' | 'toolcall'; id: string; vector: number[] }[] }
    >();
    pending.forEach((item, i) => {
      const key = `${item.scope.partition}\u0000${item.scope.instance}`;
      const group = byScope.get(key) ?? { scope: item.scope, items: [] };
      group.items.push({ kind: item.kind, id: item.id, vector: vectors[i]! });
      byScope.set(key, group);
    });
    for (const group of byScope.values())
      await writer.store.setEmbeddings(group.scope, group.items);
    done += pending.length;
    if (pending.length < batchSize) return done;
  }
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

/** What setEmbeddings takes: each record with the vector at its index. */
function embeddingItems(
  kind: 'message' | 'toolcall',
  records: readonly { id: string }[],
  vectors: readonly number[][],
): { kind: 'message' | 'toolcall'; id: string; vector: number[] }[] {
  return records.map((record, i) => ({ kind, id: record.id, vector: vectors[i]! }));
}

/**
 * The stored turns nearest to `vector`, best first, with `unsearchable` (turns whose vectors are
 * in `vectors` but not yet in the store) ranked among them.
 */
async function similarTurns(
  writer: MemoryWriter,
  scope: Scope,
  vector: number[],
  unsearchable: string[],
  vectors: Map<string, number[]>,
): Promise<VectorHit[]> {
  const found = await writer.store.vectorSearch(scope, vector, { k: SIMILAR_CANDIDATES });
  if (unsearchable.length === 0) return found;
  const batch = unsearchable.map((id) => ({
    kind: 'message' as const,
    id,
    score: cosineSimilarity(vector, vectors.get(id)!),
  }));
  return [...found, ...batch].sort((a, b) => b.score - a.score).slice(0, SIMILAR_CANDIDATES);
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
