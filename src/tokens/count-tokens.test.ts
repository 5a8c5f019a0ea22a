import { countTokens as countWhole, encode } from 'gpt-tokenizer';
import { describe, expect, it } from 'vitest';
import {
  countMessagesTokens,
  countSystemTokens,
  countTokens,
  countToolsTokens,
  encodeTokens,
} from './count-tokens';

const prompt =
  'You are a support assistant. Cite the ticket numbers you rely on and keep answers short. ';

describe('counts of what a client resends with every request', () => {
  it('counts system messages as countMessagesTokens does, and follows an edited prompt at once', () => {
    const first = [{ role: 'system', content: prompt.repeat(20) }];
    const expected = countMessagesTokens(first);
    expect(countSystemTokens(first)).toBe(expected);
    expect(countSystemTokens(first)).toBe(expected);
    // One more sentence: a remembered count of the old prompt would be short by its tokens.
    const edited = [{ role: 'system', content: `${prompt.repeat(20)}Answer in French.` }];
    expect(countSystemTokens(edited)).toBe(countMessagesTokens(edited));
    expect(countSystemTokens(edited)).toBeGreaterThan(expected);
    const withDeveloper = [...first, { role: 'developer', content: 'Use metric units.' }];
    expect(countSystemTokens(withDeveloper)).toBe(countMessagesTokens(withDeveloper));
    expect(countSystemTokens([])).toBe(countMessagesTokens([]));
  });

  it('counts a system prompt too long to remember every time, and right', () => {
    const long = [{ role: 'system', content: prompt.repeat(2_000) }];
    expect(countSystemTokens(long)).toBe(countMessagesTokens(long));
    expect(countSystemTokens(long)).toBeGreaterThan(30_000);
  });

  it('keeps tools and system messages apart even when their JSON is the same', () => {
    const tools = [
      { type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } },
    ];
    expect(countToolsTokens(tools)).toBe(countTokens(JSON.stringify(tools)));
    const lookalike = tools as unknown as Record<string, unknown>[];
    expect(countSystemTokens(lookalike)).toBe(countMessagesTokens(lookalike));
    expect(countToolsTokens(tools)).toBe(countTokens(JSON.stringify(tools)));
  });
});

/** Texts of every kind the tokenizer cuts differently: words, numbers, scripts, whitespace. */
function variedTexts(): string[] {
  let seed = 11;
  const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
  const parts = [
    'The',
    ' quick',
    ' brown',
    "fox's",
    " they'LL",
    " we've",
    'quilmormi',
    ' renhinlo',
    'ULID',
    '01JDX4K8Z9QW3E5R7T2Y6U8I0P',
    '2026-11-27 22:47',
    '1234567',
    ' 3.14159',
    '$4,500.00',
    '...',
    '!?',
    ' "quoted"',
    '\\n',
    '{"role":"user","content":"hi"}',
    'const x = a[i] ?? b;',
    '\t',
    '  ',
    '   ',
    '\n',
    '\r\n',
    '\n\n\n',
    ' \n ',
    'naïve',
    ' café',
    'Ærøskøbing',
    '東京で会議',
    ' 데이터베이스',
    'مرحبا',
    ' Привет',
    'e\u0301',
    '👍',
    ' 👩‍💻',
    '🇫🇷',
    '\ud800',
    '<|endoftext|>',
    '<|im_start|>',
    'http://example.com/a/b?c=d',
    ' ALLCAPS',
    'camelCaseWord',
    '___',
    'abcdefghij'.repeat(8),
    '-'.repeat(80),
    '//\n',
  ];
  return Array.from({ length: 400 }, () => {
    const length = 1 + Math.floor(next() * 40);
    return Array.from({ length }, () => parts[Math.floor(next() * parts.length)]).join('');
  });
}

/** gpt-tokenizer's options for text that may quote special-token markers. */
const PLAIN = { disallowedSpecial: new Set<string>() };

describe('token counts', () => {
  it('count and encode every kind of text as the tokenizer does the whole text, cached or not', () => {
    const texts = ['', ...variedTexts()];
    for (let pass = 0; pass < 2; pass++) {
      for (const text of texts) {
        const whole = encode(text, PLAIN);
        expect(encodeTokens(text)).toEqual(whole);
        expect(countTokens(text)).toBe(whole.length);
      }
    }
    const marker = '<|endoftext|> and 01JDX4K8Z9QW';
    expect(countTokens(marker)).toBe(countWhole(marker, PLAIN));
  });
});
