import type { ExpiredDeletion, OrphanCleanup, ScopeFilter } from '../topic-types';
import { toNumber } from './map-record';
import type { Neo4jRunner } from './neo4j-runner';
import { integerParam } from './scope-params';

/** Nodes changed per transaction, so a large store never builds one huge transaction. */
const BATCH = 2_000;

/** A ScopeFilter on the node bound to `m`: null parameters match everything. */
const IN_FILTER =
  '($partition IS NULL OR m.partition = $partition) AND ($instance IS NULL OR m.instance = $instance)';

function filterParams(filter: ScopeFilter): { partition: string | null; instance: string | null } {
  return { partition: filter.partition ?? null, instance: filter.instance ?? null };
}

/** Runs a write that handles at most $batch nodes and returns `count`, until it handles fewer. */
async function drain(runner: Neo4jRunner, cypher: string, params: Record<string, unknown> = {}) {
  let total = 0;
  for (;;) {
    const rows = await runner.write(cypher, { batch: integerParam(BATCH), ...params });
    const count = toNumber(rows[0]?.['count']) ?? 0;
    total += count;
    if (count < BATCH) return total;
  }
}

/**
 * Deletes chunks whose turn is gone (or is no turn of their scope) or whose turn's text no
 * longer contains them (chunks are cut from the text), and topics no turn belongs to any more.
 * DETACH DELETE takes their links and index entries along.
 */
export async function deleteOrphans(
  runner: Neo4jRunner,
  filter: ScopeFilter,
): Promise<OrphanCleanup> {
  // A chunk may begin or end with U+FFFD where its token window cut a character in two.
  const chunks = await drain(
    runner,
    `MATCH (m:Message) WHERE m.chunk_parent_id IS NOT NULL AND m.is_chunk = true AND ${IN_FILTER}
       AND NOT EXISTS {
         MATCH (p:Message {id: m.chunk_parent_id})
         WHERE p.partition = m.partition AND p.instance = m.instance AND p.is_chunk = false
           AND p.content CONTAINS btrim(m.content, $cut)
       }
     WITH m LIMIT $batch WITH collect(m) AS orphans
     FOREACH (orphan IN orphans | DETACH DELETE orphan)
     RETURN size(orphans) AS count`,
    { cut: '\uFFFD', ...filterParams(filter) },
  );
  const topics = await drain(
    runner,
    `MATCH (m:Topic) WHERE ${IN_FILTER} AND NOT EXISTS { MATCH (:Message)-[:BELONGS_TO]->(m) }
     WITH m LIMIT $batch WITH collect(m) AS empty
     FOREACH (topic IN empty | DETACH DELETE topic)
     RETURN size(empty) AS count`,
    filterParams(filter),
  );
  return { chunks, topics };
}

/** Notes `now` on turns soft-deleted since the last call; forgets the note of restored ones. */
export async function stampDeletions(
  runner: Neo4jRunner,
  input: { now: number; filter: ScopeFilter },
): Promise<void> {
  const params = filterParams(input.filter);
  await drain(
    runner,
    `MATCH (m:Message) WHERE m.deleted_noted_at IS NOT NULL AND m.deleted = false AND ${IN_FILTER}
     WITH m LIMIT $batch SET m.deleted_noted_at = null RETURN count(m) AS count`,
    params,
  );
  await drain(
    runner,
    `MATCH (m:Message) WHERE m.deleted = true AND m.is_chunk = false AND m.deleted_noted_at IS NULL
       AND ${IN_FILTER}
     WITH m LIMIT $batch SET m.deleted_noted_at = $now RETURN count(m) AS count`,
    { now: input.now, ...params },
  );
}

/** Soft-deleted turns noted as deleted before `before`, oldest note first. */
export async function expiredDeletions(
  runner: Neo4jRunner,
  input: { before: number; limit: number; filter: ScopeFilter },
): Promise<ExpiredDeletion[]> {
  const rows = await runner.read(
    `MATCH (m:Message) WHERE m.deleted_noted_at < $before AND m.deleted = true AND m.is_chunk = false
       AND ${IN_FILTER}
     RETURN m.partition AS partition, m.instance AS instance, m.id AS id
     ORDER BY m.deleted_noted_at LIMIT $limit`,
    { before: input.before, limit: integerParam(input.limit), ...filterParams(input.filter) },
  );
  return rows.map((row) => ({
    scope: { partition: String(row['partition']), instance: String(row['instance']) },
    id: String(row['id']),
  }));
}
