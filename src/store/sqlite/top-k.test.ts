import { describe, expect, it } from 'vitest';
import { TopK } from './top-k';

describe('TopK', () => {
  it('keeps the k best of many items, best first, like a full sort would', () => {
    const scores = Array.from(
      { length: 1000 },
      (_, index) => (Math.sin(index * 12.9898) * 43758.5453) % 1,
    );
    const top = new TopK<number>(10);
    scores.forEach((score, index) => top.push(index, score));
    const expected = scores
      .map((score, index) => ({ item: index, score }))
      .sort((a, b) => b.score - a.score)
      .slice(0, 10);
    expect(top.sorted()).toEqual(expected);
  });

  it('keeps everything when there are fewer than k items, and nothing when k is 0', () => {
    const top = new TopK<string>(5);
    top.push('a', 0.1);
    top.push('b', 0.9);
    expect(top.sorted().map((entry) => entry.item)).toEqual(['b', 'a']);
    const none = new TopK<string>(0);
    none.push('a', 1);
    expect(none.sorted()).toEqual([]);
  });

  it('says whether a score would enter, so callers build only the items that do', () => {
    const top = new TopK<string>(1);
    top.push('a', 0.5);
    expect(top.accepts(0.4)).toBe(false);
    expect(top.accepts(0.6)).toBe(true);
    expect(top.accepts(Number.NaN)).toBe(false);
  });
});
