import type Database from 'better-sqlite3';
import { commitOtherBatches } from './group-commit';
import { scopeTokenSql } from './schema';

/**
 * How long a stored turn may wait for the full-text index. A request's own turns are in its
 * recent window, so the pipeline's searches do not wait for them (`fresh: false`); a search that
 * must find everything indexes what is queued first.
 */
const INDEX_INTERVAL_MS = 100;
/** Turns indexed in one transaction, at most: ~30 ms of indexing, the longest the event loop waits. */
const BATCH_TURNS = 256;

/**
 * Moves queued turns (schema.ts, messages_fts_queue) into the full-text index in batches. Any
 * process sharing the file may index any queued turn: the queue is in the file, so turns a
 * process stored and left queued when it stopped are indexed by the next one that looks.
 */
export class FullTextQueue {
  private readonly statements;
  private readonly timer: NodeJS.Timeout;
  private closed = false;

  constructor(private readonly db: Database.Database) {
    this.statements = {
      queued: db.prepare<[], number>('SELECT EXISTS (SELECT 1 FROM messages_fts_queue)').pluck(),
      lastOfBatch: db
        .prepare<{ limit: number }, number | null>(
          'SELECT max(pk) FROM (SELECT pk FROM messages_fts_queue ORDER BY pk LIMIT @limit)',
        )
        .pluck(),
      index: db.prepare<{ upTo: number }>(
        `INSERT INTO messages_fts (rowid, content, scope)
         SELECT m.pk, m.content, ${scopeTokenSql('m')}
           FROM messages_fts_queue q CROSS JOIN messages m ON m.pk = q.pk
          WHERE q.pk <= @upTo ORDER BY q.pk`,
      ),
      dequeue: db.prepare<{ upTo: number }>('DELETE FROM messages_fts_queue WHERE pk <= @upTo'),
    };
    this.timer = setInterval(() => this.indexInBackground(), INDEX_INTERVAL_MS);
    // An idle proxy or a finished command is not kept alive by it.
    this.timer.unref();
  }

  /** Indexes every queued turn now: afterwards a search finds every turn stored before. */
  indexAll(): void {
    while (this.indexBatch()) {
      // Each batch commits on its own, so no transaction grows with the queue.
    }
  }

  /** Stops the timer; queued turns stay queued in the file for the next process that opens it. */
  close(): void {
    this.closed = true;
    clearInterval(this.timer);
  }

  /** A batch, and the next one after whatever else the event loop has waiting, until none is left. */
  private indexInBackground(): void {
    if (this.closed) return;
    let more = false;
    try {
      more = this.indexBatch();
    } catch {
      // Left queued (a busy or closing file): the next tick tries again, and a search that
      // must find every turn indexes them itself, reporting what fails.
    }
    if (more) setImmediate(() => this.indexInBackground());
  }

  /** Indexes up to BATCH_TURNS queued turns; whether any were left to index. */
  private indexBatch(): boolean {
    if (this.statements.queued.get() !== 1) return false;
    // Its own connection's open batch it joins; another one of this thread's would hold the lock.
    commitOtherBatches(this.db);
    return this.db
      .transaction(() => {
        // Read again under the write lock: another process may have indexed them meanwhile.
        const upTo = this.statements.lastOfBatch.get({ limit: BATCH_TURNS });
        if (upTo === null || upTo === undefined) return false;
        this.statements.index.run({ upTo });
        this.statements.dequeue.run({ upTo });
        return true;
      })
      .immediate();
  }
}
