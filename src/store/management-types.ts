import type { Scope } from './types';

/** An instance with its figures, as the management API and the CLI list it. */
export interface InstanceSummary extends Scope {
  /** Live turns (not chunks, not deleted). */
  messages: number;
  /** Soft-deleted turns, restorable until purged. */
  deletedMessages: number;
  /** Tokens of the live turns. */
  tokens: number;
  /** Timestamp (ms) of the oldest and newest turn, deleted ones included; null without turns. */
  firstActivity: number | null;
  lastActivity: number | null;
  /** The highest sequence number handed out in the instance. */
  lastSeq: number;
  /** When the whole instance was soft-deleted (ms), or null. */
  deletedAt: number | null;
}

/** A partition with the figures of its instances added up. */
export interface PartitionSummary {
  partition: string;
  instances: number;
  messages: number;
  tokens: number;
  lastActivity: number | null;
}

/** A new version of a turn's text; the caller normalizes it as ingest would. */
export interface MessageEdit {
  content: string;
  /** The OpenAI message as it must be replayed upstream from now on. */
  raw: Record<string, unknown>;
  contentHash: string;
  tokenCount: number;
}

/** What a purge removed for good. */
export interface PurgeResult {
  /** Turns and chunks. */
  messages: number;
  toolCalls: number;
}

/** Figures of the whole store (GET /api/v1/stats, `memory-proxy stats`). */
export interface StoreStats {
  kind: 'sqlite' | 'neo4j';
  partitions: number;
  instances: number;
  /** Instances with a turn stored at or after `since`. */
  activeInstances: number;
  /** Live turns in every scope, and their tokens. */
  messages: number;
  tokens: number;
  /** Turns stored at or after `since`. */
  messagesSince: number;
  toolCalls: number;
  /** Bytes on disk when the store can tell (the embedded store), else null. */
  sizeBytes: number | null;
  nodes: number;
  relationships: number;
}

/** Which scopes an export covers: everything, one partition, or one instance. */
export interface ExportFilter {
  partition?: string;
  /** Only with `partition`. */
  instance?: string;
  /** Include embeddings (default true): without them an import re-embeds everything. */
  embeddings?: boolean;
}

/** What an import did: records that added something, and records the store already held. */
export interface ImportResult {
  created: number;
  unchanged: number;
}

/** Fork options: the turn the copied branch ends at and the new instance (same partition). */
export interface ForkInput {
  messageId: string;
  newInstance: string;
}

/** Point-in-time listing: turns with seq <= `seq`, as they read when turn `seq` was stored. */
export interface AsOfOptions {
  seq: number;
  /** Cursor: only turns with seq greater than this. */
  afterSeq?: number;
  limit: number;
}
