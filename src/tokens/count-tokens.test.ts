import { describe, expect, it } from 'vitest';
import { countMessagesTokens, countSystemTokens, countTokens, countToolsTokens } from './count-tokens';

const prompt = 'You are a support assistant. Cite the ticket numbers you rely on and keep answers short. ';

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
    const tools = [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }];
    expect(countToolsTokens(tools)).toBe(countTokens(JSON.stringify(tools)));
    const lookalike = tools as unknown as Record<string, unknown>[];
    expect(countSystemTokens(lookalike)).toBe(countMessagesTokens(lookalike));
    expect(countToolsTokens(tools)).toBe(countTokens(JSON.stringify(tools)));
  });
});
