/**
 * Loads seeded conversations into a store through its public interface, the way a migration
 * would: appendPath in batches (one long branch per instance), then the batch's embeddings.
 */
import type { Embedder } from '../../src/embeddings/embedder';
import { toNewMessage } from '../../src/memory/normalize-message';
import type { MemoryStore } from '../../src/store/memory-store';
import type { Scope } from '../../src/store/types';
import { Corpus } from './corpus';
import { ProgressBar } from './progress-bar';

/** What to load. */
export interface BulkLoadOptions {
  store: MemoryStore;
  embedder: Embedder;
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

/** Appends `turnsPerScope` turns to every scope, embedding each batch as it goes. */
export async function bulkLoad(options: BulkLoadOptions): Promise<BulkLoadResult> {
  const batchSize = options.batchSize ?? 1000;
  // A continued branch gets new text, not a replay of its first turns.
  const corpus = new Corpus((options.seed ?? 1) + (options.firstTurn ?? 0));
  const total = options.scopes.length * options.turnsPerScope;
  const bar = new ProgressBar(options.label ?? 'load', total);
  const startTime = options.startTime ?? Date.UTC(2025, 0, 1);
  const leaves: string[] = [];
  const started = performance.now();
  let done = 0;
  const firstTurn = options.firstTurn ?? 0;
  for (const [scopeIndex, scope] of options.scopes.entries()) {
    let parentId: string | null = options.continueFrom?.[scopeIndex] ?? null;
    for (let first = 0; first < options.turnsPerScope; first += batchSize) {
      const count = Math.min(batchSize, options.turnsPerScope - first);
      const messages = Array.from({ length: count }, (_, offset) => {
        const index = firstTurn + first + offset;
        const content = corpus.turn(index);
        const role = index % 2 === 0 ? 'user' : 'assistant';
        return {
          ...toNewMessage({ role, content }, { model: 'bench' }),
          timestamp: startTime + index * 1000,
        };
      });
      const appended = await options.store.appendPath(scope, { parentId, messages });
      const vectors = await options.embedder.embed(messages.map((message) => message.content));
      await options.store.setEmbeddings(
        scope,
        appended.map((turn, index) => ({ kind: 'message' as const, id: turn.message.id, vector: vectors[index]! })),
      );
      parentId = appended.at(-1)?.message.id ?? parentId;
      done += count;
      bar.update(done);
    }
    leaves.push(parentId ?? '');
  }
  bar.done();
  const seconds = (performance.now() - started) / 1000;
  return { messages: done, seconds, perSecond: done / seconds, leaves };
}
