import { Worker } from 'node:worker_threads';
import type { VectorHit, VectorSearchOptions } from '../memory-store';
import type { Neighbour, Scope, ScoredId } from '../types';
import { scopeKey } from '../scope-key';
import { scopeParams } from './scope-sql';

/** What the search thread is started with. */
export interface SearchThreadData {
  file: string;
  dimensions: number;
  vectorCacheBytes: number | undefined;
  busyTimeoutMs: number;
}

/** A request to the search thread, answered in order. */
export type SearchRequest = { id: number } & (
  | { op: 'vector'; scope: Scope; vector: number[]; options: VectorSearchOptions; dataVersion: number }
  | { op: 'text'; scope: Scope; text: string; k: number; heads: boolean }
  | { op: 'neighbours'; scope: Scope; ids: string[]; options: { limit: number; withMessages?: boolean } }
  | { op: 'added'; scope: Scope; rows: { pk: number; vector: Float32Array }[] }
  | { op: 'clear' }
  | { op: 'dimensions'; dimensions: number }
  | { op: 'warm'; scope: Scope; dataVersion: number }
  | { op: 'close' }
);

/** The thread's answer to the request of the same id. */
export type SearchReply = { id: number; value?: unknown; error?: string };

type Ask = SearchRequest extends infer R ? (R extends SearchRequest ? Omit<R, 'id'> : never) : never;

/**
 * Runs the embedded store's searches (full text, vectors through the in-memory indexes, and
 * the neighbours of graph expansion) on a thread of their own with its own connection, so a
 * second core ranks the candidates while the event loop serves requests: better-sqlite3 is
 * synchronous, and these reads were about a third of the event loop's time under load. The
 * thread is started on the first search. It reads only what was committed, which is
 * everything the store wrote before the search was asked for; vectors the store writes are
 * handed over in order, so a search never misses one. A thread that fails is given up for good:
 * every search then runs in the store's own thread, as it does without one.
 */
export class SearchThread {
  private worker: Worker | null = null;
  private failed = false;
  private nextId = 1;
  private readonly pending = new Map<number, (reply: SearchReply | null) => void>();
  /**
   * Scopes whose vectors the thread was asked to search: only those can have an index there to
   * keep current. A bulk load into other scopes sends nothing. It grows by one key per instance
   * searched in the process's life.
   */
  private readonly indexed = new Set<string>();

  constructor(private readonly data: SearchThreadData) {}

  /** Whether searches run on the thread: not yet (until the first), now, or no more. */
  get state(): 'idle' | 'running' | 'stopped' {
    return this.worker !== null ? 'running' : this.failed ? 'stopped' : 'idle';
  }

  /** The thread's answer, or null when it could not give one (the caller then searches itself). */
  private async ask<T>(request: Ask): Promise<T | null> {
    const worker = this.running();
    if (worker === null) return null;
    const id = this.nextId++;
    const reply = new Promise<SearchReply | null>((resolve) => this.pending.set(id, resolve));
    // Held open only while it owes an answer: an idle proxy or a finished command exits.
    if (this.pending.size === 1) worker.ref();
    worker.postMessage({ ...request, id });
    const answer = await reply;
    return answer === null || answer.error !== undefined ? null : (answer.value as T);
  }

  /** Tells a running thread something it must know before its next search (no answer awaited). */
  private tell(request: Ask): void {
    if (this.worker === null) return;
    this.worker.postMessage({ ...request, id: 0 });
  }

  /** `dataVersion`: the writing connection's PRAGMA data_version (see VectorIndexCacheOptions). */
  vectorSearch(scope: Scope, vector: number[], options: VectorSearchOptions, dataVersion: number): Promise<VectorHit[] | null> {
    this.indexed.add(scopeKey(scope));
    return this.ask({ op: 'vector', scope: scopeParams(scope), vector, options, dataVersion });
  }

  /** Vectors the store just wrote (rows of `scope`, by pk), for the scope's index if the thread has one. */
  added(scope: Scope, rows: { pk: number; vector: Float32Array }[]): void {
    // Float32Array, as stored: a typed array crosses as one copy, an array of numbers one by one.
    if (rows.length > 0 && this.indexed.has(scopeKey(scope))) this.tell({ op: 'added', scope: scopeParams(scope), rows });
  }

  /** Every stored vector was dropped. */
  cleared(): void {
    this.tell({ op: 'clear' });
  }

  /** Loads a scope's index and waits until it is trained (benchmarks, tests); null as ask. */
  warm(scope: Scope, dataVersion: number): Promise<{ vectors: number; lists: number; bytes: number } | null> {
    this.indexed.add(scopeKey(scope));
    return this.ask({ op: 'warm', scope: scopeParams(scope), dataVersion });
  }

  /** The store's vectors now have this many dimensions: the indexes start over. */
  setDimensions(dimensions: number): void {
    this.data.dimensions = dimensions;
    this.tell({ op: 'dimensions', dimensions });
  }

  /** `heads`: each hit with its head (ScoredId). */
  fullTextSearch(scope: Scope, text: string, k: number, heads: boolean): Promise<ScoredId[] | null> {
    return this.ask({ op: 'text', scope: scopeParams(scope), text, k, heads });
  }

  /** MemoryStore.neighbours, read on the thread; null as ask. */
  neighbours(scope: Scope, ids: string[], options: { limit: number; withMessages?: boolean }): Promise<Neighbour[] | null> {
    return this.ask({ op: 'neighbours', scope: scopeParams(scope), ids, options });
  }

  /** Closes the thread's connection and waits for it to exit. */
  async close(): Promise<void> {
    const worker = this.worker;
    this.failed = true;
    if (worker === null) return;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.ref();
    worker.postMessage({ op: 'close', id: 0 });
    await exited;
    this.worker = null;
  }

  private running(): Worker | null {
    if (this.worker !== null || this.failed) return this.worker;
    // Threads do not inherit the process's TypeScript loader: the boot file registers it.
    const worker = new Worker(new URL('./search-worker-boot.mjs', import.meta.url), {
      workerData: this.data,
      // V8's default young generation let the thread's heap grow by ~60 MiB while indexes
      // loaded (200 instances of 1,000 turns); 4 MiB kept the same throughput.
      resourceLimits: { maxYoungGenerationSizeMb: 4 },
    });
    worker.unref();
    worker.on('message', (reply: SearchReply) => this.settle(reply.id, reply));
    worker.on('error', () => this.giveUp(worker));
    worker.on('exit', () => this.giveUp(worker));
    this.worker = worker;
    return worker;
  }

  private settle(id: number, reply: SearchReply | null): void {
    const resolve = this.pending.get(id);
    if (resolve === undefined) return;
    this.pending.delete(id);
    resolve(reply);
    if (this.pending.size === 0) this.worker?.unref();
  }

  private giveUp(worker: Worker): void {
    if (this.worker !== worker) return;
    this.worker = null;
    this.failed = true;
    for (const id of [...this.pending.keys()]) this.settle(id, null);
  }
}
