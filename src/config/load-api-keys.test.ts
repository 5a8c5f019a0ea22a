import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { hashApiKey, loadApiKeys } from './load-api-keys';
import { ConfigError, loadConfig } from './load-config';

function keysFile(content: unknown): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'memory-proxy-keys-')), 'keys.json');
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

describe('loadApiKeys', () => {
  it('reads hashed keys with their partitions, and "*" as every partition', () => {
    const table = loadApiKeys(
      keysFile({
        [`sha256:${hashApiKey('key-for-alice-0001')}`]: ['alice', 'alice-work'],
        [hashApiKey('admin-key-00000001')]: ['*'],
      }),
    );
    expect(table.get(hashApiKey('key-for-alice-0001'))).toEqual({
      id: hashApiKey('key-for-alice-0001').slice(0, 12),
      partitions: new Set(['alice', 'alice-work']),
    });
    expect(table.get(hashApiKey('admin-key-00000001'))?.partitions).toBe('all');
  });

  it('refuses plain keys, bad partition names and empty grants, naming PROXY_API_KEYS_FILE', () => {
    for (const content of [
      { 'sk-plain-key-1234567': ['alice'] },
      { [hashApiKey('k')]: ['../x'] },
      { [hashApiKey('k')]: [] },
      { [hashApiKey('k')]: 'alice' },
      {},
      [],
      'not json',
    ]) {
      expect(() => loadApiKeys(keysFile(content))).toThrow(ConfigError);
      try {
        loadApiKeys(keysFile(content));
      } catch (error) {
        expect((error as ConfigError).variable).toBe('PROXY_API_KEYS_FILE');
        // The message never repeats a key it refused in full.
        expect((error as Error).message).not.toContain('sk-plain-key-1234567');
      }
    }
  });
});

describe('listening beyond loopback', () => {
  it('refuses a non-loopback HOST without keys unless ALLOW_UNAUTHENTICATED=true, naming the variable', () => {
    for (const host of ['0.0.0.0', '::', '192.168.1.10', 'example.org']) {
      expect(() => loadConfig({ HOST: host })).toThrow(/ALLOW_UNAUTHENTICATED/);
      expect(loadConfig({ HOST: host, ALLOW_UNAUTHENTICATED: 'true' }).host).toBe(host);
    }
    for (const host of ['127.0.0.1', '127.8.9.1', 'localhost', '::1', '[::1]'])
      expect(loadConfig({ HOST: host }).host).toBe(host);
    const file = keysFile({ [hashApiKey('a-key-of-enough-length')]: ['alice'] });
    expect(loadConfig({ HOST: '0.0.0.0', PROXY_API_KEYS_FILE: file }).apiKeys?.size).toBe(1);
  });

  it('validates the new limits and modes', () => {
    expect(loadConfig({}).storeFailureMode).toBe('closed');
    expect(loadConfig({}).rateLimitPerMinute).toBe(0);
    expect(() => loadConfig({ STORE_FAILURE_MODE: 'sometimes' })).toThrow(/STORE_FAILURE_MODE/);
    expect(() => loadConfig({ RATE_LIMIT_PER_MINUTE: '-1' })).toThrow(/RATE_LIMIT_PER_MINUTE/);
    expect(() => loadConfig({ MEMORY_RETRIEVAL_LIMIT: '0' })).toThrow(/MEMORY_RETRIEVAL_LIMIT/);
    expect(() => loadConfig({ ALLOW_UNAUTHENTICATED: 'maybe' })).toThrow(/ALLOW_UNAUTHENTICATED/);
  });
});
