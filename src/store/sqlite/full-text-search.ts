import type Database from 'better-sqlite3';
import type { Scope, ScoredId } from '../types';
import { ftsTerms, quoteTerm } from './fts-query';
import { qualifiedColumns, scopeParams, type ScopeParams } from './scope-sql';
import { HEAD_COLUMNS, headOf, type HeadValues } from './turn-heads';

/** A term matching fewer documents than this is selective: all of its matches are ranked. */
const SELECTIVE_DOCS = 500;
/**
 * Matches of selective terms ranked per search, at most (the rarest terms go first): bm25()
 * costs ~10 us a matching turn (it reads each one's length).
 */
const RANKED_DOCS = 300;
/**
 * Selective terms ranked per search, at most: FTS5 advances every term of an OR to each turn of
 * the instance, so twenty terms cost four times what five do, for the few rarest that decide.
 */
const RANKED_TERMS = 6;
/**
 * An instance of at least this many turns that holds at least half the store is searched
 * without its scope word (ANDing it costs a walk of the instance's postings, and nearly every
 * match is the instance's anyway).
 */
const LARGE_INSTANCE = 20_000;
/**
 * Match counts of terms are remembered this long at most: counting costs, and a count only
 * grows by the rows stored after it (each is counted again once those could have made it
 * everyday); shrinking by deletes or growing by edits in place waits for this.
 */
const COUNT_TTL_MS = 300_000;
const COUNT_CACHE_SIZE = 50_000;

/** Where the index stood when a word was counted, or stands now. */
interface IndexPosition {
  /** The index holds every row up to this pk. */
  lastPk: number;
  /** Rows above lastPk, which may or may not be in the index yet. */
  unindexed: number;
  /** The scope's turn counter (instance_counters), for counts within a scope. */
  scopeTurns?: number;
}

/** A remembered count: the word's matches (capped at SELECTIVE_DOCS), and when it was counted. */
interface KnownCount extends IndexPosition {
  docs: number;
}

/** The head columns of a hit's row, joined as `m`. */
const HIT_HEAD = qualifiedColumns(HEAD_COLUMNS, 'm');

/**
 * BM25 search over the FTS5 index that stays fast at millions of turns. FTS5 ranks every
 * document a query matches, and in a large store an OR of everyday words matches most of them
 * (ranking 100,000 matches takes a second), while the words that decide the ranking are the
 * rare ones: a word in half the turns adds next to nothing to BM25. So each word's matches are
 * counted first (up to SELECTIVE_DOCS, a cheap walk of its doclist), and the query is the OR of
 * the selective words, the RANKED_TERMS rarest within RANKED_DOCS matches (bm25() walks every
 * match of each word once to weigh it, another reason to leave common words out). A text of
 * common words only gets its most recent matches, newest first.
 *
 * An instance that is a small part of the store is searched through its scope word (schema.ts),
 * so other instances' matches are never walked; FTS5 pays for that AND with a walk of the
 * instance's own postings, so an instance that is most of the store is searched without it.
 * Such a search first tries the words rare in the whole store, counted without the scope word
 * (a count shared by every instance), and counts each word's matches in the scope only when
 * none of those is found there. A store that holds no other instance is searched without the
 * word at any size: it would narrow nothing, and bm25() walks its postings too (every turn of
 * the instance) to weigh it.
 */
export class FullTextSearch {
  private readonly statements;
  /** Each counted query's matches, and where the index stood then. */
  private counts = new Map<string, KnownCount>();
  private countsSince = Date.now();

  constructor(db: Database.Database) {
    this.statements = {
      termDocs: db
        .prepare<{ term: string; cap: number }, number>(
          `SELECT count(*) FROM (SELECT 1 FROM messages_fts WHERE messages_fts MATCH @term LIMIT @cap)`,
        )
        .pluck(),
      recent: db
        .prepare<ScopeParams & { query: string; k: number; candidates: number }, HeadValues>(
          `SELECT ${HIT_HEAD}
           FROM (SELECT rowid AS pk FROM messages_fts WHERE messages_fts MATCH @query
                  ORDER BY rowid DESC LIMIT @candidates) f
           CROSS JOIN messages m ON m.pk = f.pk
          WHERE m.partition = @partition AND m.instance = @instance AND m.deleted = 0
          ORDER BY f.pk DESC LIMIT @k`,
        )
        .raw(),
      instanceShare: db.prepare<ScopeParams, { turns: number | null; others: number }>(
        `SELECT (SELECT last_seq FROM instance_counters WHERE partition = @partition AND instance = @instance) AS turns,
                EXISTS (SELECT 1 FROM instance_counters WHERE partition <> @partition OR instance <> @instance) AS others`,
      ),
      // The newest pk below every turn still queued for the index (full-text-queue.ts), and
      // the newest pk.
      position: db.prepare<[], { lastPk: number | null; maxPk: number | null }>(
        `SELECT coalesce((SELECT min(pk) FROM messages_fts_queue) - 1, (SELECT max(pk) FROM messages)) AS lastPk,
                (SELECT max(pk) FROM messages) AS maxPk`,
      ),
      // bm25() is lower-is-better; the interface wants higher-is-better, and only the content
      // column counts. Ranking happens inside FTS5 and only the best candidates are joined to
      // their rows (joining every match read each one's row first: 4x the cost); the scope
      // columns are checked there (the scope word only narrows, and large instances go without),
      // and each hit's head is read there.
      ranked: db
        .prepare<ScopeParams & { query: string; k: number; candidates: number }, [...HeadValues, score: number]>(
          `SELECT ${HIT_HEAD}, -f.rank AS score
           FROM (SELECT rowid AS pk, bm25(messages_fts, 1.0, 0.0) AS rank FROM messages_fts
                  WHERE messages_fts MATCH @query ORDER BY rank LIMIT @candidates) f
           CROSS JOIN messages m ON m.pk = f.pk
          WHERE m.partition = @partition AND m.instance = @instance AND m.deleted = 0
          ORDER BY f.rank LIMIT @k`,
        )
        .raw(),
    };
  }

  /**
   * The `k` best BM25 matches of the words of `text` (user text, never syntax) in a scope, with
   * their heads when asked (read with the rows the matches are checked against).
   */
  search(scope: Scope, text: string, k: number, heads = false): ScoredId[] {
    const terms = ftsTerms(text);
    if (terms.length === 0 || k <= 0) return [];
    // The scope's counter first: every turn it counts is then at most the newest pk read next.
    const share = this.statements.instanceShare.get(scopeParams(scope));
    const read = this.statements.position.get();
    const lastPk = read?.lastPk ?? 0;
    const store: IndexPosition = { lastPk, unindexed: Math.max(0, (read?.maxPk ?? 0) - lastPk) };
    const confined = confinedByWord(share, lastPk);
    const inScopeAt: IndexPosition = confined ? { ...store, scopeTurns: share?.turns ?? 0 } : store;
    const inScope = confined ? `scope : ${quoteTerm(scopeToken(scope))} AND content : ` : 'content : ';
    const orQuery = (entries: { term: string }[]) => `${inScope}(${entries.map((entry) => quoteTerm(entry.term)).join(' OR ')})`;
    // Without the scope word the instance holds at least half the matches: four times k
    // candidates leave k of its own.
    const params = { k, candidates: Math.max(100, 4 * k), ...scopeParams(scope) };
    // A ranked row is the head's values and the score.
    const hit = (row: HeadValues | [...HeadValues, number], score: number): ScoredId =>
      heads ? { id: row[0], score, head: headOf(row) } : { id: row[0], score };
    const ranked = (query: string) =>
      this.statements.ranked.all({ query, ...params }).map((row) => hit(row, row[7]));
    const countedIn = (prefix: string, now: IndexPosition) => terms.map((term) => ({ term, docs: this.documentsWith(prefix, term, now) }));
    if (confined) {
      // A scope's matches of a word are some of the store's, so a word rare in the whole store
      // is rare in the scope: when the text has such words, they are ranked without counting
      // the scope's matches of each word, a count that walks the scope's postings (0.2-0.7 ms
      // for an everyday word). Only when none of them is in the scope do its counts decide.
      // bm25() weighs words by their rarity in the whole store, so a word common elsewhere
      // would rank below these anyway; turns that hold only such words are left to the
      // vector search then.
      const rare = this.selectiveOf(countedIn('content : ', store));
      if (rare.length > 0) {
        const hits = ranked(orQuery(rare));
        if (hits.length > 0) return hits;
      }
    }
    const counted = countedIn(inScope, inScopeAt).filter((entry) => entry.docs > 0);
    if (counted.length === 0) return [];
    const chosen = this.selectiveOf(counted);
    if (chosen.length > 0) return ranked(orQuery(chosen));
    // Scores only order a list (retrieval fuses ranks), so the newest match scores highest.
    const recent = this.statements.recent.all({ query: orQuery(counted), ...params });
    return recent.map((row, rank) => hit(row, 1 / (rank + 1)));
  }

  /**
   * The selective words worth ranking, rarest first: at most RANKED_TERMS, within RANKED_DOCS
   * matches (`docs` may be an upper bound of a word's matches: the cost stays within it).
   */
  private selectiveOf(counted: { term: string; docs: number }[]): { term: string; docs: number }[] {
    const selective = counted.filter((entry) => entry.docs > 0 && entry.docs < SELECTIVE_DOCS).sort((a, b) => a.docs - b.docs);
    const chosen: typeof selective = [];
    let docs = 0;
    for (const entry of selective) {
      if (chosen.length === RANKED_TERMS || (chosen.length > 0 && docs + entry.docs > RANKED_DOCS)) break;
      chosen.push(entry);
      docs += entry.docs;
    }
    return chosen;
  }

  /**
   * Turns of the scope (`inScope` prefixes the query) containing a term, counted up to
   * SELECTIVE_DOCS. A remembered count below that is kept only while the rows indexed since
   * could not have taken it there: a bulk import into a small store made its words everyday
   * within seconds, and their old counts sent them to bm25() as rare ones, which ranks every
   * match (2.4x the context build's median after one, bench/NOTES.md).
   */
  private documentsWith(inScope: string, term: string, now: IndexPosition): number {
    if (Date.now() - this.countsSince > COUNT_TTL_MS || this.counts.size >= COUNT_CACHE_SIZE) {
      this.counts = new Map();
      this.countsSince = Date.now();
    }
    const query = `${inScope}${quoteTerm(term)}`;
    const known = this.counts.get(query);
    if (known && (known.docs >= SELECTIVE_DOCS || known.docs + rowsSince(known, now) < SELECTIVE_DOCS)) {
      // A word found nowhere is counted again once any turn was indexed: a count of 0 drops
      // the word from the query, and the turn may hold it.
      if (known.docs > 0 || now.lastPk === known.lastPk) return known.docs;
    }
    const docs = this.statements.termDocs.get({ term: query, cap: SELECTIVE_DOCS }) ?? 0;
    this.counts.set(query, { docs, ...now });
    return docs;
  }
}

/** Whether queries of a scope AND its scope word (see LARGE_INSTANCE). */
function confinedByWord(share: { turns: number | null; others: number } | undefined, lastPk: number): boolean {
  // Alone in the store, the scope word cost 0.5 ms of a 1.0 ms search at 10^4 turns.
  if (!share?.others) return false;
  const turns = share.turns ?? 0;
  if (turns < LARGE_INSTANCE) return true;
  return turns * 2 < lastPk;
}

/**
 * At most how many rows holding a word reached the index between a count and now. In the whole
 * store, the rows indexed since. In a scope, its turns stored since (its counter) and the rows
 * not yet indexed at the count: under load the store's rows outran a count of a scope within
 * a second, its own turns ~12 a second, and these recounts were a quarter of a loaded proxy's
 * counts. Chunks of a long turn share its counter step, and may hold the word too: a count can
 * fall short by those until COUNT_TTL_MS, which costs a search more matches to rank, never one.
 */
function rowsSince(known: KnownCount, now: IndexPosition): number {
  // A newest pk below the one counted at: the newest rows were purged, and pks are reused.
  if (now.lastPk < known.lastPk) return Infinity;
  if (known.scopeTurns === undefined || now.scopeTurns === undefined) return now.lastPk - known.lastPk;
  // A counter below the one counted at: the instance was deleted and written again.
  if (now.scopeTurns < known.scopeTurns) return Infinity;
  if (now.lastPk === known.lastPk) return 0;
  return now.scopeTurns - known.scopeTurns + known.unindexed;
}

/** The word schema.ts indexes in the scope column: 's' + hex(partition) + 'i' + hex(instance), of UTF-8. */
export function scopeToken(scope: Scope): string {
  const hex = (text: string) => Buffer.from(text, 'utf8').toString('hex').toUpperCase();
  return `s${hex(scope.partition)}i${hex(scope.instance)}`;
}
