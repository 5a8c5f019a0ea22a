import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';

/** How often the background thread copies the write-ahead log into the database file. */
const CHECKPOINT_INTERVAL_MS = 100;
/** SQLite's default: the writing connection checkpoints itself once the log holds this many pages. */
const DEFAULT_AUTOCHECKPOINT_PAGES = 1_000;
/** While the background thread runs, the writer checkpoints itself only if it falls this far behind. */
const BACKSTOP_AUTOCHECKPOINT_PAGES = 16_000;

// A checkpoint ends with an fsync of the database file (5-10 ms here) that SQLite runs inside
// whichever commit crosses the log's size limit, blocking the event loop for it. A second
// connection on its own thread takes those over: PASSIVE never waits for or blocks the writer
// or readers, and a log it has fully copied is started over by the writer's next transaction.
// Plain JavaScript evaluated in the thread, so it runs the same under tsx and from a build.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
const timer = setInterval(() => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch (error) {
    clearInterval(timer);
    db.close();
    throw error;
  }
}, workerData.intervalMs);
parentPort.on('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
parentPort.postMessage('ready');
`;

/**
 * Checkpoints a WAL database from a worker thread, so the fsync at the end of each checkpoint
 * leaves the event loop alone. The writing connection keeps a checkpoint of its own far behind
 * as a backstop, and gets SQLite's default back if the thread stops.
 */
export class WalCheckpointer {
  private readonly worker: Worker;
  private stopping = false;
  private exited = false;

  constructor(
    private readonly db: Database.Database,
    file: string,
  ) {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { driver, file, intervalMs: CHECKPOINT_INTERVAL_MS },
    });
    // An idle proxy or a finished command is not kept alive by the thread.
    this.worker.unref();
    this.worker.once('message', () => {
      if (!this.stopping) db.pragma(`wal_autocheckpoint = ${BACKSTOP_AUTOCHECKPOINT_PAGES}`);
    });
    // A thread that fails (a locked or vanished file) leaves checkpoints to the writer again.
    this.worker.on('error', () => this.restoreDefault());
    this.worker.once('exit', () => {
      this.exited = true;
      this.restoreDefault();
    });
  }

  /** Stops the thread after its connection is closed; the caller's connection closes last. */
  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    if (this.exited) return;
    const exited = new Promise<void>((resolve) => this.worker.once('exit', () => resolve()));
    // Waited for, the thread must hold the process open until it has closed its connection.
    this.worker.ref();
    this.worker.postMessage('stop');
    await exited;
  }

  private restoreDefault(): void {
    if (this.stopping || !this.db.open) return;
    this.db.pragma(`wal_autocheckpoint = ${DEFAULT_AUTOCHECKPOINT_PAGES}`);
  }
}
