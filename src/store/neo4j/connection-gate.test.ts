import { describe, expect, it } from 'vitest';
import { ConnectionGate } from './connection-gate';

describe('ConnectionGate', () => {
  it('runs at most its size at once, the rest in arrival order, and frees a slot on failure', async () => {
    const gate = new ConnectionGate(2);
    let running = 0;
    let most = 0;
    const started: number[] = [];
    const finish: (() => void)[] = [];
    const calls = [0, 1, 2, 3, 4].map((index) =>
      settle(gate.run(async () => {
        started.push(index);
        running += 1;
        most = Math.max(most, running);
        await new Promise<void>((resolve) => finish.push(resolve));
        running -= 1;
        if (index === 1) throw new Error('store failed');
        return index;
      })),
    );
    for (let step = 0; step < 5; step++) {
      await new Promise((resolve) => setImmediate(resolve));
      finish.shift()?.();
    }
    const results = await Promise.all(calls);
    expect(most).toBe(2);
    expect(started).toEqual([0, 1, 2, 3, 4]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled', 'fulfilled']);
  });
});

function settle<T>(promise: Promise<T>): Promise<{ status: 'fulfilled' | 'rejected' }> {
  return promise.then(
    () => ({ status: 'fulfilled' as const }),
    () => ({ status: 'rejected' as const }),
  );
}
