import type { Logger } from '../logger';

/** A job that may run after the answer went out. */
export type BackgroundJob = () => Promise<void>;

/** The lane of jobs that wait on a model (summaries written through the upstream). */
export const MODEL_LANE = 'model';
const DEFAULT_LANE = 'store';

interface Lane {
  jobs: { name: string; run: BackgroundJob }[];
  running: boolean;
}

/**
 * Runs work that need not delay an answer (embeddings, synapses, summaries) one job at a time
 * per lane, in order. Jobs that wait on a model call run in a lane of their own, so a slow
 * summary model (up to its timeout) never holds back the embeddings queued behind it. A crash
 * loses queued jobs, which is why the startup sweep finishes what is missing.
 */
export class BackgroundQueue {
  private readonly lanes = new Map<string, Lane>();
  private idleWaiters: (() => void)[] = [];
  private stopped = false;

  constructor(private readonly logger: Logger) {}

  /** Jobs waiting or running, every lane (for /metrics and graceful shutdown). */
  get pending(): number {
    let count = 0;
    for (const lane of this.lanes.values()) count += lane.jobs.length + (lane.running ? 1 : 0);
    return count;
  }

  /** Queues a job; a failing job is logged and never affects the others. */
  push(name: string, run: BackgroundJob, options: { lane?: string } = {}): void {
    if (this.stopped) return;
    const key = options.lane ?? DEFAULT_LANE;
    let lane = this.lanes.get(key);
    if (!lane) {
      lane = { jobs: [], running: false };
      this.lanes.set(key, lane);
    }
    lane.jobs.push({ name, run });
    if (!lane.running) void this.loop(lane);
  }

  /** Resolves once every queued job of every lane has run (tests, shutdown). */
  drain(): Promise<void> {
    if (this.pending === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Refuses new jobs and waits for the queued ones. */
  async stop(): Promise<void> {
    await this.drain();
    this.stopped = true;
  }

  private async loop(lane: Lane): Promise<void> {
    lane.running = true;
    try {
      for (let job = lane.jobs.shift(); job; job = lane.jobs.shift()) {
        // With the embedded store a job never waits on I/O, so without this the whole queue would
        // run in one turn of the event loop and hold back every request until it is empty.
        await new Promise((resolve) => setImmediate(resolve));
        try {
          await job.run();
        } catch (error) {
          this.logger.warn('background job failed', {
            job: job.name,
            error: (error as Error).message,
          });
        }
      }
    } finally {
      lane.running = false;
      if (this.pending === 0) {
        const waiters = this.idleWaiters;
        this.idleWaiters = [];
        for (const resolve of waiters) resolve();
      }
    }
  }
}
