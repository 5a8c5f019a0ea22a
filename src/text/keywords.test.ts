import { describe, expect, it } from 'vitest';
import { keywordsOf } from './keywords';

describe('keywordsOf', () => {
  it('searches a question by its content words, not the function words every turn has', () => {
    expect(keywordsOf('Can you remind me what the storage unit code was?')).toBe(
      'remind storage unit code',
    );
    expect(keywordsOf('Où est le café? 東京')).toBe('Où est le café 東京');
  });

  it('keeps a text of function words only as it is', () => {
    expect(keywordsOf('What was it?')).toBe('What was it?');
  });
});
