import { describe, expect, it } from 'vitest';
import { blockStart } from './recent-window';

describe('block-stable window start', () => {
  it('keeps everything while the branch fits', () => {
    expect(blockStart(900, 1000)).toBe(0);
    expect(blockStart(1000, 1000)).toBe(0);
  });

  it('moves only in half-window blocks, so the start stays put between moves', () => {
    const starts = new Set<number>();
    for (let total = 1001; total <= 1500; total += 7) starts.add(blockStart(total, 1000));
    expect([...starts]).toEqual([500]);
    expect(blockStart(1501, 1000)).toBe(1000);
  });

  it('leaves the window between half and all of its size once it moved', () => {
    for (let total = 1001; total < 20_000; total += 13) {
      const kept = total - blockStart(total, 1000);
      expect(kept).toBeGreaterThanOrEqual(500);
      expect(kept).toBeLessThanOrEqual(1000);
    }
  });
});
