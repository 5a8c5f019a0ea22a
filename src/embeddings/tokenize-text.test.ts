import { describe, expect, it } from 'vitest';
import { tokenizeText } from './tokenize-text';

describe('tokenizeText', () => {
  it('keeps numbers, times, phone numbers and amounts whole', () => {
    expect(tokenizeText('Call 555-0142 at 7:40, budget 1,450 or 3.5 days')).toEqual([
      'call',
      '555-0142',
      'at',
      '7:40',
      'budget',
      '1450',
      'or',
      '3.5',
      'days',
    ]);
  });

  it('folds case and accents and opens contractions', () => {
    expect(tokenizeText('Tomás’s CAFÉ isn’t open; we can’t go')).toEqual([
      'tomas',
      'cafe',
      'is',
      'not',
      'open',
      'we',
      'can',
      'not',
      'go',
    ]);
  });

  it('splits unspaced scripts into characters and keeps other scripts as words', () => {
    expect(tokenizeText('我的猫 Привет мир')).toEqual(['我', '的', '猫', 'привет', 'мир']);
  });
});
