import type Database from 'better-sqlite3';
import type { IdempotentEntry, Scope } from '../types';
import { scopeParams } from './scope-sql';

/** The table of stored answers, created by the schema migration (schema.ts). */
export const IDEMPOTENCY_SCHEMA = `
CREATE TABLE IF NOT EXISTS idempotency_keys (
  partition TEXT NOT NULL,
  instance TEXT NOT NULL,
  key TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  response TEXT NOT NULL,
  PRIMARY KEY (partition, instance, key)
) STRICT;
CREATE INDEX IF NOT EXISTS idempotency_keys_expiry ON idempotency_keys (partition, instance, expires_at);
`;

/** Reads and writes of the stored answers of Idempotency-Keys. */
export interface IdempotencyTable {
  get(scope: Scope, key: string, now: number): IdempotentEntry | null;
  put(scope: Scope, entry: IdempotentEntry, now: number): void;
}

/** Prepares the statements of the idempotency table. */
export function openIdempotencyTable(db: Database.Database): IdempotencyTable {
  const select = db.prepare<
    { partition: string; instance: string; key: string; now: number },
    { key: string; response: string; createdAt: number; expiresAt: number }
  >(
    `SELECT key, response, created_at AS createdAt, expires_at AS expiresAt FROM idempotency_keys
     WHERE partition = @partition AND instance = @instance AND key = @key AND expires_at > @now`,
  );
  const upsert = db.prepare(
    `INSERT INTO idempotency_keys (partition, instance, key, created_at, expires_at, response)
     VALUES (@partition, @instance, @key, @createdAt, @expiresAt, @response)
     ON CONFLICT (partition, instance, key) DO UPDATE SET
       created_at = excluded.created_at, expires_at = excluded.expires_at, response = excluded.response`,
  );
  const expire = db.prepare(
    'DELETE FROM idempotency_keys WHERE partition = @partition AND instance = @instance AND expires_at <= @now',
  );
  const put = db.transaction((scope: Scope, entry: IdempotentEntry, now: number) => {
    expire.run({ now, ...scopeParams(scope) });
    upsert.run({ ...scopeParams(scope), ...entry });
  });
  return {
    get: (scope, key, now) => select.get({ key, now, ...scopeParams(scope) }) ?? null,
    put: (scope, entry, now) => put.immediate(scope, entry, now),
  };
}
