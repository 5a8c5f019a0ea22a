import { describe, expect, it } from 'vitest';
import { freshScope, type StoreGetter } from './contract-fixtures';

/** Idempotency-Key entries: scoped, replaceable, never returned once expired. */
export function describeIdempotencyContract(getStore: StoreGetter): void {
  describe('idempotency entries', () => {
    const day = 24 * 60 * 60 * 1000;

    it('returns what was stored under a key, only in its scope', async () => {
      const store = getStore();
      const scope = freshScope();
      const entry = {
        key: 'retry-1',
        response: '{"answer":"kept"}',
        createdAt: Date.now(),
        expiresAt: Date.now() + day,
      };
      expect(await store.getIdempotent(scope, 'retry-1')).toBeNull();
      await store.putIdempotent(scope, entry);
      expect(await store.getIdempotent(scope, 'retry-1')).toEqual(entry);
      expect(
        await store.getIdempotent({ ...scope, instance: `${scope.instance}-other` }, 'retry-1'),
      ).toBeNull();
      expect(
        await store.getIdempotent({ ...scope, partition: `${scope.partition}-other` }, 'retry-1'),
      ).toBeNull();
    });

    it('replaces an entry stored again under the same key', async () => {
      const store = getStore();
      const scope = freshScope();
      await store.putIdempotent(scope, {
        key: 'k',
        response: 'first',
        createdAt: 1,
        expiresAt: Date.now() + day,
      });
      await store.putIdempotent(scope, {
        key: 'k',
        response: 'second',
        createdAt: 2,
        expiresAt: Date.now() + day,
      });
      expect((await store.getIdempotent(scope, 'k'))?.response).toBe('second');
    });

    it('never returns an expired entry, and drops expired entries of the scope on the next write', async () => {
      const store = getStore();
      const scope = freshScope();
      await store.putIdempotent(scope, {
        key: 'old',
        response: 'stale',
        createdAt: 1,
        expiresAt: Date.now() - 1000,
      });
      expect(await store.getIdempotent(scope, 'old')).toBeNull();
      await store.putIdempotent(scope, {
        key: 'new',
        response: 'fresh',
        createdAt: 2,
        expiresAt: Date.now() + day,
      });
      expect(await store.getIdempotent(scope, 'old')).toBeNull();
      expect((await store.getIdempotent(scope, 'new'))?.response).toBe('fresh');
    });

    it('keeps hostile keys and large answers as plain data', async () => {
      const store = getStore();
      const scope = freshScope();
      const key = `x'}) MATCH (n) DETACH DELETE n //`;
      const response = JSON.stringify({ text: 'é'.repeat(50_000) });
      await store.putIdempotent(scope, {
        key,
        response,
        createdAt: 1,
        expiresAt: Date.now() + day,
      });
      expect((await store.getIdempotent(scope, key))?.response).toBe(response);
    });
  });
}
