import type { VectorHit } from '../memory-store';
import type { Scope } from '../types';
import { optionalMessage, projectMessageIfWanted, toNumber } from './map-record';
import type { Neo4jRunner, Row } from './neo4j-runner';
import { INDEX_NAMES, type VectorStrategy } from './schema';
import { integerParam, scopeParams } from './scope-params';
import { keepToScope, keptOrShort, UNSCOPED_SHARE } from './scope-share';

/** Inputs of vectorSearch. */
export interface VectorSearchInput {
  runner: Neo4jRunner;
  scope: Scope;
  vector: number[];
  k: number;
  includeToolCalls: boolean;
  /** Message hits come with their message (tool calls never do). */
  withMessages: boolean;
  strategy: VectorStrategy;
  /** The indexes search full-precision vectors: their scores are kept instead of rescored (schema.ts). */
  fullPrecision: boolean;
  dimensions: number;
  /** Scoped strategy: scopes with at most this many embedded nodes are scanned exactly. */
  exactScanLimit: number;
  /** The instance's share of the store's messages (scope-share.ts): picks the filtered plan. */
  share: number;
}

/** Default exact-scan bound: a scan of this many vectors is cheap, and an exact scan never misses. */
export const EXACT_SCAN_LIMIT = 5_000;
// Over-fetching from the unfiltered index stops growing here and falls back to the exact scan.
const MAX_OVERFETCH = 20_000;

// `inScope` names the scope with a predicate on every property of a composite range index,
// which is what lets the planner seek the scope's nodes instead of scanning the label.
// `live` holds what in-index filtering cannot check: tool calls have no deleted flag of their
// own and go with the turn that made them, as in the embedded store.
type Target = {
  label: 'Message' | 'ToolCall';
  index: string;
  inScope: string;
  inIndexFilter: string;
  live: string;
  /** The hit as returned with `withMessages`. */
  load: string;
};

// Scores of a quantized index (int8 on 5.26, binary codes on 2026.x by default) can be off in
// the third decimal; scoring its few hits from the stored vectors keeps scores exact, equal to
// the exact scan's and to the embedded store's. A full-precision index's own scores already
// are: reading each hit's 384 floats back from the property store to score it again was a fifth
// of a 40-hit search (3.5 against 2.8 ms at 10^5 turns).
const EXACT_SCORE = 'vector.similarity.cosine(n.embedding, $vector) AS score';

/** The score column of an index search that binds the index's score as `approximate`. */
function scoreOf(input: VectorSearchInput): string {
  return input.fullPrecision ? 'approximate AS score' : EXACT_SCORE;
}

const TARGETS: Record<VectorHit['kind'], Target> = {
  message: {
    label: 'Message',
    index: INDEX_NAMES.messageVector,
    inScope: 'n.partition = $partition AND n.instance = $instance AND n.seq >= 0',
    inIndexFilter: 'n.partition = $partition AND n.instance = $instance AND n.deleted = false',
    live: 'n.deleted = false',
    load: projectMessageIfWanted('n'),
  },
  toolcall: {
    label: 'ToolCall',
    index: INDEX_NAMES.toolCallVector,
    inScope: 'n.partition = $partition AND n.instance = $instance AND n.message_id IS NOT NULL',
    inIndexFilter: 'n.partition = $partition AND n.instance = $instance',
    live: 'NOT EXISTS { (n)-[:CALLED_BY]->(:Message {deleted: true}) }',
    load: 'null',
  },
};

/**
 * Nearest messages and chunks (and tool calls on request) of one scope by cosine similarity,
 * best first. Neo4j scores cosine as (1 + cos) / 2; hits are mapped back to plain cosine so
 * scores mean the same as the embedded store's.
 */
export async function vectorSearch(input: VectorSearchInput): Promise<VectorHit[]> {
  if (input.k <= 0) return [];
  const kinds: VectorHit['kind'][] = input.includeToolCalls ? ['message', 'toolcall'] : ['message'];
  const hits: VectorHit[] = [];
  for (const kind of kinds) {
    const target = TARGETS[kind];
    const rows =
      input.strategy === 'filtered'
        ? await filteredSearch(input, target)
        : await scopedSearch(input, target);
    hits.push(...rows.map((row) => toHit(row, kind)));
  }
  return hits.sort((a, b) => b.score - a.score || a.id.localeCompare(b.id)).slice(0, input.k);
}

/**
 * The exact k nearest messages of a scope, from a scan of every vector it stored: what the
 * index's approximate search is measured against (bench/scale.ts recall@10).
 */
export async function exactVectorSearch(input: Omit<ExactScanInput, 'withMessages'>): Promise<VectorHit[]> {
  const rows = await exactScan({ ...input, withMessages: false }, TARGETS.message);
  return rows.map((row) => toHit(row, 'message'));
}

function toHit(row: Row, kind: VectorHit['kind']): VectorHit {
  return {
    id: String(row['id']),
    kind,
    score: 2 * (toNumber(row['score']) ?? 0) - 1,
    ...optionalMessage(row['message']),
  };
}

// The filter properties live in the index (WITH [...] at creation), so the index itself returns
// the scope's top k however many closer vectors other scopes have. Only hits that fail `live`
// afterwards (tool calls of deleted turns) make it ask again for more.
async function filteredSearch(input: VectorSearchInput, target: Target): Promise<Row[]> {
  // The in-index filter costs a walk of every node it accepts (~50 ms at 10^6 turns in one
  // instance); for an instance that is most of the store the index's own nearest, over-fetched
  // and kept to the scope, take ~20 ms.
  if (target.label === 'Message' && input.share >= UNSCOPED_SHARE) {
    const rows = await unfilteredSearch(input, target);
    if (rows !== null) return rows;
  }
  for (let limit = input.k; ; limit *= 4) {
    const rows = await input.runner.read(
      `CYPHER 25
       MATCH (n:${target.label})
         SEARCH n IN (
           VECTOR INDEX ${target.index}
           FOR $vector
           WHERE ${target.inIndexFilter}
           LIMIT $limit
         ) SCORE AS approximate
       RETURN n.id AS id, ${scoreOf(input)}, ${target.live} AS live, ${target.load} AS message`,
      {
        vector: input.vector,
        limit: integerParam(limit),
        withMessages: input.withMessages,
        ...scopeParams(input.scope),
      },
    );
    const live = rows.filter((row) => row['live'] === true);
    if (live.length >= input.k || rows.length < limit || limit >= MAX_OVERFETCH) return live;
  }
}

/**
 * The index's `limit` nearest in the whole store, kept to the scope, the best k of them (scored
 * exactly where the index is quantized). Null when that was not enough: fewer than k were the
 * scope's while the index had more.
 */
async function unfilteredSearch(input: VectorSearchInput, target: Target): Promise<Row[] | null> {
  const limit = Math.ceil((1.5 * input.k) / input.share);
  const rows = await input.runner.read(
    `CYPHER 25
     MATCH (n:${target.label})
       SEARCH n IN (VECTOR INDEX ${target.index} FOR $vector LIMIT $limit) SCORE AS approximate
     ${keepToScope('n', 'approximate', `${target.inIndexFilter} AND ${target.live}`)}
     RETURN seen, n.id AS id, ${scoreOf(input)}, true AS live, ${target.load} AS message`,
    {
      vector: input.vector,
      limit: integerParam(limit),
      k: integerParam(input.k),
      withMessages: input.withMessages,
      ...scopeParams(input.scope),
    },
  );
  return keptOrShort(rows, input.k, limit);
}

/**
 * Without in-index filtering: a scope small enough is scanned exactly (its nodes come from the
 * scope index, not the vector index); a larger one over-fetches from the whole index with a
 * growing k until k of its own hits come back, and falls back to the exact scan if they never do.
 */
async function scopedSearch(input: VectorSearchInput, target: Target): Promise<Row[]> {
  const params = {
    vector: input.vector,
    dimensions: integerParam(input.dimensions),
    withMessages: input.withMessages,
    ...scopeParams(input.scope),
  };
  const counted = await input.runner.read(
    `MATCH (n:${target.label})
     WHERE ${target.inScope} AND n.embedding IS NOT NULL
     WITH n LIMIT $cap
     RETURN count(n) AS embedded`,
    { cap: integerParam(input.exactScanLimit + 1), ...params },
  );
  const embedded = toNumber(counted[0]?.['embedded']) ?? 0;
  if (embedded === 0) return [];
  if (embedded <= input.exactScanLimit) return exactScan(input, target);
  for (let fetch = Math.max(input.k * 8, 100); fetch <= MAX_OVERFETCH; fetch *= 4) {
    const rows = await input.runner.read(
      `CALL db.index.vector.queryNodes('${target.index}', $fetch, $vector) YIELD node AS n
       WHERE n.partition = $partition AND n.instance = $instance AND ${target.live}
       WITH n, ${EXACT_SCORE}
       ORDER BY score DESC LIMIT $k
       RETURN n.id AS id, score, ${target.load} AS message`,
      { fetch: integerParam(fetch), k: integerParam(input.k), ...params },
    );
    if (rows.length >= input.k) return rows;
  }
  return exactScan(input, target);
}

/** What an exact scan of a scope's vectors needs. */
type ExactScanInput = Pick<VectorSearchInput, 'runner' | 'scope' | 'vector' | 'k' | 'dimensions' | 'withMessages'>;

async function exactScan(input: ExactScanInput, target: Target): Promise<Row[]> {
  // Vectors of another model's dimensions (before a re-embed finishes) cannot be compared.
  return input.runner.read(
    `MATCH (n:${target.label})
     WHERE ${target.inScope} AND n.embedding IS NOT NULL AND size(n.embedding) = $dimensions AND ${target.live}
     WITH n, ${EXACT_SCORE}
     WHERE score IS NOT NULL
     ORDER BY score DESC LIMIT $k
     RETURN n.id AS id, score, ${target.load} AS message`,
    {
      vector: input.vector,
      dimensions: integerParam(input.dimensions),
      k: integerParam(input.k),
      withMessages: input.withMessages,
      ...scopeParams(input.scope),
    },
  );
}
