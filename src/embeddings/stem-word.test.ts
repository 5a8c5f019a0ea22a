import { describe, expect, it } from 'vitest';
import { stemWord } from './stem-word';

describe('stemWord', () => {
  it('brings inflected and derived forms of a word together', () => {
    expect(new Set(['run', 'runs', 'running'].map((word) => stemWord(word)))).toEqual(
      new Set(['run']),
    );
    expect(
      new Set(['connect', 'connected', 'connection', 'connecting'].map((word) => stemWord(word))),
    ).toEqual(new Set(['connect']));
    expect(stemWord('puppies')).toBe(stemWord('puppy'));
    expect(stemWord('adoption')).toBe(stemWord('adopted'));
  });

  it('follows the published Porter examples', () => {
    const examples: Record<string, string> = {
      caresses: 'caress',
      ponies: 'poni',
      agreed: 'agre',
      hopping: 'hop',
      filing: 'file',
      happy: 'happi',
      relational: 'relat',
      hopefulness: 'hope',
      electrical: 'electr',
      adjustment: 'adjust',
      controll: 'control',
      generalizations: 'gener',
    };
    for (const [word, stem] of Object.entries(examples)) expect(stemWord(word), word).toBe(stem);
  });

  it('leaves short words, numbers and non-English words alone', () => {
    expect(stemWord('is')).toBe('is');
    expect(stemWord('4812')).toBe('4812');
    expect(stemWord('café')).toBe('café');
    expect(stemWord('running', 'none')).toBe('running');
    expect(stemWord('connections', 'light')).toBe('connection');
  });
});
