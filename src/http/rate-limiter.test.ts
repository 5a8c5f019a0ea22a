import { describe, expect, it } from 'vitest';
import { RateLimiter } from './rate-limiter';

describe('RateLimiter', () => {
  it('lets a partition burst its minute, then refills evenly and says when to retry', () => {
    let now = 0;
    const limiter = new RateLimiter(60, () => now);
    for (let i = 0; i < 60; i++) expect(limiter.take('alice')).toEqual({ allowed: true });
    expect(limiter.take('alice')).toEqual({ allowed: false, retryAfterSeconds: 1 });
    // Another partition has its own bucket.
    expect(limiter.take('bob')).toEqual({ allowed: true });
    now = 1000;
    expect(limiter.take('alice')).toEqual({ allowed: true });
    expect(limiter.take('alice').allowed).toBe(false);
  });

  it('rounds the wait up to whole seconds for slow rates', () => {
    let now = 0;
    const limiter = new RateLimiter(2, () => now);
    limiter.take('p');
    limiter.take('p');
    expect(limiter.take('p')).toEqual({ allowed: false, retryAfterSeconds: 30 });
    now = 30_000;
    expect(limiter.take('p').allowed).toBe(true);
  });

  it('forgets idle partitions once there are many, keeping memory bounded', () => {
    let now = 0;
    const limiter = new RateLimiter(10, () => now);
    for (let i = 0; i < 20_000; i++) limiter.take(`p${i}`);
    now = 60_000;
    limiter.take('fresh');
    expect((limiter as unknown as { buckets: Map<string, unknown> }).buckets.size).toBeLessThan(
      20_000,
    );
  });
});
