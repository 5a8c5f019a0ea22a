import type { MemoryStore, VectorHit } from '../store/memory-store';
import type { Neighbour, Scope, StoredMessage, TurnHead } from '../store/types';

/** The k of reciprocal rank fusion: how much a first place outweighs a tenth. */
const RRF_K = 60;
/** Hits asked of each retriever, at least (half the limit when that is more). */
const PER_RETRIEVER = 40;
/** Fused hits whose graph neighbours are added as a third ranked list. */
const EXPAND_FROM = 8;
/** Weight of the graph list against the vector and full-text lists. */
const GRAPH_WEIGHT = 0.5;
/**
 * Cosine below which a vector hit counts for nothing. Rank fusion alone would let the nearest of
 * many unrelated turns outrank a strong keyword match; scaling each vector hit by how far it
 * stands above this floor keeps noise from one retriever from drowning a real hit of another.
 */
const VECTOR_SCORE_FLOOR = 0.1;
/**
 * Cosine at and above which a vector hit counts fully: a paraphrase scores 0.30 on average with
 * the local embedder (unrelated turns 0.015), and scaled against 1.0 it weighed a fifth of a
 * keyword match, so everyday words outranked it (recall bench).
 */
const VECTOR_SCORE_FULL = 0.3;
/**
 * Weight of a full-text hit. Half a strong vector hit's: a question's everyday words match many
 * turns, while a vector hit above VECTOR_SCORE_FULL is a near paraphrase; at full weight the
 * keyword list crowded paraphrased facts out of the first 10 (recall bench: 10% of them there,
 * 18% at half weight, lexical questions 98% and 97%).
 */
const FULLTEXT_WEIGHT = 0.5;
/** A turn found only through the graph scores at most this share of its best seed's score. */
const BELOW_SEED = 0.999;
/**
 * Largest share recency may add to a fused score: enough to break ties, never to reorder hits.
 * Neighbouring places of one list differ by at least w / (RRF_K + r)^2, 1.9e-5 for a full-text
 * hit at place 100; 0.0005 was more than that near the top, and put a newer turn above an older
 * one the search had ranked first.
 */
const RECENCY_WEIGHT = 0.000001;

/** Why a hit was retrieved. */
export type MatchSource = 'vector' | 'fulltext' | 'graph';

/** A ranked turn with its fused score and what found it; `T` is its head or the whole turn. */
export interface Ranked<T extends TurnHead> {
  message: T;
  score: number;
  sources: MatchSource[];
  /** The chunk of the turn that matched, when the turn was found through one. */
  chunk?: T;
}

/** A retrieved turn, loaded whole. */
export type RetrievedTurn = Ranked<StoredMessage>;

/**
 * A fused hit as ranking leaves it: a search may bring only its head, and only the hits a
 * caller goes on to show are loaded whole (`resolveTurns`): the memory index shows about one
 * in eight of the turns the searches find.
 */
export type RankedTurn = Ranked<TurnHead>;

/** A hybrid search request. */
export interface RetrieveInput {
  store: MemoryStore;
  scope: Scope;
  text: string;
  /** The query's embedding; vector search is skipped without one. */
  vector: number[] | null;
  /** Turns to leave out (those already in the recent window). */
  exclude: Set<string>;
  limit: number;
  /**
   * False when the turns stored in the last moments need not be found (they are in the
   * caller's recent window): full-text search then skips waiting for their indexing.
   */
  fresh?: boolean;
}

/**
 * What the vector and full-text searches found, resolved to their turns (heads, where the store
 * brings them): the first half of a retrieval.
 */
export interface Candidates {
  /** The query's vector the vector search used (null without one). */
  vector: number[] | null;
  /** The vector search's hits as the store returned them, nearest first. */
  nearest: VectorHit[];
  vectorList: RankedId[];
  textList: RankedId[];
  loaded: Map<string, LoadedTurn>;
  /** Hits asked of each retriever. */
  k: number;
}

/** A ranked hit of one retriever and its weight in the fusion. */
interface RankedId {
  id: string;
  weight: number;
}

/** A hit resolved to its turn (and the chunk that matched, when a chunk did), as heads or whole. */
interface LoadedTurn {
  turn: TurnHead;
  chunk?: TurnHead;
}

/**
 * Hybrid retrieval: vector kNN, full-text (BM25) and graph expansion over SYNAPSE,
 * RESPONDED_WITH and REPLIES_TO neighbours, fused by reciprocal rank with recency as a
 * tie-breaker; chunk hits count for their parent turn.
 */
export async function retrieve(input: RetrieveInput): Promise<RetrievedTurn[]> {
  return resolveTurns(input, await fuseCandidates(input, await searchCandidates(input)));
}

/**
 * The searches of a retrieval, which need only the query: a caller that does not know yet
 * which turns to exclude can start them early and fuse once it does.
 */
export async function searchCandidates(input: Omit<RetrieveInput, 'exclude'>): Promise<Candidates> {
  const { store, scope } = input;
  // A limit past a few hundred (MEMORY_RETRIEVAL_LIMIT) asks each retriever for more, so the
  // memory index can reach its clusters and overview formats (by result count).
  const k = Math.max(PER_RETRIEVER, Math.ceil(input.limit / 2));
  const [vectorHits, textHits] = await Promise.all([
    input.vector ? store.vectorSearch(scope, input.vector, { k, withMessages: true }) : Promise.resolve([]),
    input.text.trim() ? store.fullTextSearch(scope, input.text, { k, withMessages: true, fresh: input.fresh !== false }) : Promise.resolve([]),
  ]);
  const vectorMatches = vectorHits.filter((hit) => hit.kind === 'message' && hit.score > VECTOR_SCORE_FLOOR);
  const vectorList = vectorMatches.map((hit) => ({
      id: hit.id,
      weight: Math.min(1, (hit.score - VECTOR_SCORE_FLOOR) / (VECTOR_SCORE_FULL - VECTOR_SCORE_FLOOR)),
    }));
  const textList = textHits.map((hit) => ({ id: hit.id, weight: FULLTEXT_WEIGHT }));
  const loaded = await loadTurns(store, scope, [...vectorMatches, ...textHits]);
  return { vector: input.vector, nearest: vectorHits, vectorList, textList, loaded, k };
}

/** Graph neighbours of a retrieval's seeds, with the turns they lead to that the searches did not load. */
export interface Expansion {
  seeds: string[];
  neighbours: Neighbour[];
  loaded: Map<string, LoadedTurn>;
}

/** Fused scores of the search hits, keyed by turn. */
type Fused = Map<string, { score: number; sources: Set<MatchSource>; chunk?: TurnHead }>;

/**
 * The turns graph expansion starts from: the best fused search hits that `excluded` leaves in.
 * A caller can start the expansion with a guess of what the window excludes and keep it when
 * the seeds come out the same.
 */
export function expansionSeeds(candidates: Candidates, excluded: (turn: TurnHead) => boolean): string[] {
  return seedsOf(fuseSearchHits(candidates, candidates.loaded, excluded));
}

/** The graph neighbours of `seeds` (none without seeds), and the turns they lead to. */
export async function expandSeeds(
  input: Pick<RetrieveInput, 'store' | 'scope'>,
  candidates: Candidates,
  seeds: string[],
): Promise<Expansion> {
  if (seeds.length === 0) return { seeds, neighbours: [], loaded: new Map() };
  const neighbours = await input.store.neighbours(input.scope, seeds, { limit: candidates.k, withMessages: true });
  const unseen = neighbours.filter((neighbour) => !candidates.loaded.has(neighbour.id));
  return { seeds, neighbours, loaded: await loadTurns(input.store, input.scope, unseen) };
}

/**
 * The second half of a retrieval: leaves out `exclude`, expands through the graph, ranks.
 * `expand` may answer from an expansion started earlier when its seeds are the same.
 */
export async function fuseCandidates(
  input: Pick<RetrieveInput, 'store' | 'scope' | 'exclude' | 'limit'>,
  candidates: Candidates,
  expand: (seeds: string[]) => Promise<Expansion> = (seeds) => expandSeeds(input, candidates, seeds),
): Promise<RankedTurn[]> {
  const excluded = (turn: TurnHead) => input.exclude.has(turn.id);
  const loaded = new Map(candidates.loaded);
  const fused = fuseSearchHits(candidates, loaded, excluded);
  const seeds = seedsOf(fused);
  /** The seeds each graph neighbour was reached from, by its turn's id. */
  const reachedFrom = new Map<string, string[]>();
  if (seeds.length > 0) {
    const expansion = await expand(seeds);
    for (const [id, turn] of expansion.loaded) loaded.set(id, turn);
    const neighbourList = [...expansion.neighbours]
      .sort((a, b) => b.score - a.score)
      .map((neighbour) => ({ id: neighbour.id, weight: GRAPH_WEIGHT * Math.max(0, Math.min(1, neighbour.score)) }));
    addRanked(fused, loaded, excluded, neighbourList, 'graph');
    for (const neighbour of expansion.neighbours) {
      const id = loaded.get(neighbour.id)?.turn.id ?? neighbour.id;
      const from = reachedFrom.get(id) ?? [];
      from.push(neighbour.fromId);
      reachedFrom.set(id, from);
    }
  }

  const turns = new Map([...loaded.values()].map((hit) => [hit.turn.id, hit.turn]));
  const maxSeq = Math.max(1, ...[...turns.values()].map((turn) => turn.seq));
  const ranked = [...fused.entries()].map(([id, entry]) => {
    const message = turns.get(id)!;
    return {
      message,
      score: entry.score + (RECENCY_WEIGHT * message.seq) / maxSeq,
      sources: [...entry.sources],
      ...(entry.chunk ? { chunk: entry.chunk } : {}),
    };
  });
  // A turn found only through the graph is there for the hit that led to it, and ranks after
  // it: the first place of the graph list weighs what a full-text first place does, so a
  // question found by full text alone tied with its answer, and the newer answer came first.
  const scoreOf = new Map(ranked.map((hit) => [hit.message.id, hit.score]));
  for (const hit of ranked) {
    if (hit.sources.length !== 1 || hit.sources[0] !== 'graph') continue;
    const seedScores = (reachedFrom.get(hit.message.id) ?? []).map((id) => scoreOf.get(id) ?? 0);
    const best = Math.max(0, ...seedScores);
    if (best > 0) hit.score = Math.min(hit.score, best * BELOW_SEED);
  }
  return ranked.sort((a, b) => b.score - a.score).slice(0, input.limit);
}

/** The vector and full-text lists fused by reciprocal rank, leaving out what `excluded` names and deleted turns. */
function fuseSearchHits(candidates: Candidates, loaded: Map<string, LoadedTurn>, excluded: (turn: TurnHead) => boolean): Fused {
  const fused: Fused = new Map();
  addRanked(fused, loaded, excluded, candidates.vectorList, 'vector');
  addRanked(fused, loaded, excluded, candidates.textList, 'fulltext');
  return fused;
}

/** Adds one ranked list to the fusion: each turn once per source, by its rank among the turns kept. */
function addRanked(
  fused: Fused,
  loaded: Map<string, LoadedTurn>,
  excluded: (turn: TurnHead) => boolean,
  hits: RankedId[],
  source: MatchSource,
): void {
  let rank = 0;
  for (const { id, weight } of hits) {
    const hit = loaded.get(id);
    if (!hit || excluded(hit.turn) || hit.turn.deleted) continue;
    const entry = fused.get(hit.turn.id) ?? { score: 0, sources: new Set<MatchSource>() };
    if (!entry.sources.has(source)) {
      entry.score += weight / (RRF_K + ++rank);
      entry.sources.add(source);
    }
    if (hit.chunk && !entry.chunk) entry.chunk = hit.chunk;
    fused.set(hit.turn.id, entry);
  }
}

/** The best fused hits, where graph expansion starts. */
function seedsOf(fused: Fused): string[] {
  return [...fused.entries()].sort((a, b) => b[1].score - a[1].score).slice(0, EXPAND_FROM).map(([id]) => id);
}

/**
 * Resolves hits to their turns (and chunks to their parent turn): what the search brought (whole
 * turns or heads) as it is, and the rest loaded.
 */
async function loadTurns(
  store: MemoryStore,
  scope: Scope,
  hits: { id: string; message?: StoredMessage; head?: TurnHead }[],
): Promise<Map<string, LoadedTurn>> {
  const brought = new Map<string, TurnHead>();
  for (const hit of hits) {
    const known = hit.message ?? hit.head;
    if (known) brought.set(hit.id, known);
  }
  const missing = [...new Set(hits.map((hit) => hit.id))].filter((id) => !brought.has(id));
  const found: TurnHead[] = [...brought.values(), ...(await store.getMessages(scope, missing))];
  const byId = new Map(found.map((turn) => [turn.id, turn]));
  const parentIds = found.filter((turn) => turn.isChunk && turn.chunkParentId).map((turn) => turn.chunkParentId!);
  const unknownParents = [...new Set(parentIds)].filter((id) => !byId.has(id));
  for (const parent of await store.getMessages(scope, unknownParents)) byId.set(parent.id, parent);
  const result = new Map<string, LoadedTurn>();
  for (const turn of found) {
    if (!turn.isChunk) result.set(turn.id, { turn });
    else {
      const parent = byId.get(turn.chunkParentId ?? '');
      if (parent && !parent.isChunk) result.set(turn.id, { turn: parent, chunk: turn });
    }
  }
  return result;
}

/** Whether a head is the whole turn (a search brought it, or it was loaded). */
export function isWhole(turn: TurnHead): turn is StoredMessage {
  return 'content' in turn;
}

/**
 * The whole turns (and matching chunks) of ranked hits, in their order, loaded in one read where
 * the searches brought only heads. A turn deleted since it was ranked is left out; a chunk no
 * longer there leaves its turn without one.
 */
export async function resolveTurns(
  input: Pick<RetrieveInput, 'store' | 'scope'>,
  hits: RankedTurn[],
): Promise<RetrievedTurn[]> {
  const missing = new Set<string>();
  for (const hit of hits) {
    if (!isWhole(hit.message)) missing.add(hit.message.id);
    if (hit.chunk && !isWhole(hit.chunk)) missing.add(hit.chunk.id);
  }
  // Hits a store brought whole (Neo4j's) need no read.
  const read = missing.size === 0 ? [] : await input.store.getMessages(input.scope, [...missing]);
  const loaded = new Map(read.map((turn) => [turn.id, turn]));
  const whole = (turn: TurnHead) => (isWhole(turn) ? turn : loaded.get(turn.id));
  return hits.flatMap((hit): RetrievedTurn[] => {
    const message = whole(hit.message);
    if (!message || message.deleted) return [];
    const chunk = hit.chunk && whole(hit.chunk);
    return [{ message, score: hit.score, sources: hit.sources, ...(chunk ? { chunk } : {}) }];
  });
}
