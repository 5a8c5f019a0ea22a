import type { StoredMessage } from '../types';
import { projectMessage, toStoredMessage } from './map-record';
import { scopeParams, type ScopedRunner } from './scope-params';

// Hop bounds of one batch. Cypher cannot take a variable-length bound as a parameter, so the
// query text picks one of these constants: small windows read little, long ones few batches.
const BATCH_HOPS = [16, 64, 256] as const;

/**
 * The branch ending at `leafId`, leaf first, following REPLIES_TO up to `limit` live turns.
 * Deleted turns are walked through but left out. Reads the chain in batches: each batch is the
 * one path from the current node up to the root or the hop bound, whichever comes first.
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
    const hops = BATCH_HOPS.find((bound) => bound >= wanted) ?? BATCH_HOPS[BATCH_HOPS.length - 1];
    const rows = await runner.read(
      `MATCH (start:Message {id: $startId, partition: $partition, instance: $instance})
       MATCH path = (start)-[:REPLIES_TO*0..${hops}]->(top:Message)
       WHERE length(path) = ${hops} OR NOT (top)-[:REPLIES_TO]->(:Message)
       RETURN [m IN nodes(path) | ${projectMessage('m')}] AS messages, length(path) AS hops
       LIMIT 1`,
      { ...scopeParams(scope), startId },
    );
    const row = rows[0];
    if (!row) return branch;
    const chain = (row['messages'] as unknown[]).map(toStoredMessage);
    for (const message of includeStart ? chain : chain.slice(1)) {
      // A branch never leaves its scope, even if a stray edge would.
      if (message.partition !== scope.partition || message.instance !== scope.instance)
        return branch;
      if (message.deleted) continue;
      branch.push(message);
      if (branch.length >= options.limit) return branch;
    }
    const top = chain[chain.length - 1];
    if (row['hops'] !== hops || !top) return branch;
    startId = top.id;
    includeStart = false;
  }
}
