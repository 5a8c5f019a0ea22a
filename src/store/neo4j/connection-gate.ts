/**
 * Lets at most `size` store calls hold a connection at once and queues the rest in arrival
 * order. The driver's own wait for a free connection has a deadline (so an unreachable server
 * fails fast), which under a burst of requests turned a busy pool into 503s; waiting here
 * instead, only for the pool, keeps a burst queued and the deadline for real outages.
 */
export class ConnectionGate {
  private free: number;
  private readonly waiting: (() => void)[] = [];

  constructor(size: number) {
    this.free = size;
  }

  /** Runs `work` once a connection is free for it, and frees it when `work` settles. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.free > 0) this.free -= 1;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.free += 1;
    }
  }
}
