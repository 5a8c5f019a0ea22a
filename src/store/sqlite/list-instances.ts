import type Database from 'better-sqlite3';
import type { InstanceSummary, StoreStats } from '../management-types';
import type { AdminStatements, InstanceRow } from './admin-statements';

/** Instances of a partition (of every partition when absent) with their figures, by name. */
export function listInstances(admin: AdminStatements, partition?: string): InstanceSummary[] {
  const rows =
    partition === undefined
      ? admin.listAllInstances.all()
      : admin.listPartitionInstances.all({ partition });
  return rows.map(toInstanceSummary);
}

/** Store-wide figures; the size is the database file's pages (the WAL is checkpointed into it). */
export function storeStats(options: {
  db: Database.Database;
  admin: AdminStatements;
  since: number;
}): StoreStats {
  const { db, admin } = options;
  const totals = admin.totals.get();
  const recent = admin.recent.get({ since: options.since });
  const graph = admin.graphSize.get();
  const pages = db.pragma('page_count', { simple: true }) as number;
  const pageSize = db.pragma('page_size', { simple: true }) as number;
  return {
    kind: 'sqlite',
    partitions: totals?.partitions ?? 0,
    instances: totals?.instances ?? 0,
    activeInstances: recent?.activeInstances ?? 0,
    messages: totals?.messages ?? 0,
    tokens: totals?.tokens ?? 0,
    messagesSince: recent?.messagesSince ?? 0,
    toolCalls: totals?.toolCalls ?? 0,
    sizeBytes: pages * pageSize,
    nodes: graph?.nodes ?? 0,
    relationships: graph?.relationships ?? 0,
  };
}

function toInstanceSummary(row: InstanceRow): InstanceSummary {
  return {
    partition: row.partition,
    instance: row.instance,
    messages: row.messages,
    deletedMessages: row.deletedMessages,
    tokens: row.tokens,
    firstActivity: row.firstActivity,
    lastActivity: row.lastActivity,
    lastSeq: row.lastSeq,
    deletedAt: row.deletedAt,
  };
}
