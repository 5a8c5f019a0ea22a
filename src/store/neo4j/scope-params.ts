import { int } from 'neo4j-driver';
import type { Integer } from 'neo4j-driver';
import type { Scope } from '../types';
import type { Neo4jRunner, TransactionRunner } from './neo4j-runner';

/**
 * The query parameters of a scope (copied, so stray properties of the caller never reach Cypher).
 * Spread them last in a query's parameters, `{ id, ...params }` (see eslint.config.js).
 */
export function scopeParams(scope: Scope): { partition: string; instance: string } {
  return { partition: scope.partition, instance: scope.instance };
}

/**
 * Takes the write lock of the instance's counter node for the rest of the transaction, creating
 * the node on first use. Every writer that must not interleave within an instance (sequence
 * numbers, dedupe of turns, chunks and tool calls) goes through here first, in any process.
 */
export async function lockInstance(transaction: TransactionRunner, scope: Scope): Promise<number> {
  const rows = await transaction.run(
    `MERGE (i:Instance {partition: $partition, instance: $instance})
     ON CREATE SET i.last_seq = 0
     SET i.locked_at = timestamp()
     RETURN i.last_seq AS lastSeq`,
    scopeParams(scope),
  );
  const lastSeq = rows[0]?.['lastSeq'];
  return typeof lastSeq === 'number' ? lastSeq : 0;
}

/** A LIMIT/SKIP/k value: the driver sends JS numbers as FLOAT, which Cypher rejects there. */
export function integerParam(value: number): Integer {
  return int(Math.max(0, Math.floor(value)));
}

/** The runner and the scope a query is confined to, passed together. */
export interface ScopedRunner {
  runner: Neo4jRunner;
  scope: Scope;
}
