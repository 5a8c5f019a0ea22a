import type { EmbeddingItem, PendingEmbedding, Synapse } from '../types';
import { toNumber } from './map-record';
import type { Neo4jRunner } from './neo4j-runner';
import { integerParam, scopeParams, type ScopedRunner } from './scope-params';

// Nodes cleared per transaction, so clearing a large store never builds one huge transaction.
const CLEAR_BATCH = 5_000;

/**
 * Stores embeddings on nodes of the scope (ids of other scopes are ignored) and adds or updates
 * `links` between its messages (self-links skipped), in one statement: a request's background
 * write is one round trip, where a transaction of a statement per kind and then the links took
 * four.
 */
export async function setEmbeddings(
  scoped: ScopedRunner,
  items: EmbeddingItem[],
  links: Synapse[] = [],
): Promise<void> {
  const { runner, scope } = scoped;
  const rowsOf = (kind: EmbeddingItem['kind']) =>
    items
      .filter((item) => item.kind === kind)
      .map((item) => ({ id: item.id, vector: item.vector, contentHash: item.contentHash ?? null }));
  // A link from a turn of this write holds only while that turn's vector does (same hash).
  const hashes = new Map(
    items.flatMap((item) => (item.contentHash ? [[item.id, item.contentHash]] : [])),
  );
  const synapses = links
    .filter((link) => link.fromId !== link.toId)
    .map((link) => ({
      fromId: link.fromId,
      toId: link.toId,
      score: link.score,
      fromHash: hashes.get(link.fromId) ?? null,
    }));
  if (items.length === 0 && synapses.length === 0) return;
  // Number arrays and Float32Arrays (any iterable, to the driver) arrive as LIST<FLOAT>, the
  // type Community's vector index reads. Each part is a unit subquery: an empty list in one
  // leaves the others to run.
  await runner.write(
    `CALL () {
       UNWIND $messages AS row
       MATCH (m:Message {id: row.id}) WHERE m.partition = $partition AND m.instance = $instance
         AND (row.contentHash IS NULL OR m.content_hash = row.contentHash)
       SET m.embedding = row.vector REMOVE m.needs_embedding
     }
     CALL () {
       UNWIND $toolCalls AS row
       MATCH (t:ToolCall {id: row.id}) WHERE t.partition = $partition AND t.instance = $instance
       SET t.embedding = row.vector REMOVE t.needs_embedding
     }
     CALL () {
       UNWIND $synapses AS row
       MATCH (a:Message {id: row.fromId}) WHERE a.partition = $partition AND a.instance = $instance
         AND (row.fromHash IS NULL OR a.content_hash = row.fromHash)
       MATCH (b:Message {id: row.toId}) WHERE b.partition = $partition AND b.instance = $instance
       MERGE (a)-[link:SYNAPSE]->(b)
       SET link.score = row.score
     }`,
    { messages: rowsOf('message'), toolCalls: rowsOf('toolcall'), synapses, ...scopeParams(scope) },
  );
}

/** Embeddings of messages and chunks by id; ids without one are left out. */
export async function getEmbeddings(
  scoped: ScopedRunner,
  ids: string[],
): Promise<Map<string, number[]>> {
  const { runner, scope } = scoped;
  const embeddings = new Map<string, number[]>();
  if (ids.length === 0) return embeddings;
  const rows = await runner.read(
    `UNWIND $ids AS id
     MATCH (m:Message {id: id})
     WHERE m.partition = $partition AND m.instance = $instance AND m.embedding IS NOT NULL
     RETURN m.id AS id, m.embedding AS embedding`,
    { ids: [...new Set(ids)], ...scopeParams(scope) },
  );
  for (const row of rows) {
    const vector = (row['embedding'] as unknown[]).map((value) => toNumber(value) ?? 0);
    embeddings.set(String(row['id']), vector);
  }
  return embeddings;
}

/** Live messages with text, then tool calls, that still lack an embedding, in any scope. */
export async function pendingEmbeddings(
  runner: Neo4jRunner,
  limit: number,
): Promise<PendingEmbedding[]> {
  if (limit <= 0) return [];
  const messages = await runner.read(
    `MATCH (m:Message) WHERE m.needs_embedding = true AND m.deleted = false
     RETURN m.partition AS partition, m.instance AS instance, m.id AS id, m.content AS text
     ORDER BY m.id LIMIT $limit`,
    { limit: integerParam(limit) },
  );
  const pending: PendingEmbedding[] = messages.map((row) => ({
    scope: { partition: String(row['partition']), instance: String(row['instance']) },
    kind: 'message',
    id: String(row['id']),
    text: String(row['text']),
  }));
  const remaining = limit - pending.length;
  if (remaining <= 0) return pending;
  const calls = await runner.read(
    // Tool calls go with the turn that made them: none of a deleted turn is embedded.
    `MATCH (t:ToolCall) WHERE t.needs_embedding = true
       AND NOT EXISTS { (t)-[:CALLED_BY]->(:Message {deleted: true}) }
     RETURN t.partition AS partition, t.instance AS instance, t.id AS id, t.tool_name AS toolName,
            t.arguments AS arguments, t.result AS result
     ORDER BY t.id LIMIT $limit`,
    { limit: integerParam(remaining) },
  );
  for (const row of calls) {
    const result = typeof row['result'] === 'string' ? `\n${row['result']}` : '';
    pending.push({
      scope: { partition: String(row['partition']), instance: String(row['instance']) },
      kind: 'toolcall',
      id: String(row['id']),
      // The same text the embedded store embeds, so both stores rank tool calls alike.
      text: `${String(row['toolName'])}(${String(row['arguments'])})${result}`,
    });
  }
  return pending;
}

/**
 * Removes the `needs_embedding = false` marks stores of earlier versions left on embedded nodes,
 * batch by batch (the flag is now true or absent): each kept an entry in the flag's index. One
 * index seek that finds nothing once done.
 */
export async function dropEmbeddedMarks(runner: Neo4jRunner): Promise<number> {
  let dropped = 0;
  for (const label of ['Message', 'ToolCall'] as const) {
    for (;;) {
      const rows = await runner.write(
        `MATCH (n:${label}) WHERE n.needs_embedding = false
         WITH n LIMIT $batch
         REMOVE n.needs_embedding
         RETURN count(n) AS dropped`,
        { batch: integerParam(CLEAR_BATCH) },
      );
      const count = toNumber(rows[0]?.['dropped']) ?? 0;
      dropped += count;
      if (count < CLEAR_BATCH) break;
    }
  }
  return dropped;
}

/** Removes every embedding in every scope, batch by batch, and marks the nodes pending again. */
export async function clearEmbeddings(runner: Neo4jRunner): Promise<void> {
  for (const label of ['Message', 'ToolCall'] as const) {
    const pendingAgain = label === 'Message' ? "CASE WHEN n.content <> '' THEN true END" : 'true';
    for (;;) {
      const rows = await runner.write(
        `MATCH (n:${label}) WHERE n.embedding IS NOT NULL
         WITH n LIMIT $batch
         SET n.embedding = null, n.needs_embedding = ${pendingAgain}
         RETURN count(n) AS cleared`,
        { batch: integerParam(CLEAR_BATCH) },
      );
      if ((toNumber(rows[0]?.['cleared']) ?? 0) < CLEAR_BATCH) break;
    }
  }
}
