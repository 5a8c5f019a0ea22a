import { int } from 'neo4j-driver';
import type { BranchSummary, CoreMemoryBlock, PinnedMemory } from '../types';
import { toNumber } from './map-record';
import type { Neo4jRunner } from './neo4j-runner';
import { scopeParams, type ScopedRunner } from './scope-params';

// A block and a summary as lists of their properties, in the order the readers below take them.
const CORE_MEMORY_ROW = '[c.name, c.content, c.token_count, c.updated_at]';
const SUMMARY_ROW = '[s.boundary_id, s.content, s.token_count, s.turns, s.updated_at]';

/** The core-memory blocks of an instance, by name. */
export async function getCoreMemory(scoped: ScopedRunner): Promise<CoreMemoryBlock[]> {
  return (await getPinnedMemory(scoped, null)).coreMemory;
}

/**
 * The core-memory blocks of an instance, by name, and the summary stored at `boundaryId` (null
 * without one), in one statement: a request reads both before its window.
 */
export async function getPinnedMemory(scoped: ScopedRunner, boundaryId: string | null): Promise<PinnedMemory> {
  const { runner, scope } = scoped;
  const [row] = await runner.read(
    `CALL () {
       MATCH (c:CoreMemory {partition: $partition, instance: $instance})
       WITH c ORDER BY c.name
       RETURN collect(${CORE_MEMORY_ROW}) AS blocks
     }
     OPTIONAL MATCH (s:Summary {partition: $partition, instance: $instance, boundary_id: $boundaryId})
     RETURN blocks, CASE WHEN s IS NULL THEN null ELSE ${SUMMARY_ROW} END AS summary`,
    { boundaryId, ...scopeParams(scope) },
  );
  const blocks = (row?.['blocks'] as unknown[][] | undefined) ?? [];
  const summary = row?.['summary'] as unknown[] | null | undefined;
  return { coreMemory: blocks.map(toCoreMemoryBlock), summary: summary ? toSummary(summary) : null };
}

function toCoreMemoryBlock([name, content, tokenCount, updatedAt]: unknown[]): CoreMemoryBlock {
  return {
    name: String(name),
    content: String(content),
    tokenCount: toNumber(tokenCount) ?? 0,
    updatedAt: toNumber(updatedAt) ?? 0,
  };
}

function toSummary([boundaryId, content, tokenCount, turns, updatedAt]: unknown[]): BranchSummary {
  return {
    boundaryId: String(boundaryId),
    content: String(content),
    tokenCount: toNumber(tokenCount) ?? 0,
    turns: toNumber(turns) ?? 0,
    updatedAt: toNumber(updatedAt) ?? 0,
  };
}

/** Creates or replaces a core-memory block (MERGE on the unique (partition, instance, name)). */
export async function putCoreMemory(scoped: ScopedRunner, block: CoreMemoryBlock): Promise<void> {
  const { runner, scope } = scoped;
  await runner.write(
    `MERGE (c:CoreMemory {partition: $partition, instance: $instance, name: $name})
     SET c.content = $content, c.token_count = $tokenCount, c.updated_at = $updatedAt`,
    {
      name: block.name,
      content: block.content,
      tokenCount: int(block.tokenCount),
      updatedAt: int(block.updatedAt),
      ...scopeParams(scope),
    },
  );
}

/** The running summary of a branch before a boundary turn, or null. */
export async function getSummary(
  scoped: ScopedRunner,
  boundaryId: string,
): Promise<BranchSummary | null> {
  const { runner, scope } = scoped;
  const [row] = await runner.read(
    `MATCH (s:Summary {partition: $partition, instance: $instance, boundary_id: $boundaryId})
     RETURN ${SUMMARY_ROW} AS summary`,
    { boundaryId, ...scopeParams(scope) },
  );
  return row ? toSummary(row['summary'] as unknown[]) : null;
}

/** The instance's summary epoch (see MemoryStore.summaryEpoch). */
export async function summaryEpoch(scoped: ScopedRunner): Promise<number> {
  const { runner, scope } = scoped;
  const [row] = await runner.read(
    `MATCH (i:Instance {partition: $partition, instance: $instance})
     RETURN coalesce(i.summary_epoch, 0) AS epoch`,
    scopeParams(scope),
  );
  return toNumber(row?.['epoch']) ?? 0;
}

/**
 * Creates or replaces the summary of a branch before its boundary turn while the epoch is still
 * `epoch` and the boundary is live. The write takes the instance lock first, as the changes that
 * move the epoch do, so it reads the epoch after any of them that committed before it.
 */
export async function putSummary(
  scoped: ScopedRunner,
  summary: BranchSummary,
  condition: { epoch: number },
): Promise<boolean> {
  const { runner, scope } = scoped;
  const rows = await runner.write(
    `MATCH (i:Instance {partition: $partition, instance: $instance})
     SET i.locked_at = timestamp()
     WITH i WHERE coalesce(i.summary_epoch, 0) = $epoch
     MATCH (b:Message {id: $boundaryId, partition: $partition, instance: $instance})
     WHERE b.deleted = false
     MERGE (s:Summary {partition: $partition, instance: $instance, boundary_id: $boundaryId})
     SET s.content = $content, s.token_count = $tokenCount, s.turns = $turns, s.updated_at = $updatedAt
     RETURN count(s) AS written`,
    {
      boundaryId: summary.boundaryId,
      content: summary.content,
      tokenCount: int(summary.tokenCount),
      turns: int(summary.turns),
      updatedAt: int(summary.updatedAt),
      epoch: int(condition.epoch),
      ...scopeParams(scope),
    },
  );
  return (toNumber(rows[0]?.['written']) ?? 0) > 0;
}

/** A store-wide setting, or null. Meta nodes are the one kind outside every scope. */
export async function getMeta(runner: Neo4jRunner, key: string): Promise<string | null> {
  const rows = await runner.read('MATCH (m:Meta {key: $key}) RETURN m.value AS value', { key });
  const value = rows[0]?.['value'];
  return typeof value === 'string' ? value : null;
}

/** Sets a store-wide setting. */
export async function setMeta(
  runner: Neo4jRunner,
  entry: { key: string; value: string },
): Promise<void> {
  const { key, value } = entry;
  await runner.write('MERGE (m:Meta {key: $key}) SET m.value = $value', { key, value });
}
