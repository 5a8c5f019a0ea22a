import cluster, { type Worker } from 'node:cluster';
import type { Logger } from './logger';

/** Environment variable that tells a worker its slot (0 is the one that runs the upkeep). */
export const WORKER_SLOT_VARIABLE = 'MEMORY_PROXY_WORKER_SLOT';
/** A worker that dies sooner than this after starting is restarted only after a pause. */
const QUICK_DEATH_MS = 5_000;
/** The pause before restarting a worker that died quickly (a crash loop must not spin a core). */
const RESTART_PAUSE_MS = 2_000;

/**
 * The primary process of `WORKERS=n`: forks n copies of the proxy that share the port (the
 * primary hands each connection to the next worker), restarts one that dies, and passes
 * SIGINT/SIGTERM on so every worker drains its streams and background writes before the
 * primary exits. Every worker opens the same store: SQLite files are shared through WAL (each
 * worker keeps its vector indexes current with what the others write), Neo4j is shared anyway.
 * Only slot 0 runs the startup sweep and the periodic upkeep, so two workers never cluster the
 * same instance at once.
 */
export function runWorkers(options: { workers: number; logger: Logger }): void {
  const { workers, logger } = options;
  const slots = new Map<Worker, { slot: number; startedAt: number }>();
  let stopping = false;

  const start = (slot: number) => {
    const worker = cluster.fork({ [WORKER_SLOT_VARIABLE]: String(slot) });
    slots.set(worker, { slot, startedAt: Date.now() });
  };

  cluster.on('exit', (worker, code, signal) => {
    const entry = slots.get(worker);
    slots.delete(worker);
    if (stopping) {
      if (slots.size === 0) process.exit(0);
      return;
    }
    if (!entry) return;
    logger.error('worker exited; starting another', { slot: entry.slot, code, signal });
    const quick = Date.now() - entry.startedAt < QUICK_DEATH_MS;
    setTimeout(() => start(entry.slot), quick ? RESTART_PAUSE_MS : 0);
  });

  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info('stopping workers', { signal, workers: slots.size });
    if (slots.size === 0) process.exit(0);
    for (const worker of slots.keys()) worker.process.kill(signal);
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));

  logger.info('starting workers', { workers });
  for (let slot = 0; slot < workers; slot++) start(slot);
}

/** Whether this process is the primary of `WORKERS=n` (it serves nothing itself). */
export function isPrimaryOf(workers: number): boolean {
  return workers > 1 && cluster.isPrimary;
}
