/** The outcome of asking the limiter for one request. */
export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/** Buckets kept before full (idle) ones are dropped, so many partitions cannot grow memory without bound. */
const PRUNE_ABOVE = 10_000;

/**
 * A token bucket per key (the partition): `perMinute` tokens of capacity, refilled evenly over
 * the minute, so a partition may burst up to its minute's share and then gets a steady rate.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly perMs: number;
  /** Size at which idle buckets are dropped next; doubles when few were idle, so scans stay amortised O(1). */
  private pruneAt = PRUNE_ABOVE;

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number = Date.now,
  ) {
    this.perMs = perMinute / 60_000;
  }

  /** Takes one token for `key`, or says how many seconds until one is there. */
  take(key: string): RateDecision {
    const now = this.now();
    const bucket = this.buckets.get(key) ?? { tokens: this.perMinute, at: now };
    bucket.tokens = Math.min(this.perMinute, bucket.tokens + (now - bucket.at) * this.perMs);
    bucket.at = now;
    if (this.buckets.size >= this.pruneAt && !this.buckets.has(key)) {
      this.prune(now);
      this.pruneAt = Math.max(PRUNE_ABOVE, this.buckets.size * 2);
    }
    this.buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { allowed: true };
    }
    return {
      allowed: false,
      retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / this.perMs / 1000)),
    };
  }

  private prune(now: number): void {
    for (const [key, bucket] of this.buckets) {
      if (bucket.tokens + (now - bucket.at) * this.perMs >= this.perMinute)
        this.buckets.delete(key);
    }
  }
}
