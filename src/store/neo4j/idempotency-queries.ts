import { int } from 'neo4j-driver';
import type { IdempotentEntry } from '../types';
import { toNumber } from './map-record';
import type { Neo4jRunner } from './neo4j-runner';
import { scopeParams, type ScopedRunner } from './scope-params';

// Kept beside the queries that need them; both statements are idempotent, so every start runs them.
const SCHEMA = [
  'CREATE CONSTRAINT idempotency_key IF NOT EXISTS FOR (k:IdempotencyKey) REQUIRE (k.partition, k.instance, k.key) IS UNIQUE',
  'CREATE INDEX idempotency_expiry IF NOT EXISTS FOR (k:IdempotencyKey) ON (k.partition, k.instance, k.expires_at)',
];

/** Creates the constraint and index of IdempotencyKey nodes. */
export async function ensureIdempotencySchema(runner: Neo4jRunner): Promise<void> {
  for (const statement of SCHEMA) await runner.write(statement);
}

/** The unexpired answer stored under a key of the scope, or null. */
export async function getIdempotent(
  scoped: ScopedRunner,
  key: string,
  now: number,
): Promise<IdempotentEntry | null> {
  const { runner, scope } = scoped;
  const rows = await runner.read(
    `MATCH (k:IdempotencyKey {partition: $partition, instance: $instance, key: $key})
     WHERE k.expires_at > $now
     RETURN k.key AS key, k.response AS response, k.created_at AS createdAt, k.expires_at AS expiresAt`,
    { key, now: int(now), ...scopeParams(scope) },
  );
  const row = rows[0];
  if (!row) return null;
  return {
    key: String(row['key']),
    response: String(row['response']),
    createdAt: toNumber(row['createdAt']) ?? 0,
    expiresAt: toNumber(row['expiresAt']) ?? 0,
  };
}

/** Stores or replaces the answer of a key (MERGE on the unique scope and key), dropping expired ones. */
export async function putIdempotent(
  scoped: ScopedRunner,
  entry: IdempotentEntry,
  now: number,
): Promise<void> {
  const { runner, scope } = scoped;
  await runner.writeTransaction(async (transaction) => {
    await transaction.run(
      `MATCH (k:IdempotencyKey {partition: $partition, instance: $instance}) WHERE k.expires_at <= $now DELETE k`,
      { now: int(now), ...scopeParams(scope) },
    );
    await transaction.run(
      `MERGE (k:IdempotencyKey {partition: $partition, instance: $instance, key: $key})
       SET k.response = $response, k.created_at = $createdAt, k.expires_at = $expiresAt`,
      {
        key: entry.key,
        response: entry.response,
        createdAt: int(entry.createdAt),
        expiresAt: int(entry.expiresAt),
        ...scopeParams(scope),
      },
    );
  });
}
