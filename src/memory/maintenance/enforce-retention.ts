import { NotFoundError } from '../../errors';
import type { MemoryStore } from '../../store/memory-store';
import type { ScopeFilter } from '../../store/topic-types';
import type { Scope } from '../../store/types';
import { yieldToRequests } from './yield-to-requests';

const DAY_MS = 86_400_000;
/** Turns handled per store call. */
const PAGE = 500;

/** How long memory is kept. */
export interface RetentionPolicy {
  /** Turns older than this many days are soft-deleted; null keeps them forever. */
  days: number | null;
  /** Soft-deleted turns are purged this many days after retention first saw them deleted. */
  graceDays: number;
}

/** What one retention run did. */
export interface RetentionResult {
  softDeleted: number;
  purged: number;
}

/**
 * Applies the retention policy: soft-deletes the live turns older than `days` (they never reach a
 * model again, and stay restorable), notes when each soft-deleted turn was first seen deleted,
 * and purges those deleted longer than the grace period, with the same purge as the API's
 * (chunks, tool calls, relationships, search-index entries). Turns deleted by hand are purged
 * after the grace period too. Safe to stop anywhere: a second run continues.
 */
export async function enforceRetention(options: {
  store: MemoryStore;
  policy: RetentionPolicy;
  now: number;
  filter?: ScopeFilter;
  stopping?: () => boolean;
}): Promise<RetentionResult> {
  const { store, policy, now } = options;
  const filter = options.filter ?? {};
  const result: RetentionResult = { softDeleted: 0, purged: 0 };
  if (policy.days === null) return result;
  const cutoff = now - policy.days * DAY_MS;
  for (const scope of await scopesOf(store, filter)) {
    for (;;) {
      if (options.stopping?.()) return result;
      await yieldToRequests();
      const old = await store.listMessages(scope, { toTime: cutoff, limit: PAGE });
      for (const turn of old) await store.setMessageDeleted(scope, turn.id, true);
      result.softDeleted += old.length;
      if (old.length < PAGE) break;
    }
  }
  await store.stampDeletions(now, filter);
  const before = now - policy.graceDays * DAY_MS;
  for (;;) {
    if (options.stopping?.()) return result;
    await yieldToRequests();
    const expired = await store.expiredDeletions(before, PAGE, filter);
    for (const turn of expired) {
      try {
        await store.purgeMessage(turn.scope, turn.id);
        result.purged += 1;
      } catch (error) {
        // Purged meanwhile by hand or by another process running the jobs: already done.
        if (!(error instanceof NotFoundError)) throw error;
      }
    }
    if (expired.length < PAGE) return result;
  }
}

/** The instances a filter covers. */
export async function scopesOf(store: MemoryStore, filter: ScopeFilter): Promise<Scope[]> {
  const instances = await store.listInstances(filter.partition);
  return instances
    .filter((each) => filter.instance === undefined || each.instance === filter.instance)
    .map((each) => ({ partition: each.partition, instance: each.instance }));
}
