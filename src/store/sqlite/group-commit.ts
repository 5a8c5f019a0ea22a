import type Database from 'better-sqlite3';
import { StoreUnavailableError } from '../../errors';

/** The writes of one batch: settled when its COMMIT has landed or failed. */
interface Batch {
  readonly committed: Promise<void>;
  /** Run right after the COMMIT lands, before any writer's continuation. */
  readonly afterCommit: (() => void)[];
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * The group commits of this thread with a batch open. Two connections of one thread to one file
 * (two store objects in a test or a command) would deadlock otherwise: a connection waiting for
 * the write lock blocks the event loop, so the batch holding it never reaches its commit.
 */
const withOpenBatch = new Set<GroupCommit>();

/**
 * Commits the batches other connections of this thread hold open, before a write on `db` that
 * does not go through its GroupCommit (see withOpenBatch).
 */
export function commitOtherBatches(db: Database.Database): void {
  for (const commits of withOpenBatch) if (!commits.on(db)) commits.flush();
}

/**
 * Commits the writes made on one connection within a turn of the event loop together.
 *
 * A commit costs the writer ~80 us and a log write of every page it touched, and it makes each
 * reader on another connection (the search thread) read its pages from the file again. Under
 * load the requests of one turn of the event loop each committed on their own; here the first
 * write opens a transaction, the writes after it join as savepoints, and the transaction commits
 * when the event loop next reaches its check phase (setImmediate), which an idle proxy does at
 * once.
 *
 * A write's promise resolves only once the commit holding it has landed, so nothing is answered
 * before it is durable; a failed commit rejects every write of its batch and calls `onRollback`
 * for the caller to drop what it keeps in memory of them. Reads on this connection see the open
 * batch, as a transaction sees its own writes. Writes made on this connection outside `write`
 * (their own `db.transaction`) join an open batch as savepoints too: a caller that answers for
 * them waits for `settled()`.
 */
export class GroupCommit {
  private open: Batch | null = null;
  private readonly inSavepoint: (work: () => unknown) => unknown;

  private readonly grouped: boolean;
  private readonly onRollback: () => void;

  /**
   * `grouped: false` commits each write on its own before it returns (processes sharing the
   * file with other busy writers, which would wait for a batch's whole turn of the event loop).
   */
  constructor(
    private readonly db: Database.Database,
    options: { grouped?: boolean; onRollback: () => void },
  ) {
    this.grouped = options.grouped ?? true;
    this.onRollback = options.onRollback;
    // Nested in the batch's transaction, better-sqlite3 runs this as a savepoint: a write that
    // throws leaves none of its changes in the batch and the others in it.
    this.inSavepoint = db.transaction((work: () => unknown) => work());
  }

  /**
   * Runs `work` in the open batch, opening one if needed; its result once the batch commits.
   * `afterCommit` gets the result the moment the commit lands, before other code runs (to hand
   * what was written to in-memory indexes in commit order, and never what was rolled back).
   */
  async write<T>(work: () => T, afterCommit?: (result: T) => void): Promise<T> {
    const batch = this.batch();
    let result: T;
    try {
      result = this.inSavepoint(work) as T;
      if (afterCommit !== undefined) batch.afterCommit.push(() => afterCommit(result));
    } finally {
      // commit() fails a batch SQLite already rolled back; a grouped one is checked at its commit.
      if (!this.grouped) this.commit(batch);
    }
    await batch.committed;
    return result;
  }

  /**
   * Runs a large write as a transaction of its own, after committing the open batch; its result
   * once that transaction has committed (`afterCommit` as for `write`). Joined to a batch, the
   * write would run in a savepoint, which keeps the original of every page it changes in a
   * statement journal that grows with the write (a temporary file past 64 KiB, rewritten from its
   * start only once no savepoint is open); on its own, each statement's journal reuses the same
   * pages. A bulk load of 1,000-turn appends stored ~15% fewer turns a second in savepoints.
   * A write that throws leaves nothing; a commit that fails calls `onRollback`, as a batch's does.
   */
  async alone<T>(work: () => T, afterCommit?: (result: T) => void): Promise<T> {
    this.flush();
    commitOtherBatches(this.db);
    this.db.exec('BEGIN IMMEDIATE');
    let result: T;
    try {
      result = work();
    } catch (error) {
      this.rollBack();
      throw error;
    }
    this.commitTransaction();
    afterCommit?.(result);
    return result;
  }

  /** Resolves once what was written so far has committed; at once when no batch is open. */
  settled(): Promise<void> {
    return this.open?.committed ?? Promise.resolve();
  }

  /** Commits the open batch now (before the connection closes). */
  flush(): void {
    if (this.open !== null) this.commit(this.open);
  }

  /** Whether this writes on `db`. */
  on(db: Database.Database): boolean {
    return this.db === db;
  }

  private batch(): Batch {
    if (this.open !== null && this.stillOpen(this.open)) return this.open;
    commitOtherBatches(this.db);
    // Waits for another process's write lock up to the connection's busy timeout.
    this.db.exec('BEGIN IMMEDIATE');
    const batch = newBatch();
    this.open = batch;
    withOpenBatch.add(this);
    if (this.grouped) setImmediate(() => this.commit(batch));
    return batch;
  }

  private commit(batch: Batch): void {
    if (this.open !== batch || !this.stillOpen(batch)) return;
    try {
      this.commitTransaction();
    } catch (error) {
      this.closeBatch(batch);
      batch.reject(error);
      return;
    }
    this.closeBatch(batch);
    // Resolving only queues the writers' continuations: the follow-ups still run before any.
    batch.resolve();
    for (const committed of batch.afterCommit) committed();
  }

  /**
   * Commits the connection's transaction. One that fails is rolled back, `onRollback` is called
   * for what the caller keeps in memory of its writes, and the error is thrown.
   */
  private commitTransaction(): void {
    try {
      this.db.exec('COMMIT');
    } catch (error) {
      if (this.db.inTransaction) this.rollBack();
      this.onRollback();
      throw error;
    }
  }

  /**
   * Whether the batch's transaction is still open. An error SQLite answers by rolling the whole
   * transaction back (a full disk, an I/O error) took the batch's writes with it: fails it.
   */
  private stillOpen(batch: Batch): boolean {
    if (this.db.inTransaction) return true;
    this.fail(batch, lostBatch());
    return false;
  }

  private fail(batch: Batch, error: unknown): void {
    this.closeBatch(batch);
    this.onRollback();
    batch.reject(error);
  }

  private closeBatch(batch: Batch): void {
    if (this.open !== batch) return;
    this.open = null;
    withOpenBatch.delete(this);
  }

  private rollBack(): void {
    try {
      this.db.exec('ROLLBACK');
    } catch {
      // Already rolled back by SQLite itself, or the connection is gone: nothing is left open.
    }
  }
}

function newBatch(): Batch {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const committed = new Promise<void>((ok, fail) => {
    resolve = ok;
    reject = fail;
  });
  // A batch whose writers all failed on their own has no one left to hear that it failed.
  committed.catch(() => undefined);
  return { committed, afterCommit: [], resolve, reject };
}

function lostBatch(): StoreUnavailableError {
  return new StoreUnavailableError('a write in the same commit failed and rolled the commit back');
}
