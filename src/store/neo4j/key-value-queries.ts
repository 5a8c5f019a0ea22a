import { int } from 'neo4j-driver';
import type { BranchSummary, CoreMemoryBlock } from '../types';
import { toNumber } from './map-record';
import type { Neo4jRunner } from './neo4j-runner';
import { scopeParams, type ScopedRunner } from './scope-params';

/** The core-memory blocks of an instance, by name. */
export async function getCoreMemory(scoped: ScopedRunner): Promise<CoreMemoryBlock[]> {
  const { runner, scope } = scoped;
  const rows = await runner.read(
    `MATCH (c:CoreMemory {partition: $partition, instance: $instance})
     RETURN c.name AS name, c.content AS content, c.token_count AS tokenCount, c.updated_at AS updatedAt
     ORDER BY name`,
    scopeParams(scope),
  );
  return rows.map((row) => ({
    name: String(row['name']),
    content: String(row['content']),
    tokenCount: toNumber(row['tokenCount']) ?? 0,
    updatedAt: toNumber(row['updatedAt']) ?? 0,
  }));
}

/** Creates or replaces a core-memory block (MERGE on the unique (partition, instance, name)). */
export async function putCoreMemory(scoped: ScopedRunner, block: CoreMemoryBlock): Promise<void> {
  const { runner, scope } = scoped;
  await runner.write(
    `MERGE (c:CoreMemory {partition: $partition, instance: $instance, name: $name})
     SET c.content = $content, c.token_count = $tokenCount, c.updated_at = $updatedAt`,
    {
      ...scopeParams(scope),
      name: block.name,
      content: block.content,
      tokenCount: int(block.tokenCount),
      updatedAt: int(block.updatedAt),
    },
  );
}

/** The running summary of a branch before a boundary turn, or null. */
export async function getSummary(
  scoped: ScopedRunner,
  boundaryId: string,
): Promise<BranchSummary | null> {
  const { runner, scope } = scoped;
  const rows = await runner.read(
    `MATCH (s:Summary {partition: $partition, instance: $instance, boundary_id: $boundaryId})
     RETURN s.boundary_id AS boundaryId, s.content AS content, s.token_count AS tokenCount,
            s.turns AS turns, s.updated_at AS updatedAt`,
    { ...scopeParams(scope), boundaryId },
  );
  const row = rows[0];
  if (!row) return null;
  return {
    boundaryId: String(row['boundaryId']),
    content: String(row['content']),
    tokenCount: toNumber(row['tokenCount']) ?? 0,
    turns: toNumber(row['turns']) ?? 0,
    updatedAt: toNumber(row['updatedAt']) ?? 0,
  };
}

/** Creates or replaces the summary of a branch before its boundary turn. */
export async function putSummary(scoped: ScopedRunner, summary: BranchSummary): Promise<void> {
  const { runner, scope } = scoped;
  await runner.write(
    `MERGE (s:Summary {partition: $partition, instance: $instance, boundary_id: $boundaryId})
     SET s.content = $content, s.token_count = $tokenCount, s.turns = $turns, s.updated_at = $updatedAt`,
    {
      ...scopeParams(scope),
      boundaryId: summary.boundaryId,
      content: summary.content,
      tokenCount: int(summary.tokenCount),
      turns: int(summary.turns),
      updatedAt: int(summary.updatedAt),
    },
  );
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
