import type Database from 'better-sqlite3';
import type { Scope, ScoredId } from '../types';
import { ftsTerms, quoteTerm } from './fts-query';
import { scopeParams, type ScopeParams } from './scope-sql';

/** A term matching fewer documents than this is selective: all of its matches are ranked. */
const SELECTIVE_DOCS = 1_000;
/** Matches of selective terms ranked per search, at most (the rarest terms go first). */
const RANKED_DOCS = 1_000;
/**
 * Selective terms ranked per search, at most: FTS5 advances every term of an OR to each turn of
 * the instance, so twenty terms cost four times what five do, for the few rarest that decide.
 */
const RANKED_TERMS = 6;
/** Match counts of terms are remembered this long: they change slowly, and counting costs. */
const COUNT_TTL_MS = 300_000;
const COUNT_CACHE_SIZE = 50_000;
/** A query of common words only ranks this many of its most recent matches. */
const RECENT_MATCHES = 1_000;

/**
 * BM25 search over the FTS5 index that stays fast at millions of turns. FTS5 ranks every
 * document a query matches, and in a large store an OR of everyday words matches most of them
 * (ranking 100,000 matches takes a second), while the words that decide the ranking are the
 * rare ones: a word in half the turns adds next to nothing to BM25. So every query is confined
 * to the instance's turns by their scope word (schema.ts), each word's matches there are
 * counted first (up to SELECTIVE_DOCS, a cheap walk of its doclist), and the query is the OR of
 * the selective words, the RANKED_TERMS rarest within RANKED_DOCS matches. A text of common
 * words only is ranked over its RECENT_MATCHES most recent matches.
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
      // bm25() is lower-is-better; the interface wants higher-is-better, and only the content
      // column counts. CROSS JOIN keeps the full-text index as the driving table; the scope
      // columns are checked again (the scope word only narrows).
      ranked: db.prepare<ScopeParams & { query: string; k: number; fromRowid: number }, ScoredId>(
        `SELECT m.id AS id, -bm25(messages_fts, 1.0, 0.0) AS score
           FROM messages_fts CROSS JOIN messages m ON m.pk = messages_fts.rowid
          WHERE messages_fts MATCH @query AND messages_fts.rowid >= @fromRowid
            AND m.partition = @partition AND m.instance = @instance AND m.deleted = 0
          ORDER BY bm25(messages_fts, 1.0, 0.0) LIMIT @k`,
      ),
    };
  }

  /** The `k` best BM25 matches of the words of `text` (user text, never syntax) in a scope. */
  search(scope: Scope, text: string, k: number): ScoredId[] {
    const terms = ftsTerms(text);
    if (terms.length === 0 || k <= 0) return [];
    const inScope = `scope : ${quoteTerm(scopeToken(scope))} AND content : `;
    const orQuery = (entries: { term: string }[]) => `${inScope}(${entries.map((entry) => quoteTerm(entry.term)).join(' OR ')})`;
    const params = { ...scopeParams(scope), k };
    const counted = terms.map((term) => ({ term, docs: this.documentsWith(inScope, term) })).filter((entry) => entry.docs > 0);
    if (counted.length === 0) return [];
    const selective = counted.filter((entry) => entry.docs < SELECTIVE_DOCS).sort((a, b) => a.docs - b.docs);
    if (selective.length > 0) {
      const chosen: typeof selective = [];
      let docs = 0;
      for (const entry of selective) {
        if (chosen.length === RANKED_TERMS || (chosen.length > 0 && docs + entry.docs > RANKED_DOCS)) break;
        chosen.push(entry);
        docs += entry.docs;
      }
      return this.statements.ranked.all({ ...params, query: orQuery(chosen), fromRowid: 0 });
    }
    const query = orQuery(counted);
    const fromRowid = this.statements.recentMatch.get({ query, offset: RECENT_MATCHES - 1 }) ?? 0;
    return this.statements.ranked.all({ ...params, query, fromRowid });
  }

  /** Turns of the scope (`inScope` prefixes the query) containing a term, counted up to SELECTIVE_DOCS. */
  private documentsWith(inScope: string, term: string): number {
    if (Date.now() - this.countsSince > COUNT_TTL_MS || this.counts.size >= COUNT_CACHE_SIZE) {
      this.counts = new Map();
      this.countsSince = Date.now();
    }
    const query = `${inScope}${quoteTerm(term)}`;
    let docs = this.counts.get(query);
    if (docs === undefined) {
      docs = this.statements.termDocs.get({ term: query, cap: SELECTIVE_DOCS }) ?? 0;
      this.counts.set(query, docs);
    }
    return docs;
  }
}

/** The word schema.ts indexes in the scope column: 's' + hex(partition) + 'i' + hex(instance), of UTF-8. */
export function scopeToken(scope: Scope): string {
  const hex = (text: string) => Buffer.from(text, 'utf8').toString('hex').toUpperCase();
  return `s${hex(scope.partition)}i${hex(scope.instance)}`;
}
