import type { MemoryStore } from '../../src/store/memory-store';
import type { Scope } from '../../src/store/types';
import { BENCH_DIMENSIONS } from './bench-store';
import { bulkLoad } from './bulk-load';

/**
 * Requests a benchmark sends before its first timed row (`--server-warmup`), into a scratch
 * instance purged afterwards. A Neo4j server compiles its hot paths over its first several
 * hundred requests: on the EPYC host of 2026-11-27, requests in a fresh server's first 120
 * reached the upstream at a median of 51 ms, those after its 700th at 25-28 ms
 * (bench/NOTES.md). The rows measure the server a proxy meets once it has been up a while, not
 * the first minutes after a restart. Both stores get the same warm-up, so both are measured
 * alike; the embedded store, inside a Node process, needs far fewer requests to warm.
 */
export const SERVER_WARMUP_REQUESTS = 600;

/** Turns of the warm-up instance: enough that its window evicts and every request retrieves. */
const WARM_UP_TURNS = 2_000;

/**
 * Stores the warm-up instance, has `send` make `requests` requests to it, then purges it.
 * Returns what it did, for the report's conditions.
 */
export async function warmUpServer(input: {
  store: MemoryStore;
  scope: Scope;
  requests: number;
  send: (requests: number) => Promise<void>;
}): Promise<string> {
  if (input.requests <= 0) return 'none';
  const started = performance.now();
  await bulkLoad({
    store: input.store,
    dimensions: BENCH_DIMENSIONS,
    scopes: [input.scope],
    turnsPerScope: WARM_UP_TURNS,
    label: 'warm-up instance',
  });
  await input.send(input.requests);
  await input.store.purgeInstance(input.scope);
  const seconds = ((performance.now() - started) / 1000).toFixed(0);
  return `${input.requests} requests to an instance of ${WARM_UP_TURNS} turns, purged before the rows (${seconds} s)`;
}
