import type Database from 'better-sqlite3';
import { byScoreThenId } from '../strongest-neighbours';
import type { Scope, TurnHead } from '../types';
import { CodePool } from './code-pool';
import { toUnitQuery, cosineToUnitAt, type UnitQuery } from './collect-nearest';
import { IvfIndex, type IvfHit, type IvfOptions } from './ivf-index';
import { scopeKey } from '../scope-key';
import { scopeParams } from './scope-sql';
import { decodeVector } from '../vector-codec';
import { headOf, type HeadValues } from './turn-heads';
import { prepareVectorIndexStatements, type VectorIndexStatements } from './vector-index-statements';

/** Options of the cache of in-memory vector indexes. */
export interface VectorIndexCacheOptions {
  db: Database.Database;
  dimensions: number;
  /** Bytes the indexes may hold together before the least recently searched are dropped. */
  budgetBytes?: number;
  /** Index tuning (tests and benchmarks). */
  ivf?: IvfOptions;
  /**
   * The version that moves when a connection other than the writing one commits: by default
   * this connection's PRAGMA data_version. A search thread's connection reads that of the
   * connection that writes (whose vectors it is handed), since its own moves on every write.
   */
  dataVersion?: () => number;
}

/** A nearest message or chunk of a scope, scored exactly from its stored vector. */
export interface NearestRow {
  id: string;
  score: number;
  head: TurnHead;
}

/** Default memory for the indexes: about 1.2 million vectors of 384 dimensions. */
export const DEFAULT_VECTOR_CACHE_BYTES = 512 * 2 ** 20;
/** Rows loaded before a first search of a scope answers; the rest load in the background. */
const LOAD_BEFORE_ANSWER = 16_384;
/** Rows loaded per background step (a few milliseconds of work between event-loop turns). */
const LOAD_STEP = 2_048;
/**
 * Candidates the index is asked for beyond the k wanted: int8 scores are within about 0.005 of
 * the exact ones, so the true k best are among the approximate k + 16 best.
 */
const CANDIDATE_MARGIN = 16;
/**
 * Of those, only the ones within this of the k-th best approximate score are rescored. Over
 * 120,000 query-turn pairs no int8 score was further than 0.0056 from the exact one
 * (bench/NOTES.md), so a candidate 0.02 below the k-th cannot overtake any of the k above it
 * once both are exact. Reading the candidates' stored vectors was about half of a search.
 */
export const RESCORE_REACH = 0.02;
/** A scope whose rows trail the database by more than this is reloaded rather than caught up. */
const MAX_CATCH_UP_ROWS = 100_000;
/** In-process additions remembered between catch-ups before a catch-up is forced. */
const MAX_RECENT = 10_000;

interface Entry {
  scope: Scope;
  index: IvfIndex;
  /** Rows up to this pk that had a vector when last read are in the index, except `holes`. */
  syncedPk: number;
  /** Rows up to syncedPk that still had no vector when last read. */
  holes: Set<number>;
  /** Rows above syncedPk this process added itself (a catch-up skips them). */
  recent: Set<number>;
  /** Older turns still to load, below this seq (0: all loaded). */
  loadBeforeSeq: number;
  /** PRAGMA data_version when the index last read the database: another connection wrote if it moved. */
  dataVersion: number;
  /** A training or layout of this index is queued. */
  maintenanceQueued: boolean;
  dropped: boolean;
}

/**
 * The in-memory vector index of each recently searched scope, so a vector search costs a scan
 * of a few lists of int8 codes instead of reading and scoring every stored vector. A scope is
 * loaded on its first search (newest turns first; a very large scope finishes loading in the
 * background), kept current by the store's own writes and, when another connection wrote
 * (PRAGMA data_version), by reading what changed. Candidates are rescored from the stored
 * vectors, so scores are exact and deleted or re-embedded rows never come back stale. The
 * least recently searched scopes are dropped when the indexes outgrow their memory budget.
 */
export class VectorIndexCache {
  private readonly statements: VectorIndexStatements;
  private readonly pool: CodePool;
  private readonly entries = new Map<string, Entry>();
  private readonly budgetBytes: number;
  private readonly ivf: IvfOptions;
  private readonly readVersion: () => number;
  private background: Promise<void> = Promise.resolve();
  private pendingWork = 0;
  private closed = false;

  constructor(options: VectorIndexCacheOptions) {
    this.statements = prepareVectorIndexStatements(options.db);
    this.pool = new CodePool(options.dimensions);
    this.budgetBytes = options.budgetBytes ?? DEFAULT_VECTOR_CACHE_BYTES;
    this.ivf = options.ivf ?? {};
    this.readVersion = options.dataVersion ?? (() => this.dataVersion());
  }

  /** This connection's PRAGMA data_version: it moves when another connection commits. */
  dataVersion(): number {
    return this.statements.dataVersion.get() ?? 0;
  }

  /** The `k` nearest messages and chunks of a scope, best first, with exact cosine scores. */
  search(scope: Scope, vector: readonly number[], k: number): NearestRow[] {
    const unit = toUnitQuery(vector);
    if (unit === null || k <= 0) return [];
    const entry = this.current(scope);
    let candidates = k + CANDIDATE_MARGIN;
    for (;;) {
      const hits = entry.index.search(vector, { candidates });
      const likely = withinReach(hits, k);
      let rows = this.rescore(entry, { hits: likely, unit });
      // Deleted or re-embedded rows took candidate places: rescore every candidate, in one read
      // (a re-embedded row sits in the index twice, and one read keeps it once), then ask for
      // more while there are more.
      if (rows.length < k && likely.length < hits.length) rows = this.rescore(entry, { hits, unit });
      if (rows.length >= k || hits.length < candidates) return rows.slice(0, k);
      candidates *= 4;
    }
  }

  /** Adds vectors this store just wrote (rows of `scope`, by pk) to the scope's index, if it has one. */
  added(scope: Scope, rows: { pk: number; vector: ArrayLike<number> }[]): void {
    const entry = this.entries.get(scopeKey(scope));
    if (!entry) return;
    for (const row of rows) {
      entry.index.add(row.pk, row.vector);
      if (entry.holes.delete(row.pk)) continue;
      if (row.pk > entry.syncedPk) entry.recent.add(row.pk);
    }
    if (entry.recent.size > MAX_RECENT) this.catchUp(entry);
    this.scheduleTraining(entry);
  }

  /** Forgets every index (every stored vector was dropped, e.g. before re-embedding with another model). */
  clear(): void {
    for (const entry of this.entries.values()) this.drop(entry);
  }

  /** Loads a scope's index now and waits until it is fully loaded and trained (benchmarks, tests). */
  async warm(scope: Scope): Promise<{ vectors: number; lists: number; bytes: number }> {
    const entry = this.entry(scope);
    await this.settled();
    return { vectors: entry.index.arena.liveCount, lists: entry.index.listCount, bytes: entry.index.bytes };
  }

  /** Resolves once background loading and training are done (benchmarks, tests). */
  async settled(): Promise<void> {
    while (this.pendingWork > 0) await this.background;
  }

  /** What the cache holds, for benchmarks and health output. */
  stats(scope?: Scope): { scopes: number; bytes: number; vectors: number; lists: number } {
    const entry = scope ? this.entries.get(scopeKey(scope)) : undefined;
    return {
      scopes: this.entries.size,
      bytes: this.totalBytes(),
      vectors: entry?.index.arena.liveCount ?? 0,
      lists: entry?.index.listCount ?? 0,
    };
  }

  /** Stops background work and frees every index. */
  close(): void {
    this.closed = true;
    this.clear();
  }

  private entry(scope: Scope): Entry {
    const key = scopeKey(scope);
    const existing = this.entries.get(key);
    if (existing) {
      // Map order is recency order: re-inserting marks the scope most recently searched.
      this.entries.delete(key);
      this.entries.set(key, existing);
      return existing;
    }
    const entry: Entry = {
      scope: scopeParams(scope),
      index: new IvfIndex(this.pool, this.ivf),
      dataVersion: this.readVersion(),
      maintenanceQueued: false,
      syncedPk: this.statements.lastPk.get() ?? 0,
      holes: new Set(),
      recent: new Set(),
      loadBeforeSeq: Number.MAX_SAFE_INTEGER,
      dropped: false,
    };
    this.entries.set(key, entry);
    for (const pk of this.statements.pendingPks.all({ upToPk: entry.syncedPk, ...entry.scope })) entry.holes.add(pk);
    this.loadTurns(entry, LOAD_BEFORE_ANSWER);
    if (entry.loadBeforeSeq === 0) {
      this.loadChunks(entry);
      this.scheduleTraining(entry);
    } else {
      this.enqueue(() => this.loadInBackground(entry));
    }
    this.evict(entry);
    return entry;
  }

  /** Loads up to `limit` more turns, newest first; loadBeforeSeq becomes 0 once all are in. */
  private loadTurns(entry: Entry, limit: number): void {
    let loaded = 0;
    while (loaded < limit && entry.loadBeforeSeq > 0) {
      const size = Math.min(LOAD_STEP, limit - loaded);
      const rows = this.statements.vectorPage.all({ beforeSeq: entry.loadBeforeSeq, limit: size, ...entry.scope });
      for (const [pk, seq, blob] of rows) {
        entry.index.add(pk, decodeVector(blob));
        entry.loadBeforeSeq = seq;
      }
      loaded += rows.length;
      if (rows.length < size) entry.loadBeforeSeq = 0;
    }
  }

  private loadChunks(entry: Entry): void {
    for (const [pk, blob] of this.statements.chunkVectors.all(entry.scope)) entry.index.add(pk, decodeVector(blob));
  }

  /**
   * Loads a large scope in steps: enough of its newest turns to train lists sized for the whole
   * scope, the training, then the rest (each placed in its list as it comes).
   */
  private async loadInBackground(entry: Entry): Promise<void> {
    const expected = this.statements.turnCount.get(entry.scope) ?? 0;
    const sample = Math.min(expected, Math.ceil(IvfIndex.sampleSizeFor(expected) * 1.5));
    while (!entry.dropped && entry.loadBeforeSeq > 0 && entry.index.size < sample) {
      this.loadTurns(entry, LOAD_STEP);
      await yieldToEventLoop();
    }
    if (entry.dropped) return;
    await this.train(entry, expected);
    while (!entry.dropped && entry.loadBeforeSeq > 0) {
      this.loadTurns(entry, LOAD_STEP);
      await yieldToEventLoop();
    }
    if (entry.dropped) return;
    this.loadChunks(entry);
    this.scheduleTraining(entry);
    this.evict(entry);
  }

  /** Queues a training when the lists are missing or stale, else a layout when they are scattered. */
  private scheduleTraining(entry: Entry): void {
    if (entry.maintenanceQueued || !(entry.index.needsTraining || entry.index.needsLayout)) return;
    entry.maintenanceQueued = true;
    this.enqueue(async () => {
      entry.maintenanceQueued = false;
      if (entry.dropped) return;
      if (entry.index.needsTraining) await this.train(entry);
      else if (entry.index.needsLayout) entry.index.layOut();
    });
  }

  private async train(entry: Entry, expectedSize?: number): Promise<void> {
    const steps = entry.index.trainSteps(expectedSize);
    while (!entry.dropped && !this.closed && steps.next().done !== true) await yieldToEventLoop();
    if (entry.dropped || this.closed) steps.return();
  }

  /** Runs background work one job at a time, after the current request. */
  private enqueue(job: () => Promise<void>): void {
    this.pendingWork++;
    this.background = this.background
      .then(() => (this.closed ? undefined : job()))
      .catch(() => undefined)
      .finally(() => {
        this.pendingWork--;
      });
  }

  /** Rescores candidates from their stored vectors; drops (and forgets) those deleted or gone. */
  private rescore(entry: Entry, { hits, unit }: { hits: IvfHit[]; unit: UnitQuery }): NearestRow[] {
    if (hits.length === 0) return [];
    const pks = JSON.stringify(hits.map((hit) => hit.key));
    const dimensions = unit.values.length;
    const read = this.statements.candidates.get({ pks, bytes: dimensions * 4, ...entry.scope });
    if (read === undefined || read[1] === null) return [];
    const heads = JSON.parse(read[0]) as [pk: number, ...head: HeadValues][];
    const vectors = decodeVector(read[1]);
    // One row per pk: a pk the index holds twice (re-embedded) is read once.
    const found: NearestRow[] = [];
    heads.forEach((row, index) => {
      const score = cosineToUnitAt(unit, vectors, index * dimensions);
      if (score === null) return;
      const head = headOf(row, 1);
      found.push({ id: head.id, score, head });
    });
    return found.sort(byScoreThenId);
  }

  /**
   * A scope's index, first reading what other connections (other proxy processes) committed
   * since it last looked. Only the searched scope catches up: with several writing processes
   * the version moves all the time, and catching up every cached scope on each search would
   * cost a few queries per scope.
   */
  private current(scope: Scope): Entry {
    const entry = this.entry(scope);
    if (this.readVersion() === entry.dataVersion) return entry;
    this.catchUp(entry);
    // A scope too far behind was dropped by the catch-up: load it afresh.
    return entry.dropped ? this.entry(scope) : entry;
  }

  private catchUp(entry: Entry): void {
    entry.dataVersion = this.readVersion();
    const lastPk = this.statements.lastPk.get() ?? 0;
    if (lastPk - entry.syncedPk > MAX_CATCH_UP_ROWS) {
      this.drop(entry);
      return;
    }
    const add = ([pk, blob]: [number, Uint8Array]) => {
      if (!entry.recent.has(pk)) entry.index.add(pk, decodeVector(blob));
    };
    this.statements.vectorsAfter.all({ afterPk: entry.syncedPk, ...entry.scope }).forEach(add);
    if (entry.holes.size > 0) {
      this.statements.vectorsByPks.all({ pks: JSON.stringify([...entry.holes]), ...entry.scope }).forEach(add);
    }
    entry.holes = new Set(this.statements.pendingPks.all({ upToPk: lastPk, ...entry.scope }));
    entry.syncedPk = lastPk;
    entry.recent.clear();
    this.scheduleTraining(entry);
  }

  private evict(keep: Entry): void {
    for (const entry of this.entries.values()) {
      if (this.totalBytes() <= this.budgetBytes) return;
      if (entry !== keep) this.drop(entry);
    }
  }

  private drop(entry: Entry): void {
    entry.dropped = true;
    entry.index.release();
    this.entries.delete(scopeKey(entry.scope));
  }

  private totalBytes(): number {
    let bytes = 0;
    for (const entry of this.entries.values()) bytes += entry.index.bytes;
    return bytes;
  }
}

function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * The candidates worth rescoring for the k best (`hits` best first): the first k, and the ones
 * after them within RESCORE_REACH of the k-th approximate score.
 */
export function withinReach(hits: IvfHit[], k: number): IvfHit[] {
  if (hits.length <= k) return hits;
  const floor = hits[k - 1]!.score - RESCORE_REACH;
  let end = k;
  while (end < hits.length && hits[end]!.score >= floor) end++;
  return end === hits.length ? hits : hits.slice(0, end);
}
