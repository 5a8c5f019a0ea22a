import { describe, expect, it } from 'vitest';
import { SNIPPET_LENGTH, makeSnippet } from './make-snippet';

describe('makeSnippet', () => {
  it('collapses whitespace runs and trims', () => {
    expect(makeSnippet('  Hello,\n\n\tworld  again  ')).toBe('Hello, world again');
  });

  it(`cuts at ${SNIPPET_LENGTH} characters without splitting an emoji`, () => {
    const snippet = makeSnippet(`${'a'.repeat(SNIPPET_LENGTH - 1)}😀😀😀`);
    expect(Array.from(snippet)).toHaveLength(SNIPPET_LENGTH);
    expect(snippet.endsWith('😀')).toBe(true);
  });

  it('still finds the text behind a long run of leading whitespace', () => {
    expect(makeSnippet(`${' \n'.repeat(50_000)}the text`)).toBe('the text');
  });

  it('reads only a prefix of a huge text', () => {
    const snippet = makeSnippet('word '.repeat(1_000_000));
    expect(snippet).toHaveLength(SNIPPET_LENGTH - 1);
  });
});
