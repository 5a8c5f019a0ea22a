import Database from 'better-sqlite3';
import { expect } from 'vitest';
import type { Neo4jConfig } from '../../src/config/load-config';
import type { MemoryStore } from '../../src/store/memory-store';
import { Neo4jRunner } from '../../src/store/neo4j/neo4j-runner';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store';
import type { Scope, StoredMessage } from '../../src/store/types';
import { neo4jTestConfig } from './stores';

/** Row and node counts of everything a store holds for some partitions: equal snapshots mean nothing was written. */
export async function storeSnapshot(
  store: MemoryStore,
  partitions: string[],
): Promise<Record<string, number>> {
  if (store instanceof SqliteStore) {
    const db = new Database(store.file, { readonly: true, fileMustExist: true });
    try {
      const tables = db
        .prepare(
          "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '%fts%' AND name NOT LIKE 'sqlite_%'",
        )
        .all() as { name: string }[];
      const counts: Record<string, number> = {};
      for (const { name } of tables) {
        const rows = (db.prepare(`SELECT count(*) AS n FROM "${name}"`).get() as { n: number }).n;
        // An empty table some code creates on first use is no change of data.
        if (rows > 0) counts[name] = rows;
      }
      return counts;
    } finally {
      db.close();
    }
  }
  const runner = new Neo4jRunner(neo4jTestConfig()!);
  try {
    const nodes = await runner.read(
      'MATCH (n) WHERE n.partition IN $partitions RETURN labels(n)[0] AS label, count(*) AS n',
      { partitions },
    );
    const relationships = await runner.read(
      'MATCH (n)-[r]-() WHERE n.partition IN $partitions RETURN type(r) AS type, count(r) AS n',
      { partitions },
    );
    const counts: Record<string, number> = {};
    for (const row of nodes) counts[`node:${String(row['label'])}`] = Number(row['n']);
    for (const row of relationships) counts[`rel:${String(row['type'])}`] = Number(row['n']);
    return counts;
  } finally {
    await runner.close();
  }
}

/**
 * Asserts the conversation tree of a scope is whole: seq 1..n without gaps or repeats, every
 * parent stored and older, every answer to a user turn linked back to it. Returns the turns.
 */
export async function expectConsistentTree(
  store: MemoryStore,
  scope: Scope,
): Promise<StoredMessage[]> {
  const turns: StoredMessage[] = [];
  for (let afterSeq = 0; ;) {
    const page = await store.listMessages(scope, { afterSeq, limit: 500, includeDeleted: true });
    turns.push(...page);
    if (page.length < 500) break;
    afterSeq = page.at(-1)!.seq;
  }
  expect(turns.map((turn) => turn.seq)).toEqual(turns.map((_, index) => index + 1));
  const byId = new Map(turns.map((turn) => [turn.id, turn]));
  for (const turn of turns) {
    if (turn.parentId === null) continue;
    const parent = byId.get(turn.parentId);
    expect(parent, `parent of ${turn.id}`).toBeDefined();
    expect(parent!.seq).toBeLessThan(turn.seq);
    if (turn.role === 'assistant' && parent!.role === 'user') {
      expect(
        (await store.getRespondedWith(scope, turn.id))?.id,
        `question of answer ${turn.id}`,
      ).toBe(parent!.id);
    }
  }
  return turns;
}

/** Records left half-made after a crash: chunks, tool calls and links whose owner is gone, and unembedded items. */
export async function orphanCounts(
  store: MemoryStore,
  partitions: string[],
  neo4j: Neo4jConfig | null = neo4jTestConfig(),
): Promise<Record<string, number>> {
  if (store instanceof SqliteStore) {
    const db = new Database(store.file, { readonly: true, fileMustExist: true });
    try {
      const count = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
      return {
        chunksWithoutParent: count(
          'SELECT count(*) AS n FROM messages c WHERE c.is_chunk = 1 AND NOT EXISTS (SELECT 1 FROM messages p WHERE p.id = c.chunk_parent_id)',
        ),
        turnsWithoutParent: count(
          'SELECT count(*) AS n FROM messages c WHERE c.parent_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM messages p WHERE p.id = c.parent_id)',
        ),
        toolCallsWithoutMessage: count(
          'SELECT count(*) AS n FROM tool_calls t WHERE NOT EXISTS (SELECT 1 FROM messages m WHERE m.id = t.message_id)',
        ),
        edgesWithoutEnds: count(
          'SELECT count(*) AS n FROM edges e WHERE NOT EXISTS (SELECT 1 FROM messages m WHERE m.id = e.from_id) OR NOT EXISTS (SELECT 1 FROM messages m WHERE m.id = e.to_id)',
        ),
        messagesWithoutEmbedding: count(
          "SELECT count(*) AS n FROM messages WHERE embedding IS NULL AND deleted = 0 AND content <> ''",
        ),
        toolCallsWithoutEmbedding: count(
          'SELECT count(*) AS n FROM tool_calls WHERE embedding IS NULL',
        ),
        seqGaps: count(
          'SELECT count(*) AS n FROM (SELECT partition, instance, max(seq) - count(*) AS gap FROM messages WHERE is_chunk = 0 GROUP BY partition, instance) WHERE gap <> 0',
        ),
        countersBehind: count(
          'SELECT count(*) AS n FROM instance_counters c WHERE c.last_seq < (SELECT coalesce(max(seq), 0) FROM messages m WHERE m.partition = c.partition AND m.instance = c.instance)',
        ),
      };
    } finally {
      db.close();
    }
  }
  const runner = new Neo4jRunner(neo4j!);
  const count = async (cypher: string) =>
    Number((await runner.read(cypher, { partitions }))[0]?.['n'] ?? 0);
  try {
    return {
      chunksWithoutParent: await count(
        'MATCH (c:Message) WHERE c.partition IN $partitions AND c.is_chunk = true AND NOT (c)-[:CHUNK_OF]->(:Message) RETURN count(c) AS n',
      ),
      toolCallsWithoutMessage: await count(
        'MATCH (t:ToolCall) WHERE t.partition IN $partitions AND NOT (t)-[:CALLED_BY]->(:Message) RETURN count(t) AS n',
      ),
      messagesWithoutEmbedding: await count(
        "MATCH (m:Message) WHERE m.partition IN $partitions AND m.embedding IS NULL AND m.deleted = false AND m.content <> '' RETURN count(m) AS n",
      ),
      toolCallsWithoutEmbedding: await count(
        'MATCH (t:ToolCall) WHERE t.partition IN $partitions AND t.embedding IS NULL RETURN count(t) AS n',
      ),
      seqGaps: await count(
        'MATCH (m:Message) WHERE m.partition IN $partitions AND m.is_chunk = false WITH m.partition AS p, m.instance AS i, max(m.seq) - count(m) AS gap WHERE gap <> 0 RETURN count(*) AS n',
      ),
      countersBehind: await count(
        'MATCH (m:Message) WHERE m.partition IN $partitions AND m.is_chunk = false WITH m.partition AS p, m.instance AS i, max(m.seq) AS top MATCH (c:Instance {partition: p, instance: i}) WHERE c.last_seq < top RETURN count(c) AS n',
      ),
    };
  } finally {
    await runner.close();
  }
}
