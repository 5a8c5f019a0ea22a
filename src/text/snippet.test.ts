import { describe, expect, it } from 'vitest';
import { SNIPPET_LENGTH, makeSnippet, snippetOf } from './snippet';

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

describe('snippetOf', () => {
  it('marks a cut text with an ellipsis after its last word, and leaves a short one whole', () => {
    expect(snippetOf('one two   three four', 8)).toBe('one two…');
    expect(snippetOf('  one\ntwo  ', 8)).toBe('one two');
  });

  it('does not call a text cut when only whitespace follows, however long', () => {
    expect(snippetOf(`short${' '.repeat(10_000)}`, 8)).toBe('short');
    expect(snippetOf(`short${' '.repeat(10_000)}more`, 10)).toBe('short more');
    expect(snippetOf(`abcdefgh${' '.repeat(10_000)}`, 8)).toBe('abcdefgh');
    expect(snippetOf(`abcdefgh${'\n'.repeat(10_000)}i`, 8)).toBe('abcdefgh…');
  });

  it('counts characters, not UTF-16 units, so an emoji is never cut in half', () => {
    expect(snippetOf('😀😀😀😀', 3)).toBe('😀😀😀…');
    expect(snippetOf('😀😀😀', 3)).toBe('😀😀😀');
  });
});
