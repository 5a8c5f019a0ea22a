/**
 * Loads seeded conversations into a store through its public interface, the way a migration
 * would: appendPath in batches (one long branch per instance), then the batch's embeddings.
 * Text, hashes, token counts and embeddings are made in a helper process (embed-worker.ts) while
 * this one stores the previous batch, so two cores work.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { MemoryStore } from '../../src/store/memory-store';
import type { NewMessage, Scope } from '../../src/store/types';
import type { BatchRequest } from './embed-worker';
import { ProgressBar } from './progress-bar';

/** What to load. */
export interface BulkLoadOptions {
  store: MemoryStore;
  /** Dimensions of the local embedder the vectors are made with. */
  dimensions: number;
  scopes: Scope[];
  /** Turns per scope (user and assistant alternate). */
  turnsPerScope: number;
  /** Turns per appendPath call. */
  batchSize?: number;
  seed?: number;
  /** Timestamp of the first turn; each next one is a second later. */
  startTime?: number;
  /** Continue branches instead of starting them: the leaf to append to, by scope index. */
  continueFrom?: string[];
  /** Index of the first turn to write (continuing a branch: how many it has). */
  firstTurn?: number;
  label?: string;
}

/** How the load went. */
export interface BulkLoadResult {
  messages: number;
  seconds: number;
  perSecond: number;
  /** The last turn of each scope, by scope index. */
  leaves: string[];
}

interface Batch {
  messages: (NewMessage & { timestamp: number })[];
  vectors: Float32Array;
}

const WORKER = fileURLToPath(new URL('./embed-worker.ts', import.meta.url));

/** Appends `turnsPerScope` turns to every scope, with their embeddings. */
export async function bulkLoad(options: BulkLoadOptions): Promise<BulkLoadResult> {
  const batchSize = options.batchSize ?? 1000;
  const firstTurn = options.firstTurn ?? 0;
  const { dimensions } = options;
  const total = options.scopes.length * options.turnsPerScope;
  const bar = new ProgressBar(options.label ?? 'load', total);
  // A process rather than a worker thread: tsx's loader reaches child processes, not threads.
  const worker = fork(WORKER, [String(dimensions)], { execArgv: ['--import', 'tsx'], serialization: 'advanced', stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const waiting = new Map<number, (batch: Batch) => void>();
  worker.on('message', (message: Batch & { id: number }) => {
    waiting.get(message.id)?.(message);
    waiting.delete(message.id);
  });
  let nextId = 0;
  // A continued branch gets new text, not a replay of its first turns.
  const seed = (options.seed ?? 1) + firstTurn;
  const request = (stream: number, first: number, count: number): Promise<Batch> => {
    const id = nextId++;
    const message: BatchRequest = { id, stream, seed: seed + stream * 7919, first, count, startTime: options.startTime ?? Date.UTC(2025, 0, 1) };
    worker.send(message);
    return new Promise((resolve) => waiting.set(id, resolve));
  };
  // Every batch in order; the next one is requested before the current one is stored.
  const plan = options.scopes.flatMap((_, scopeIndex) =>
    Array.from({ length: Math.ceil(options.turnsPerScope / batchSize) }, (__, batch) => ({
      scopeIndex,
      first: firstTurn + batch * batchSize,
      count: Math.min(batchSize, options.turnsPerScope - batch * batchSize),
    })),
  );
  const leaves = options.scopes.map((_, index) => options.continueFrom?.[index] ?? '');
  const started = performance.now();
  let done = 0;
  try {
    let pending = plan[0] ? request(plan[0].scopeIndex, plan[0].first, plan[0].count) : null;
    for (let step = 0; step < plan.length; step++) {
      const { scopeIndex } = plan[step]!;
      const batch = await pending!;
      const next = plan[step + 1];
      pending = next ? request(next.scopeIndex, next.first, next.count) : null;
      const scope = options.scopes[scopeIndex]!;
      const appended = await options.store.appendPath(scope, { parentId: leaves[scopeIndex] || null, messages: batch.messages });
      await options.store.setEmbeddings(
        scope,
        appended.map((turn, index) => ({
          kind: 'message' as const,
          id: turn.message.id,
          vector: batch.vectors.subarray(index * dimensions, (index + 1) * dimensions),
        })),
      );
      leaves[scopeIndex] = appended.at(-1)?.message.id ?? leaves[scopeIndex]!;
      done += batch.messages.length;
      bar.update(done);
    }
    // The load is done when a search finds every turn: a store that indexes full text in the
    // background (the embedded store's queue, Neo4j's eventually consistent index) catches up
    // here, within the time measured.
    const first = options.scopes[0];
    if (first) await options.store.fullTextSearch(first, 'catch up', { k: 1, fresh: true });
  } finally {
    worker.disconnect();
    bar.done();
  }
  const seconds = (performance.now() - started) / 1000;
  return { messages: done, seconds, perSecond: done / seconds, leaves };
}
