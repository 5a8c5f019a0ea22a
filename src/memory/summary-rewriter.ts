import type { Logger } from '../logger';
import type { MemoryStore } from '../store/memory-store';
import type { BranchSummary, Scope, StoredMessage } from '../store/types';
import type { BackgroundJob } from './background-queue';
import { evictedSince, isModelWritten, modelWrittenSummary } from './running-summary';

/**
 * Writes the next running summary from the previous one and the block of turns the window just
 * evicted (new = f(previous, evicted)); the summary model, through the upstream. `maxTokens` is
 * the most the answer may take.
 */
export type BranchSummarizer = (input: {
  previous: string | null;
  evicted: StoredMessage[];
  maxTokens: number;
}) => Promise<string>;

/** How a model-written summary came out, for /metrics. */
export type RewriteOutcome = 'written' | 'failed' | 'skipped';

/** What the rewriter is built from. */
export interface SummaryRewriterOptions {
  store: MemoryStore;
  summarizer: BranchSummarizer;
  /** Queues a job after the answer (the app's BackgroundQueue); false when it was not queued. */
  schedule: (name: string, job: BackgroundJob) => boolean;
  logger: Logger;
  now: () => number;
  /** Called once per job with how it ended. */
  onOutcome?: (outcome: RewriteOutcome) => void;
}

/** The extractive summary a request used, which the summary model may replace. */
export interface RewriteRequest {
  scope: Scope;
  /** The first turn of the window; the summary is stored under it. */
  boundary: StoredMessage;
  windowTokens: number;
  maxTokens: number;
  summary: BranchSummary;
}

/**
 * Most blocks shown to the summary model at once (the window can pass more than one block in a
 * request, e.g. when it first stops holding the whole branch).
 */
const MAX_BLOCKS = 4;
/** Boundaries remembered as asked about; past this many the memory is cleared. */
const MAX_REMEMBERED = 10_000;

/**
 * Queues, for each extractive running summary a request used, a background job that has the
 * summary model write it again, so a later request starting at the same boundary (or folding
 * from it) uses the model's summary. Each boundary is asked about once per process while its
 * job is pending or after it failed: a failing model costs one call per block, not per request,
 * and the prefix changes at most once per block.
 */
export function createSummaryRewriter(
  options: SummaryRewriterOptions,
): (request: RewriteRequest) => void {
  const asked = new Set<string>();
  return (request) => {
    if (isModelWritten(request.summary)) return;
    const key = `${request.scope.partition}\u0000${request.scope.instance}\u0000${request.boundary.id}`;
    if (asked.has(key)) return;
    if (asked.size >= MAX_REMEMBERED) asked.clear();
    asked.add(key);
    const queued = options.schedule('running-summary', async () => {
      let outcome: RewriteOutcome;
      try {
        const written = await rewriteSummary({ ...options, ...request });
        outcome = written ? 'written' : 'skipped';
        // Done: should the summary be made extractive again (an edit), it may be written again.
        asked.delete(key);
      } catch (error) {
        outcome = 'failed';
        options.logger.warn(
          'running summary by the summary model failed; the extractive one stays',
          {
            error: (error as Error).message,
          },
        );
      }
      options.onOutcome?.(outcome);
    });
    if (!queued) asked.delete(key);
  };
}

/**
 * Has the summary model write the summary stored under `boundary` from the summary stored before
 * the blocks the window evicted and their turns, and stores it there in place of the extractive one.
 * Returns the new summary, or null when there was nothing to replace.
 */
export async function rewriteSummary(
  input: RewriteRequest & Pick<SummaryRewriterOptions, 'store' | 'summarizer' | 'now'>,
): Promise<BranchSummary | null> {
  const { store, scope, boundary } = input;
  // Read before the turns the model is given (see runningSummary).
  const epoch = await store.summaryEpoch(scope);
  const current = await store.getSummary(scope, boundary.id);
  if (!current || isModelWritten(current)) return null;
  const { blocks, previous, fromRoot } = await evictedSince({
    store,
    scope,
    boundary,
    windowTokens: input.windowTokens,
    maxBlocks: MAX_BLOCKS,
  });
  const evicted = blocks.flat();
  if (evicted.length === 0) return null;
  // The summary stored where the evicted blocks start is the previous one (model-written when its
  // own job succeeded: that keeps the chain recursive). Past MAX_BLOCKS without one, the
  // extractive summary stands in for everything before them.
  const previousText = previous?.content ?? (fromRoot ? null : current.content);
  const text = await input.summarizer({
    previous: previousText,
    evicted,
    maxTokens: input.maxTokens,
  });
  const written = modelWrittenSummary({
    boundaryId: boundary.id,
    text,
    turns: current.turns,
    maxTokens: input.maxTokens,
    now: input.now(),
  });
  if (!written) throw new Error('the summary model wrote no text that fits the summary share');
  // Requests went on while the model wrote: keep a summary that changed meanwhile (rebuilt for
  // another budget); one an edit or delete dropped stays dropped (the epoch moved on).
  const latest = await store.getSummary(scope, boundary.id);
  if (!latest || latest.content !== current.content) return null;
  return (await store.putSummary(scope, written, { epoch })) ? written : null;
}
