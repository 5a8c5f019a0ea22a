import type { Logger } from '../../logger';
import type { MemoryStore } from '../../store/memory-store';
import type { OrphanCleanup, ScopeFilter } from '../../store/topic-types';
import { clusterTopics } from './cluster-topics';
import {
  enforceRetention,
  scopesOf,
  type RetentionPolicy,
  type RetentionResult,
} from './enforce-retention';
import { summarizePeriods } from './summarize-periods';
import type { TopicSummarizer } from './summarize-topics';

/** The first timed run comes this soon after start (or after one interval, if shorter), so a proxy restarted more often than its interval still runs the jobs. */
const FIRST_RUN_MS = 60_000;

/** The background jobs, in the order a run takes them. */
export const MAINTENANCE_JOBS = ['orphans', 'retention', 'topics', 'periods'] as const;
/** One of the background jobs. */
export type MaintenanceJob = (typeof MAINTENANCE_JOBS)[number];

/** What the jobs are built from. */
export interface MaintenanceOptions {
  store: MemoryStore;
  logger: Logger;
  now: () => number;
  retention: RetentionPolicy;
  /** Similarity to a topic's centre needed to join it. */
  topicThreshold: number;
  /** Most topics per instance. */
  maxTopics: number;
  /** Model-written topic summaries; null: extractive only. */
  summarizer: TopicSummarizer | null;
}

/** What a run did, job by job. */
export interface MaintenanceReport {
  orphans?: OrphanCleanup;
  retention?: RetentionResult;
  topics?: {
    instances: number;
    assigned: number;
    created: number;
    summarized: number;
    done: boolean;
  };
  periods?: { instances: number; periods: number; done: boolean };
  /** False when the run was stopped before it finished. */
  completed: boolean;
}

/** How a run ended, for /metrics. */
export interface MaintenanceOutcome {
  report: MaintenanceReport | null;
  /** Set when the run failed. */
  error: unknown;
  seconds: number;
}

/** What a run covers. */
export interface MaintenanceRunOptions {
  jobs?: readonly MaintenanceJob[];
  filter?: ScopeFilter;
  /** Topic job: turns per step (default 200). */
  batchSize?: number;
  /** Topic job: stop after this many steps per instance (to show that a stopped run resumes). */
  maxBatches?: number;
}

/**
 * Runs the background upkeep (orphan cleanup, retention, topic clustering, period summaries)
 * on a timer and on request. One run at a time: a request while a run is going waits for it and
 * then runs. Every job is safe to stop between steps; stop() lets the current step finish.
 */
export class MaintenanceRunner {
  private timer: NodeJS.Timeout | null = null;
  private firstRun: NodeJS.Timeout | null = null;
  private current: Promise<unknown> = Promise.resolve();
  private stopped = false;
  private readonly observers: ((outcome: MaintenanceOutcome) => void)[] = [];

  constructor(private readonly options: MaintenanceOptions) {}

  /** Runs every job every `intervalMs` (0: never), without keeping the process alive. */
  start(intervalMs: number): void {
    if (intervalMs <= 0 || this.timer || this.stopped) return;
    const tick = () => {
      void this.run().catch((error: unknown) =>
        this.options.logger.warn('maintenance failed', { error: (error as Error).message }),
      );
    };
    if (intervalMs > FIRST_RUN_MS) {
      this.firstRun = setTimeout(tick, FIRST_RUN_MS);
      this.firstRun.unref();
    }
    this.timer = setInterval(tick, intervalMs);
    this.timer.unref();
  }

  /** Stops the timer and waits for the step under way; later runs do nothing. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.firstRun) clearTimeout(this.firstRun);
    if (this.timer) clearInterval(this.timer);
    this.firstRun = null;
    this.timer = null;
    await this.current.catch(() => undefined);
  }

  /** Calls `observer` after every run (the app counts them for /metrics). */
  observe(observer: (outcome: MaintenanceOutcome) => void): void {
    this.observers.push(observer);
  }

  /** Runs the jobs now (after any run under way) and reports what they did. */
  run(options: MaintenanceRunOptions = {}): Promise<MaintenanceReport> {
    const next = this.current.catch(() => undefined).then(() => this.observed(options));
    this.current = next;
    return next;
  }

  private async observed(options: MaintenanceRunOptions): Promise<MaintenanceReport> {
    const started = performance.now();
    const tell = (report: MaintenanceReport | null, error: unknown) => {
      const seconds = (performance.now() - started) / 1000;
      for (const observer of this.observers) observer({ report, error, seconds });
    };
    try {
      const report = await this.runJobs(options);
      tell(report, null);
      return report;
    } catch (error) {
      tell(null, error);
      throw error;
    }
  }

  private async runJobs(options: MaintenanceRunOptions): Promise<MaintenanceReport> {
    const { store, logger } = this.options;
    const filter = options.filter ?? {};
    const jobs = new Set(options.jobs ?? MAINTENANCE_JOBS);
    const stopping = () => this.stopped;
    const report: MaintenanceReport = { completed: false };
    if (this.stopped) return report;
    const started = performance.now();
    if (jobs.has('orphans')) report.orphans = await store.deleteOrphans(filter);
    if (jobs.has('retention') && !stopping()) {
      report.retention = await enforceRetention({
        store,
        policy: this.options.retention,
        now: this.options.now(),
        filter,
        stopping,
      });
    }
    const scopes = jobs.has('topics') || jobs.has('periods') ? await scopesOf(store, filter) : [];
    if (jobs.has('topics')) {
      const topics = { instances: 0, assigned: 0, created: 0, summarized: 0, done: true };
      for (const scope of scopes) {
        if (stopping()) break;
        const result = await clusterTopics({
          store,
          scope,
          now: this.options.now,
          threshold: this.options.topicThreshold,
          maxTopics: this.options.maxTopics,
          batchSize: options.batchSize,
          maxBatches: options.maxBatches,
          stopping,
          summarizer: this.options.summarizer,
        });
        topics.instances += 1;
        topics.assigned += result.assigned;
        topics.created += result.created;
        topics.summarized += result.summarized;
        topics.done &&= result.done;
      }
      report.topics = topics;
    }
    if (jobs.has('periods')) {
      const periods = { instances: 0, periods: 0, done: true };
      for (const scope of scopes) {
        if (stopping()) break;
        const result = await summarizePeriods({ store, scope, now: this.options.now, stopping });
        periods.instances += 1;
        periods.periods += result.periods;
        periods.done &&= result.done;
      }
      report.periods = periods;
    }
    report.completed = !stopping();
    logger.info('maintenance ran', {
      jobs: [...jobs].join(','),
      seconds: Math.round(performance.now() - started) / 1000,
      ...flatten(report),
    });
    return report;
  }
}

function flatten(report: MaintenanceReport): Record<string, number | boolean> {
  return {
    orphanChunks: report.orphans?.chunks ?? 0,
    softDeleted: report.retention?.softDeleted ?? 0,
    purged: report.retention?.purged ?? 0,
    topicAssigned: report.topics?.assigned ?? 0,
    periods: report.periods?.periods ?? 0,
  };
}
