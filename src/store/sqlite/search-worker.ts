/**
 * The search thread of the embedded store (search-thread.ts): a connection of its own to the
 * database file, the full-text search and the in-memory vector indexes, answering the requests
 * of the store's thread in the order they come.
 */
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { FullTextSearch } from './full-text-search';
import { configureConnection } from './schema';
import { searchVectors } from './search-vectors';
import { prepareStatements } from './statements';
import { VectorIndexCache } from './vector-index-cache';
import { readNeighbours } from './read-neighbours';
import type { SearchReply, SearchRequest, SearchThreadData } from './search-thread';

const data = workerData as SearchThreadData;
const port = parentPort!;
const db = new Database(data.file, { fileMustExist: true, timeout: data.busyTimeoutMs });
configureConnection(db);
// Each commit of the store's connection empties this connection's page cache (SQLite drops it
// when the log changed under a reader), so under load it holds one search's pages at most; a
// large one only grew while an index loaded (16 MiB: ~80 MiB less after 200 indexes loaded).
db.pragma('cache_size = -16384');
const statements = prepareStatements(db);
const fullText = new FullTextSearch(db);
// Writes come from the store's connection: its data_version, sent with each search, moves only
// when another process commits, while this connection's moves on every write of the store.
let writerVersion = 0;
const vectorCache = (dimensions: number) =>
  new VectorIndexCache({ db, dimensions, budgetBytes: data.vectorCacheBytes, dataVersion: () => writerVersion });
let vectors = vectorCache(data.dimensions);

/** The reads of a search, answered from the database as one snapshot. */
type ReadRequest = Extract<SearchRequest, { op: 'vector' | 'text' | 'neighbours' }>;

const waiting: SearchRequest[] = [];
port.on('message', (request: SearchRequest) => {
  if (waiting.push(request) === 1) setImmediate(answerWaiting);
});

/**
 * Answers the requests that came in since the last turn, in order, reading those in a row that
 * only read within one transaction. A connection in WAL mode empties its page cache when it
 * starts reading after another connection committed, and the store's connection commits
 * several times a request: each statement read on its own snapshot read its pages from the
 * file again, while reads in one transaction share the pages of one.
 */
function answerWaiting(): void {
  let reads: ReadRequest[] = [];
  const answerReads = () => {
    if (reads.length === 0) return;
    const batch = reads;
    reads = [];
    try {
      readInOneSnapshot(() => {
        for (const request of batch) settle(request, () => read(request));
      });
    } catch {
      // Every read was answered inside; a failed end of a read-only transaction loses nothing.
    }
  };
  for (const request of waiting.splice(0)) {
    if (isRead(request)) {
      reads.push(request);
      continue;
    }
    answerReads();
    settle(request, () => command(request));
  }
  answerReads();
}

const readInOneSnapshot = db.transaction((readAll: () => void) => readAll());

function isRead(request: SearchRequest): request is ReadRequest {
  return request.op === 'vector' || request.op === 'text' || request.op === 'neighbours';
}

/** Runs a request and replies with its value or its error; id 0 is a notice, nobody waits for it. */
function settle(request: SearchRequest, run: () => unknown): void {
  const reply = (answered: SearchReply) => request.id !== 0 && port.postMessage(answered);
  const failed = (error: unknown) => reply({ id: request.id, error: error instanceof Error ? error.message : String(error) });
  try {
    const value = run();
    if (value instanceof Promise) value.then((settled: unknown) => reply({ id: request.id, value: settled }), failed);
    else reply({ id: request.id, value });
  } catch (error) {
    failed(error);
  }
}

function read(request: ReadRequest): unknown {
  switch (request.op) {
    case 'vector':
      writerVersion = request.dataVersion;
      return searchVectors({ statements, vectors, scope: request.scope, vector: request.vector, search: request.options });
    case 'text':
      return fullText.search(request.scope, request.text, request.k, request.heads);
    case 'neighbours':
      return readNeighbours(statements, request.scope, request.ids, request.options);
  }
}

function command(request: Exclude<SearchRequest, ReadRequest>): unknown {
  switch (request.op) {
    case 'added':
      vectors.added(request.scope, request.rows);
      return null;
    case 'clear':
      vectors.clear();
      return null;
    case 'dimensions':
      vectors.close();
      vectors = vectorCache(request.dimensions);
      return null;
    case 'warm':
      writerVersion = request.dataVersion;
      return vectors.warm(request.scope);
    case 'close':
      vectors.close();
      db.close();
      process.exit(0);
  }
}
