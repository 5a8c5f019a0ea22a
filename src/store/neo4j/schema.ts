import { sameList } from '../../lists';
import type { Row, Neo4jRunner } from './neo4j-runner';

/** Names of the indexes the queries name explicitly. */
export const INDEX_NAMES = {
  messageVector: 'message_embedding',
  toolCallVector: 'toolcall_embedding',
  messageText: 'message_content_scoped',
  toolCallText: 'toolcall_text',
} as const;

/**
 * How vector search keeps to one scope: `filtered` filters inside the index (CYPHER 25
 * SEARCH ... WHERE, Neo4j 2026.01+); `scoped` scans small scopes exactly and over-fetches from
 * the index for large ones (5.26 LTS and any server whose index lacks the filter properties).
 */
export type VectorStrategy = 'filtered' | 'scoped';

/** How the store's vector indexes are searched. */
export interface VectorSetup {
  strategy: VectorStrategy;
  /**
   * Both vector indexes search full-precision vectors, so their scores are the exact cosine
   * (to float precision: 1.2e-7 apart at most over 2,400 hits) and need no rescoring.
   */
  fullPrecision: boolean;
}

/** The properties a filtered vector index carries beside the embedding, in order. */
export const VECTOR_FILTER_PROPERTIES = {
  Message: ['partition', 'instance', 'deleted'],
  ToolCall: ['partition', 'instance'],
} as const;

/**
 * Vector indexes search full-precision vectors where the server takes the setting (2026.x).
 * Its default there, binary codes searched three times as wide and rescored, found 63% of a
 * question's exact 10 nearest among 10^6 turns and took 12.1 ms at the median for 40 hits;
 * full precision found 86% in 5.4-6.5 ms (the same questions against one index and then the
 * other). The index keeps the full vectors either way, for its rescoring.
 */
const UNQUANTIZED = 'NONE';
const FULL_PRECISION = `, \`vector.quantization.type\`: '${UNQUANTIZED}'`;

/** Constraints and range indexes: all idempotent, none depends on configuration. */
export const SCHEMA_STATEMENTS: readonly string[] = [
  'CREATE CONSTRAINT message_id IF NOT EXISTS FOR (m:Message) REQUIRE m.id IS UNIQUE',
  'CREATE CONSTRAINT toolcall_id IF NOT EXISTS FOR (t:ToolCall) REQUIRE t.id IS UNIQUE',
  'CREATE CONSTRAINT topic_id IF NOT EXISTS FOR (t:Topic) REQUIRE t.id IS UNIQUE',
  // Composite uniqueness is Community; MERGE on it is what serialises writers of an instance.
  'CREATE CONSTRAINT instance_scope IF NOT EXISTS FOR (i:Instance) REQUIRE (i.partition, i.instance) IS UNIQUE',
  'CREATE CONSTRAINT core_memory_name IF NOT EXISTS FOR (c:CoreMemory) REQUIRE (c.partition, c.instance, c.name) IS UNIQUE',
  'CREATE CONSTRAINT summary_boundary IF NOT EXISTS FOR (s:Summary) REQUIRE (s.partition, s.instance, s.boundary_id) IS UNIQUE',
  'CREATE CONSTRAINT meta_key IF NOT EXISTS FOR (m:Meta) REQUIRE m.key IS UNIQUE',
  'CREATE INDEX message_scope_seq IF NOT EXISTS FOR (m:Message) ON (m.partition, m.instance, m.seq)',
  'CREATE INDEX message_scope_hash IF NOT EXISTS FOR (m:Message) ON (m.partition, m.instance, m.content_hash)',
  'CREATE INDEX message_scope_timestamp IF NOT EXISTS FOR (m:Message) ON (m.partition, m.instance, m.timestamp)',
  'CREATE INDEX message_chunk_parent IF NOT EXISTS FOR (m:Message) ON (m.chunk_parent_id)',
  'CREATE INDEX message_needs_embedding IF NOT EXISTS FOR (m:Message) ON (m.needs_embedding)',
  'CREATE INDEX toolcall_scope_message IF NOT EXISTS FOR (t:ToolCall) ON (t.partition, t.instance, t.message_id)',
  'CREATE INDEX toolcall_needs_embedding IF NOT EXISTS FOR (t:ToolCall) ON (t.needs_embedding)',
  'CREATE INDEX topic_scope IF NOT EXISTS FOR (t:Topic) ON (t.partition, t.instance)',
  'CREATE CONSTRAINT period_summary_key IF NOT EXISTS FOR (s:PeriodSummary) REQUIRE (s.partition, s.instance, s.granularity, s.period) IS UNIQUE',
  // Retention: soft-deleted turns and when it first saw them deleted.
  'CREATE INDEX message_deleted IF NOT EXISTS FOR (m:Message) ON (m.deleted)',
  'CREATE INDEX message_deleted_noted IF NOT EXISTS FOR (m:Message) ON (m.deleted_noted_at)',
  // The index of content alone, from earlier versions, goes (FULL_TEXT_INDEXES has its successor).
  'DROP INDEX message_content IF EXISTS',
];

/**
 * The full-text indexes. Content with the scope, so a search walks only its conversation's
 * matches. Eventually consistent: the server indexes a committed turn in the background rather
 * than inside the commit, which took 2-3 ms off each of the two writes of a chat request (their
 * sum fell from 11-13 to 7 ms in per-statement timings over 4 x 300 turns). A search waits for
 * the indexing still queued unless its caller says it need not (full-text-search.ts); the chat
 * path need not, as the turns stored moments ago are the newest, which its recent window holds.
 */
const FULL_TEXT_INDEXES: readonly { name: string; on: string }[] = [
  { name: INDEX_NAMES.messageText, on: '(m:Message) ON EACH [m.content, m.partition, m.instance]' },
  { name: INDEX_NAMES.toolCallText, on: '(t:ToolCall) ON EACH [t.tool_name, t.arguments, t.result]' },
];

/** Whether a server agent ("Neo4j/2026.01.0", "Neo4j/5.26.30") has filtered vector search. */
export function supportsFilteredVectorSearch(agent: string): boolean {
  const match = /(\d+)\.(\d+)/.exec(agent);
  if (!match) return false;
  const major = Number(match[1]);
  const minor = Number(match[2]);
  // Calendar versions: 2026.01 is the first with SEARCH ... WHERE on declared filter properties.
  return major > 2026 || (major === 2026 && minor >= 1);
}

/**
 * Creates constraints and indexes idempotently, makes each vector index match the configured
 * dimensions (recreating it when they changed) and waits until every index is online.
 */
export async function ensureSchema(
  runner: Neo4jRunner,
  options: { dimensions: number; agent: string },
): Promise<VectorSetup> {
  const { dimensions } = options;
  if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > 4096) {
    throw new Error(
      `embedding dimensions must be a whole number from 1 to 4096, got ${dimensions}`,
    );
  }
  for (const statement of SCHEMA_STATEMENTS) await runSchemaStatement(runner, statement);
  for (const index of FULL_TEXT_INDEXES) await ensureFullTextIndex(runner, index);
  let filtered = supportsFilteredVectorSearch(options.agent);
  let fullPrecision = true;
  for (const label of ['Message', 'ToolCall'] as const) {
    const index = await ensureVectorIndex(runner, { label, dimensions, filtered });
    // A server that refuses filter properties after all keeps a plain index and the scoped strategy.
    filtered = filtered && index.filtered;
    fullPrecision = fullPrecision && index.fullPrecision;
  }
  // A rebuilt index is read by every query: startup waits for it, up to an hour (10^6 turns
  // take minutes), rather than serve searches that fail until it is online.
  await runner.write('CALL db.awaitIndexes(3600)');
  return { strategy: filtered ? 'filtered' : 'scoped', fullPrecision };
}

/** Creates a full-text index eventually consistent, rebuilding one an earlier version made consistent. */
async function ensureFullTextIndex(runner: Neo4jRunner, index: { name: string; on: string }): Promise<void> {
  const [existing] = await runner.read(
    `SHOW INDEXES YIELD name, type, options WHERE name = $name AND type = 'FULLTEXT' RETURN options`,
    { name: index.name },
  );
  const config = ((existing?.['options'] as Row | null)?.['indexConfig'] ?? {}) as Row;
  if (existing && config['fulltext.eventually_consistent'] === true) return;
  // The rebuild reads every turn again; startup waits for it below (db.awaitIndexes).
  if (existing) await runner.write(`DROP INDEX ${quoteName(index.name)} IF EXISTS`);
  await runSchemaStatement(
    runner,
    `CREATE FULLTEXT INDEX ${quoteName(index.name)} IF NOT EXISTS FOR ${index.on} OPTIONS {indexConfig: {\`fulltext.eventually_consistent\`: true}}`,
  );
}

/**
 * Makes the label's vector index match the configuration; says whether it carries the filter
 * properties and whether it searches full-precision vectors.
 */
async function ensureVectorIndex(
  runner: Neo4jRunner,
  options: { label: 'Message' | 'ToolCall'; dimensions: number; filtered: boolean },
): Promise<{ filtered: boolean; fullPrecision: boolean }> {
  const { label, dimensions } = options;
  const name = label === 'Message' ? INDEX_NAMES.messageVector : INDEX_NAMES.toolCallVector;
  const wanted = options.filtered ? [...VECTOR_FILTER_PROPERTIES[label]] : [];
  const existing = await findVectorIndex(runner, label);
  if (
    existing &&
    (existing.name !== name ||
      existing.dimensions !== dimensions ||
      !sameList(existing.filters, wanted) ||
      (options.filtered && existing.quantization !== null && existing.quantization !== UNQUANTIZED))
  ) {
    // A vector index only indexes vectors of its own dimensions: after a model change (or an
    // upgrade that brings filtering, or full-precision search) it must be rebuilt. The
    // embeddings stay on the nodes.
    await runner.write(`DROP INDEX ${quoteName(existing.name)} IF EXISTS`);
  } else if (existing) {
    return { filtered: wanted.length > 0, fullPrecision: existing.quantization === UNQUANTIZED };
  }
  // Another process may have created it first (IF NOT EXISTS): its precision is read back.
  const created = async (filtered: boolean) => ({
    filtered,
    fullPrecision: (await findVectorIndex(runner, label))?.quantization === UNQUANTIZED,
  });
  const indexOptions = (extra: string) =>
    `OPTIONS {indexConfig: {\`vector.dimensions\`: ${dimensions}, \`vector.similarity_function\`: 'cosine'${extra}}}`;
  if (options.filtered) {
    const filters = wanted.map((property) => `v.${property}`).join(', ');
    // A server without the quantization setting keeps its default; one that refuses filter
    // properties gets the plain index below.
    for (const extra of [FULL_PRECISION, '']) {
      try {
        await runSchemaStatement(
          runner,
          `CYPHER 25 CREATE VECTOR INDEX ${name} IF NOT EXISTS FOR (v:${label}) ON v.embedding WITH [${filters}] ${indexOptions(extra)}`,
        );
        return created(true);
      } catch (error) {
        if (!isSyntaxError(error) && !(extra !== '' && isInvalidArgument(error))) throw error;
      }
    }
  }
  await runSchemaStatement(
    runner,
    `CREATE VECTOR INDEX ${name} IF NOT EXISTS FOR (v:${label}) ON v.embedding ${indexOptions('')}`,
  );
  return created(false);
}

async function findVectorIndex(
  runner: Neo4jRunner,
  label: string,
): Promise<{ name: string; dimensions: number | null; filters: string[]; quantization: string | null } | null> {
  const rows = await runner.read(
    `SHOW INDEXES YIELD name, type, labelsOrTypes, properties, options
     WHERE type = 'VECTOR' AND labelsOrTypes = [$label] AND properties[0] = 'embedding'
     RETURN name, properties, options`,
    { label },
  );
  const row: Row | undefined = rows[0];
  if (!row) return null;
  const config = ((row['options'] as Row | null)?.['indexConfig'] ?? {}) as Row;
  const dimensions = config['vector.dimensions'];
  const quantization = config['vector.quantization.type'];
  return {
    name: String(row['name']),
    dimensions: typeof dimensions === 'number' ? dimensions : null,
    quantization: typeof quantization === 'string' ? quantization : null,
    filters: (row['properties'] as string[]).slice(1),
  };
}

async function runSchemaStatement(runner: Neo4jRunner, statement: string): Promise<void> {
  try {
    await runner.write(statement);
  } catch (error) {
    // Two proxies starting at once: the other one created it first, which is what we wanted.
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && /^Neo\.ClientError\.Schema\.\w*AlreadyExists$/.test(code))
      return;
    throw error;
  }
}

function isSyntaxError(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return (
    code === 'Neo.ClientError.Statement.SyntaxError' ||
    code === 'Neo.ClientError.Statement.ArgumentError'
  );
}

function isInvalidArgument(error: unknown): boolean {
  return (error as { code?: unknown }).code === 'Neo.ClientError.General.InvalidArguments';
}

function quoteName(name: string): string {
  return `\`${name.replaceAll('`', '``')}\``;
}
