import type { Logger } from '../logger';

/** A job that may run after the answer went out. */
export type BackgroundJob = () => Promise<void>;

/**
 * Runs work that need not delay an answer (embeddings, synapses, summaries) one job at a time,
 * in order. A crash loses queued jobs, which is why the startup sweep finishes what is missing.
 */
export class BackgroundQueue {
  private readonly jobs: { name: string; run: BackgroundJob }[] = [];
  private running = false;
  private idleWaiters: (() => void)[] = [];
  private stopped = false;

  constructor(private readonly logger: Logger) {}

  /** Jobs waiting or running (for /metrics and graceful shutdown). */
  get pending(): number {
    return this.jobs.length + (this.running ? 1 : 0);
  }

  /** Queues a job; a failing job is logged and never affects the others. */
  push(name: string, run: BackgroundJob): void {
    if (this.stopped) return;
    this.jobs.push({ name, run });
    if (!this.running) void this.loop();
  }

  /** Resolves once every queued job has run (tests, shutdown). */
  drain(): Promise<void> {
    if (!this.running && this.jobs.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Refuses new jobs and waits for the queued ones. */
  async stop(): Promise<void> {
    await this.drain();
    this.stopped = true;
  }

  private async loop(): Promise<void> {
    this.running = true;
    try {
      for (let job = this.jobs.shift(); job; job = this.jobs.shift()) {
        // With the embedded store a job never waits on I/O, so without this the whole queue would
        // run in one turn of the event loop and hold back every request until it is empty.
        await new Promise((resolve) => setImmediate(resolve));
        try {
          await job.run();
        } catch (error) {
          this.logger.warn('background job failed', { job: job.name, error: (error as Error).message });
        }
      }
    } finally {
      this.running = false;
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const resolve of waiters) resolve();
    }
  }
}
