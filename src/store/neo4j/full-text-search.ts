import type { ScoredId } from '../types';
import { optionalMessage, projectMessageIfWanted, toNumber } from './map-record';
import { INDEX_NAMES } from './schema';
import { integerParam, scopeParams, type ScopedRunner } from './scope-params';
import { keepToScope, keptOrShort, UNSCOPED_SHARE } from './scope-share';

/** At most this many distinct words go into one query: a pasted document must not become a huge OR. */
export const MAX_QUERY_TERMS = 64;

// Letters and digits of any script; combining marks stay attached to their letter. The same
// words the embedded store's query takes, so both stores search for the same terms.
const WORD = /[\p{L}\p{N}][\p{L}\p{N}\p{M}]*/gu;
// Every character Lucene's classic query parser treats as syntax.
const LUCENE_SPECIAL = /[+\-&|!(){}[\]^"~*?:\\/]/g;

/** A value as a quoted Lucene phrase: escaped, so no character of it is ever syntax. */
function quoted(value: string): string {
  return `"${value.replace(LUCENE_SPECIAL, (character) => `\\${character}`)}"`;
}

/**
 * Turns arbitrary user text into a safe Lucene query on the `content` field: its words,
 * lowercased (so AND, OR, NOT and TO are never operators), each escaped and quoted, OR-ed.
 * Null when the text has no words.
 */
export function toLuceneQuery(text: string): string | null {
  const terms = new Set<string>();
  for (const match of text.matchAll(WORD)) {
    terms.add(match[0].toLowerCase());
    if (terms.size === MAX_QUERY_TERMS) break;
  }
  if (terms.size === 0) return null;
  // Words hold no syntax characters, but escaping keeps the query safe by construction.
  return [...terms].map((term) => `content:${quoted(term)}`).join(' OR ');
}

/**
 * The query confined to one scope inside the index: the index also holds each turn's partition
 * and instance, so Lucene only walks the scope's matches. Filtering the index's global hits
 * afterwards walked every other conversation's matches of the same words, which for a new or
 * small conversation in a store of many was all of them (150 ms a request in the benchmark).
 * Names are matched as analysed words (case and punctuation folded), so the exact scope is
 * still checked on the nodes.
 */
export function toScopedLuceneQuery(
  scope: { partition: string; instance: string },
  text: string,
): string | null {
  const words = toLuceneQuery(text);
  if (words === null) return null;
  return `partition:${quoted(scope.partition)} AND instance:${quoted(scope.instance)} AND (${words})`;
}

/** Inputs of fullTextSearch. */
export interface FullTextSearchOptions {
  text: string;
  k: number;
  withMessages: boolean;
  fresh: boolean;
  /** The instance's share of the store's messages (scope-share.ts): picks the plan. */
  share: number;
}

/**
 * BM25 search over message content (turns and chunks) within one scope; score is Lucene's.
 * The index returns hits best first, so the scope filter stops as soon as it has k of them.
 * Either plan ranks the instance's matches alike: Lucene's term statistics span the whole index
 * either way, and the scope terms only add the same amount to every score of the instance.
 */
export async function fullTextSearch(
  scoped: ScopedRunner,
  options: FullTextSearchOptions,
): Promise<ScoredId[]> {
  if (options.k <= 0) return [];
  // An instance that is most of the store is searched without the scope in the Lucene query:
  // ANDing it makes Lucene walk the instance's postings and score every match (~200 ms at 10^6
  // turns), while the index's own best matches, over-fetched and kept to the scope, take ~15 ms.
  if (options.share >= UNSCOPED_SHARE) {
    const hits = await unscopedSearch(scoped, options);
    if (hits !== null) return hits;
  }
  return scopedSearch(scoped, options);
}

// The index is eventually consistent (schema.ts): a fresh search first waits for the updates it
// has queued, so it finds every turn stored before it.
function refresh(options: FullTextSearchOptions): string {
  return options.fresh ? 'CALL db.index.fulltext.awaitEventuallyConsistentIndexRefresh()' : '';
}

async function scopedSearch(
  scoped: ScopedRunner,
  options: FullTextSearchOptions,
): Promise<ScoredId[]> {
  const { runner, scope } = scoped;
  const query = toScopedLuceneQuery(scope, options.text);
  if (query === null) return [];
  // The index ranks only the top `limit` (room for soft-deleted turns dropped below) instead of
  // sorting every match.
  const rows = await runner.read(
    `${refresh(options)}
     CALL db.index.fulltext.queryNodes('${INDEX_NAMES.messageText}', $query, {limit: $limit}) YIELD node, score
     WHERE node.partition = $partition AND node.instance = $instance AND node.deleted = false
     RETURN node.id AS id, score, ${projectMessageIfWanted('node')} AS message
     LIMIT $k`,
    {
      query,
      k: integerParam(options.k),
      limit: integerParam(2 * options.k + 16),
      withMessages: options.withMessages,
      ...scopeParams(scope),
    },
  );
  return toHits(rows);
}

/**
 * The index's best `limit` matches of the words in the whole store, kept to the scope. Null when
 * that was not enough: fewer than k of them were the instance's while the index had more.
 */
async function unscopedSearch(
  scoped: ScopedRunner,
  options: FullTextSearchOptions,
): Promise<ScoredId[] | null> {
  const { runner, scope } = scoped;
  const query = toLuceneQuery(options.text);
  if (query === null) return [];
  const limit = Math.ceil((2 * options.k + 16) / options.share);
  const rows = await runner.read(
    `${refresh(options)}
     CALL db.index.fulltext.queryNodes('${INDEX_NAMES.messageText}', $query, {limit: $limit}) YIELD node, score
     ${keepToScope('node', 'score', 'node.partition = $partition AND node.instance = $instance AND node.deleted = false')}
     RETURN seen, node.id AS id, score, ${projectMessageIfWanted('node')} AS message`,
    {
      query,
      k: integerParam(options.k),
      limit: integerParam(limit),
      withMessages: options.withMessages,
      ...scopeParams(scope),
    },
  );
  const kept = keptOrShort(rows, options.k, limit);
  return kept && toHits(kept);
}

function toHits(rows: Record<string, unknown>[]): ScoredId[] {
  return rows
    .map((row) => ({
      id: String(row['id']),
      score: toNumber(row['score']) ?? 0,
      ...optionalMessage(row['message']),
    }))
    .sort((a, b) => b.score - a.score);
}
