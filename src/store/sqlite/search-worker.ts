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

port.on('message', (request: SearchRequest) => {
  // Id 0 is a notice: nobody waits for its answer.
  const reply = (answered: SearchReply) => request.id !== 0 && port.postMessage(answered);
  void answer(request).then(
    (value) => reply({ id: request.id, value }),
    (error: unknown) => reply({ id: request.id, error: error instanceof Error ? error.message : String(error) }),
  );
});

/**
 * Runs a search's statements on one snapshot. A connection in WAL mode empties its page cache
 * when it starts reading after another connection committed, and the store's connection commits
 * several times a request: each statement of a search read on a snapshot of its own, so a
 * full-text search's five to ten statements each read their pages from the file again. One
 * transaction a search, not one for all the searches waiting: reads held open across a batch
 * slowed 256 streams by 3-8% (bench/NOTES.md).
 */
const inOneSnapshot = db.transaction(<T>(read: () => T): T => read());

async function answer(request: SearchRequest): Promise<unknown> {
  switch (request.op) {
    case 'vector':
      writerVersion = request.dataVersion;
      return inOneSnapshot(() =>
        searchVectors({ statements, vectors, scope: request.scope, vector: request.vector, search: request.options }),
      );
    case 'text':
      return inOneSnapshot(() => fullText.search(request.scope, request.text, request.k, request.heads));
    case 'neighbours':
      return inOneSnapshot(() => readNeighbours(statements, request.scope, request.ids, request.options));
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
