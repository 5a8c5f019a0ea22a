import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ConfigError } from './config-error';

/** What one inbound API key may touch. */
export interface ApiKeyGrant {
  /** The first 12 hex digits of the key's hash: names the key in logs without revealing it. */
  id: string;
  /** Partitions the key may read and write; 'all' for a key granted `"*"`. */
  partitions: ReadonlySet<string> | 'all';
}

/** Inbound API keys by the sha256 hex of the key; the keys themselves are never held. */
export type ApiKeyTable = ReadonlyMap<string, ApiKeyGrant>;

/** Partition names as the routes accept them (kept in step with http/scope.ts). */
const PARTITION_NAME = /^[A-Za-z0-9._-]{1,128}$/;
const HASH = /^(?:sha256:)?([0-9a-f]{64})$/;

/** The sha256 hex of an API key: how keys are written in PROXY_API_KEYS_FILE and looked up. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/**
 * Reads PROXY_API_KEYS_FILE: a JSON object mapping `sha256:<hex of the key>` to the partitions
 * the key may use (`["*"]` for all). Plain keys are refused, so the file never holds a secret.
 */
export function loadApiKeys(file: string): ApiKeyTable {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new ConfigError(
      'PROXY_API_KEYS_FILE',
      `cannot read ${file}: ${(error as Error).message}`,
    );
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ConfigError(
      'PROXY_API_KEYS_FILE',
      `${file} must hold a JSON object of "sha256:<hex>": ["partition", ...]`,
    );
  }
  const table = new Map<string, ApiKeyGrant>();
  for (const [name, value] of Object.entries(parsed)) {
    const hash = HASH.exec(name.toLowerCase())?.[1];
    if (hash === undefined) {
      throw new ConfigError(
        'PROXY_API_KEYS_FILE',
        `entry ${JSON.stringify(name.slice(0, 12) + '…')} is not a sha256 hash; store keys hashed (npm run hash-key)`,
      );
    }
    table.set(hash, { id: hash.slice(0, 12), partitions: grantedPartitions(value, hash) });
  }
  if (table.size === 0) throw new ConfigError('PROXY_API_KEYS_FILE', `${file} holds no keys`);
  return table;
}

function grantedPartitions(value: unknown, hash: string): ReadonlySet<string> | 'all' {
  const where = `key sha256:${hash.slice(0, 12)}…`;
  if (!Array.isArray(value) || value.length === 0) {
    throw new ConfigError(
      'PROXY_API_KEYS_FILE',
      `${where} needs a non-empty array of partition names (or ["*"])`,
    );
  }
  if (value.includes('*')) return 'all';
  for (const partition of value) {
    if (
      typeof partition !== 'string' ||
      !PARTITION_NAME.test(partition) ||
      partition === '.' ||
      partition === '..'
    ) {
      throw new ConfigError(
        'PROXY_API_KEYS_FILE',
        `${where} names an invalid partition ${JSON.stringify(partition)}`,
      );
    }
  }
  return new Set(value as string[]);
}
