import type Database from 'better-sqlite3';
import type { Scope, ScoredId } from '../types';
import { ftsTerms, quoteTerm } from './fts-query';
import { scopeParams, type ScopeParams } from './scope-sql';

/** A term matching fewer documents than this is selective: all of its matches are ranked. */
const SELECTIVE_DOCS = 1_000;
/** Matches of selective terms ranked per search, at most (the rarest terms go first). */
const RANKED_DOCS = 2_000;
/** Match counts of terms are remembered this long: they change slowly, and counting costs. */
const COUNT_TTL_MS = 60_000;
const COUNT_CACHE_SIZE = 10_000;
/** A query of common words only ranks this many of its most recent matches. */
const RECENT_MATCHES = 2_000;

/**
 * BM25 search over the FTS5 index that stays fast at millions of turns. FTS5 ranks every
 * document a query matches, and in a large store an OR of everyday words matches most of them
 * (ranking 100,000 matches takes a second), while the words that decide the ranking are the
 * rare ones: a word in half the turns adds next to nothing to BM25. So each word's matches are
 * counted first (up to SELECTIVE_DOCS, a cheap walk of its doclist); the query is the OR of the
 * selective words, rarest first, within RANKED_DOCS. A text of common words only is ranked
 * over its RECENT_MATCHES most recent matches. Below those sizes this is plain BM25 over all
 * the words.
 */
export class FullTextSearch {
  private readonly statements;
  private counts = new Map<string, number>();
  private countsSince = Date.now();

  constructor(db: Database.Database) {
    this.statements = {
      termDocs: db
        .prepare<{ term: string; cap: number }, number>(
          `SELECT count(*) FROM (SELECT 1 FROM messages_fts WHERE messages_fts MATCH @term LIMIT @cap)`,
        )
        .pluck(),
      recentMatch: db
        .prepare<{ query: string; offset: number }, number>(
          `SELECT rowid FROM messages_fts WHERE messages_fts MATCH @query
            ORDER BY rowid DESC LIMIT 1 OFFSET @offset`,
        )
        .pluck(),
      // bm25() is lower-is-better; the interface wants higher-is-better. CROSS JOIN keeps the
      // full-text index as the driving table, so the scope filter never scans the instance.
      ranked: db.prepare<ScopeParams & { query: string; k: number; fromRowid: number }, ScoredId>(
        `SELECT m.id AS id, -bm25(messages_fts) AS score
           FROM messages_fts CROSS JOIN messages m ON m.pk = messages_fts.rowid
          WHERE messages_fts MATCH @query AND messages_fts.rowid >= @fromRowid
            AND m.partition = @partition AND m.instance = @instance AND m.deleted = 0
          ORDER BY bm25(messages_fts) LIMIT @k`,
      ),
    };
  }

  /** The `k` best BM25 matches of the words of `text` (user text, never syntax) in a scope. */
  search(scope: Scope, text: string, k: number): ScoredId[] {
    const terms = ftsTerms(text);
    if (terms.length === 0 || k <= 0) return [];
    const params = { ...scopeParams(scope), k };
    const counted = terms.map((term) => ({ term, docs: this.documentsWith(term) })).filter((entry) => entry.docs > 0);
    if (counted.length === 0) return [];
    const selective = counted.filter((entry) => entry.docs < SELECTIVE_DOCS).sort((a, b) => a.docs - b.docs);
    if (selective.length === counted.length) {
      return this.statements.ranked.all({ ...params, query: orQuery(counted), fromRowid: 0 });
    }
    if (selective.length > 0) {
      const chosen: typeof selective = [];
      let docs = 0;
      for (const entry of selective) {
        if (chosen.length > 0 && docs + entry.docs > RANKED_DOCS) break;
        chosen.push(entry);
        docs += entry.docs;
      }
      return this.statements.ranked.all({ ...params, query: orQuery(chosen), fromRowid: 0 });
    }
    const query = orQuery(counted);
    const fromRowid = this.statements.recentMatch.get({ query, offset: RECENT_MATCHES - 1 }) ?? 0;
    return this.statements.ranked.all({ ...params, query, fromRowid });
  }

  /** Documents (of any scope) containing a term, counted up to SELECTIVE_DOCS. */
  private documentsWith(term: string): number {
    if (Date.now() - this.countsSince > COUNT_TTL_MS || this.counts.size >= COUNT_CACHE_SIZE) {
      this.counts = new Map();
      this.countsSince = Date.now();
    }
    let docs = this.counts.get(term);
    if (docs === undefined) {
      docs = this.statements.termDocs.get({ term: quoteTerm(term), cap: SELECTIVE_DOCS }) ?? 0;
      this.counts.set(term, docs);
    }
    return docs;
  }
}

function orQuery(entries: { term: string }[]): string {
  return entries.map((entry) => quoteTerm(entry.term)).join(' OR ');
}
