import { scopeKey } from '../scope-key';
import type { Scope } from '../types';
import { toNumber } from './map-record';
import type { Neo4jRunner, Row } from './neo4j-runner';
import { scopeParams } from './scope-params';

/** A share is read again after this long: instances grow slowly next to the time a search takes. */
const SHARE_TTL_MS = 60_000;
/** Scopes whose share is remembered, at most (the map starts over when full). */
const MAX_SCOPES = 10_000;

/**
 * From this share of the store's messages up, an instance is searched without its scope in the
 * index query and the hits are kept to it afterwards (over-fetched by the inverse share). Both
 * plans cost the same near a tenth: at 10^5 turns in a store of 1.1 million, 25 ms for full text
 * and 43 ms for vectors either way; at a whole store of 10^6 the scoped plans take 200 and 50 ms,
 * the others 15 and 20.
 */
export const UNSCOPED_SHARE = 0.1;

/**
 * Which part of the store's messages one instance holds, as a number from 0 to 1, remembered
 * for a minute. The searches use it to plan: the indexes span every instance, and asking one of
 * them for an instance that is most of the store costs far more with the scope filter than
 * without it (Lucene walks the whole instance to apply it), while for a small instance the filter
 * is what keeps the search from walking everyone else's matches. A share that is out of date
 * only picks the slower plan: each search checks that its plan found what it needed.
 */
export class ScopeShares {
  private shares = new Map<string, { share: Promise<number>; at: number }>();

  constructor(private readonly runner: Neo4jRunner) {}

  /** The instance's turns over the store's messages (0 for an instance with none). */
  of(scope: Scope): Promise<number> {
    const key = scopeKey(scope);
    const now = Date.now();
    const known = this.shares.get(key);
    if (known && now - known.at < SHARE_TTL_MS) return known.share;
    if (this.shares.size >= MAX_SCOPES) this.shares = new Map();
    const share = this.read(scope);
    this.shares.set(key, { share, at: now });
    // A failed read is not remembered: the next search asks again.
    share.catch(() => this.shares.delete(key));
    return share;
  }

  private async read(scope: Scope): Promise<number> {
    // The label count comes from Neo4j's count store, not a scan.
    const [row] = await this.runner.read(
      `CALL () { MATCH (m:Message) RETURN count(m) AS total }
       OPTIONAL MATCH (i:Instance {partition: $partition, instance: $instance})
       RETURN coalesce(i.last_seq, 0) AS turns, total`,
      scopeParams(scope),
    );
    const turns = toNumber(row?.['turns']) ?? 0;
    const total = toNumber(row?.['total']) ?? 0;
    return total > 0 ? Math.min(1, turns / total) : 0;
  }
}

/**
 * The Cypher that follows a whole-store index call of the unscoped plan, which yields `node` and
 * `score` for the index's best `$limit`: counts them as `seen` and keeps the best `$k` of those
 * that pass `condition` (the scope), one row each, with `seen` on every row. When none pass, one
 * row with a null node still carries `seen`, which keptOrShort needs.
 */
export function keepToScope(node: string, score: string, condition: string): string {
  return `WITH count(*) AS seen,
          collect(CASE WHEN ${condition} THEN {node: ${node}, score: ${score}} END) AS kept
     UNWIND CASE WHEN size(kept) = 0 THEN [null] ELSE kept END AS hit
     WITH seen, hit ORDER BY hit.score DESC LIMIT $k
     WITH seen, hit.node AS ${node}, hit.score AS ${score}`;
}

/**
 * The rows of an unscoped search (keepToScope) with an id, or null when the over-fetch fell
 * short: fewer than k were the scope's while the index returned all `limit` it was asked for, so
 * more of the scope's may lie further down and the scoped plan must run instead.
 */
export function keptOrShort(rows: Row[], k: number, limit: number): Row[] | null {
  const seen = toNumber(rows[0]?.['seen']) ?? 0;
  const hits = rows.filter((row) => row['id'] !== null && row['id'] !== undefined);
  return hits.length >= k || seen < limit ? hits : null;
}
