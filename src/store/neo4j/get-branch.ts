import type { StoredMessage } from '../types';
import { projectMessage, toStoredMessage } from './map-record';
import { scopeParams, type ScopedRunner } from './scope-params';

// Hop bounds of one batch. Cypher cannot take a variable-length bound as a parameter, so the
// query text picks one of these constants: small windows read little, long ones few batches.
const BATCH_HOPS = [16, 64, 256] as const;
const MOST_HOPS = Math.max(...BATCH_HOPS);

/**
 * The branch ending at `leafId`, leaf first, following REPLIES_TO up to `limit` live turns.
 * Deleted turns are walked through but left out. Reads the chain in batches: each batch is every
 * turn within the hop bound above the current one, one row each, put in order here by their
 * parent ids. Asking for the distinct turns lets the server expand the chain once; asking for the
 * path to the top made it build a path per length (256 hops: 13 ms of server time against 6-8),
 * and one row holding the whole path made the driver decode it across buffer chunks (12 ms of
 * Node time against 3-4).
 */
export async function getBranch(
  scoped: ScopedRunner,
  options: { leafId: string; limit: number },
): Promise<StoredMessage[]> {
  const { runner, scope } = scoped;
  const branch: StoredMessage[] = [];
  if (options.limit <= 0) return branch;
  let startId = options.leafId;
  let includeStart = true;
  for (;;) {
    const wanted = options.limit - branch.length;
    const hops = BATCH_HOPS.find((bound) => bound >= wanted) ?? MOST_HOPS;
    const rows = await runner.read(
      `MATCH (start:Message {id: $startId, partition: $partition, instance: $instance})
       MATCH (start)-[:REPLIES_TO*0..${hops}]->(m:Message)
       WITH DISTINCT m
       RETURN ${projectMessage('m')} AS message`,
      { startId, ...scopeParams(scope) },
    );
    const chain = chainFrom(startId, rows.map((row) => toStoredMessage(row['message'])));
    for (const message of includeStart ? chain : chain.slice(1)) {
      // A branch never leaves its scope, even if a stray edge would.
      if (message.partition !== scope.partition || message.instance !== scope.instance)
        return branch;
      if (message.deleted) continue;
      branch.push(message);
      if (branch.length >= options.limit) return branch;
    }
    const top = chain[chain.length - 1];
    // Fewer turns than the bound allows: the chain reached its root.
    if (chain.length <= hops || !top?.parentId) return branch;
    startId = top.id;
    includeStart = false;
  }
}

/** The turns from `startId` up through their parents, as far as `turns` holds them. */
function chainFrom(startId: string, turns: StoredMessage[]): StoredMessage[] {
  const byId = new Map(turns.map((turn) => [turn.id, turn]));
  const chain: StoredMessage[] = [];
  for (let turn = byId.get(startId); turn && chain.length <= turns.length; turn = byId.get(turn.parentId ?? '')) chain.push(turn);
  return chain;
}
