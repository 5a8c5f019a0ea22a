import { describe, expect, it } from 'vitest';
import { countTokens } from '../../tokens/count-tokens';
import { fitResult, type ToolOutput } from './fit-result';

function output(count: number, words = 40): ToolOutput {
  return {
    fields: { query: 'q' },
    lists: [{ key: 'messages', pageWith: 'get_messages_by_ids' }],
    items: Array.from({ length: count }, (_, index) => {
      const value = { id: `m${index}`, content: `item ${index} ${'word '.repeat(words)}` };
      return {
        id: `m${index}`,
        list: 'messages',
        value,
        shorten: (chars: number) => ({
          ...value,
          content: value.content.slice(0, chars),
          content_truncated: true,
        }),
      };
    }),
  };
}

describe('fitResult', () => {
  it('returns the whole result when it fits', () => {
    const fitted = fitResult(output(3), 10_000);
    expect(fitted.truncated).toBe(false);
    expect(JSON.parse(fitted.content).messages).toHaveLength(3);
    expect(fitted.tokens).toBe(countTokens(fitted.content));
  });

  it('keeps as many whole items as fit, in keep order, and names the ones left out', () => {
    const fitted = fitResult(output(10), 200);
    const parsed = JSON.parse(fitted.content);
    expect(fitted.truncated).toBe(true);
    expect(fitted.tokens).toBeLessThanOrEqual(200);
    expect(parsed.messages.length).toBeGreaterThan(0);
    expect(parsed.messages.length).toBeLessThan(10);
    const shown = parsed.messages.map((message: { id: string }) => message.id);
    expect([...shown, ...parsed.omitted_ids]).toEqual(
      Array.from({ length: 10 }, (_, index) => `m${index}`),
    );
    expect(parsed.note).toMatch(/get_messages_by_ids/);
  });

  it('shows items in their own position while keeping the most important', () => {
    const base = output(4);
    const reordered: ToolOutput = {
      ...base,
      items: base.items.map((item, index) => ({ ...item, position: -index })),
    };
    const parsed = JSON.parse(fitResult(reordered, 10_000).content);
    expect(parsed.messages.map((message: { id: string }) => message.id)).toEqual([
      'm3',
      'm2',
      'm1',
      'm0',
    ]);
  });

  it('shortens the first item when not even it fits whole', () => {
    const fitted = fitResult(output(2, 2000), 150);
    const parsed = JSON.parse(fitted.content);
    expect(fitted.tokens).toBeLessThanOrEqual(150);
    expect(parsed.messages[0]).toMatchObject({ id: 'm0', content_truncated: true });
    expect(parsed.omitted_ids).toEqual(['m1']);
    expect(parsed.note).toMatch(/m0 is shown shortened/);
  });

  it('lists only as many left-out ids as fit, and counts the rest', () => {
    const many: ToolOutput = {
      ...output(50, 1),
      items: output(50, 1).items.map(({ shorten: _, ...item }) => item),
    };
    const fitted = fitResult(many, 80);
    const parsed = JSON.parse(fitted.content);
    expect(fitted.tokens).toBeLessThanOrEqual(80);
    expect(parsed.truncated).toBe(true);
    expect(parsed.note).toMatch(/more not shown/);
  });

  it('says so when nothing fits at all', () => {
    const fitted = fitResult({ fields: { big: 'x '.repeat(500) }, lists: [], items: [] }, 50);
    expect(fitted.fits).toBe(false);
    expect(JSON.parse(fitted.content).error).toMatch(/does not fit the 50-token limit/);
  });
});
