import { scopeKey } from '../store/scope-key';
import type { TurnBatch } from './embed-and-link';

/** Turns one queued batch takes at most: a write of 32 takes a few ms (SWEEP_STEP). */
const MAX_BATCH_TURNS = 32;

/** A scope's batch waiting in the queue, and how many requests' turns it holds. */
interface Waiting {
  batch: TurnBatch;
  requests: number;
}

/**
 * Joins the turns an answered request leaves to finish (embedAndLink: embed, link, write) to
 * its scope's batch still waiting in the background queue, if there is one. Under load a
 * conversation's exchanges queue one behind the other; joined, they are embedded in one call to
 * the embedding model and written in one commit instead of one each (that commit was the
 * largest of a request's three). The turns keep their order, so each is still linked only to
 * turns stored before it. A batch that started running takes no more turns.
 */
export class LinkBatches {
  private readonly waiting = new Map<string, Waiting>();
  private joinedRequests = 0;

  constructor(
    /** Queues a batch's finishing (the app's background queue). */
    private readonly queue: (run: () => Promise<void>) => void,
    private readonly finish: (batch: TurnBatch) => Promise<void>,
    private readonly maxTurns = MAX_BATCH_TURNS,
  ) {}

  /** Requests whose turns joined a batch already queued: they hold turns, but no job of their own. */
  get joined(): number {
    return this.joinedRequests;
  }

  /** Queues the finishing of `batch`, or joins it to its scope's waiting batch. */
  add(batch: TurnBatch): void {
    if (batch.turns.length === 0) return;
    const key = scopeKey(batch.scope);
    const open = this.waiting.get(key);
    if (open !== undefined && open.batch.turns.length + batch.turns.length <= this.maxTurns) {
      open.batch = joinBatches(open.batch, batch);
      open.requests++;
      this.joinedRequests++;
      return;
    }
    const entry: Waiting = { batch, requests: 1 };
    this.waiting.set(key, entry);
    this.queue(async () => {
      if (this.waiting.get(key) === entry) this.waiting.delete(key);
      this.joinedRequests -= entry.requests - 1;
      await this.finish(entry.batch);
    });
  }
}

/** `later`'s turns after `earlier`'s, with what the callers knew of them. */
function joinBatches(earlier: TurnBatch, later: TurnBatch): TurnBatch {
  const joined: TurnBatch = {
    scope: earlier.scope,
    turns: [...earlier.turns, ...later.turns],
    nearest: new Map([...(earlier.nearest ?? []), ...(later.nearest ?? [])]),
    vectors: new Map([...(earlier.vectors ?? []), ...(later.vectors ?? [])]),
  };
  // Not known for either: every answer of the batch is looked at for tool calls.
  if (earlier.toolCallers && later.toolCallers) joined.toolCallers = new Set([...earlier.toolCallers, ...later.toolCallers]);
  return joined;
}
