/**
 * Unicode-aware word splitting for the local embedder: case and accents folded, English
 * contractions opened up, numbers such as 1,450 / 7:40 / 555-0142 kept whole so they match exactly.
 */

const COMBINING_MARKS = /\p{M}+/gu;
const APOSTROPHES = /[\u2018\u2019\u02bc`\u00b4]/g;
const THOUSANDS_SEPARATOR = /(\d),(?=\d{3}(?!\d))/g;
const TOKEN = /[\p{L}\p{N}]+(?:[.,:/-]\p{N}+)*/gu;
// Scripts written without spaces: each character becomes a token, and the embedder's adjacent-word
// pairs then give the character bigrams that work well for them.
const UNSPACED_SCRIPT = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}]/u;

/** Lowercases, strips diacritics (NFKD), opens contractions and splits a text into word and number tokens. */
export function tokenizeText(text: string): string[] {
  const folded = text
    .normalize('NFKD')
    .replace(COMBINING_MARKS, '')
    .toLowerCase()
    .replace(APOSTROPHES, "'")
    .replace(/\bwon't\b/g, 'will not')
    .replace(/\bcan't\b/g, 'can not')
    .replace(/n't\b/g, ' not')
    .replace(/'(?:s|re|ve|ll|d|m)\b/g, ' ')
    .replace(THOUSANDS_SEPARATOR, '$1');
  const words: string[] = [];
  for (const match of folded.matchAll(TOKEN)) {
    if (UNSPACED_SCRIPT.test(match[0])) pushUnspaced(match[0], words);
    else words.push(match[0]);
  }
  return words;
}

function pushUnspaced(token: string, words: string[]): void {
  let run = '';
  for (const character of token) {
    if (UNSPACED_SCRIPT.test(character)) {
      if (run !== '') words.push(run);
      run = '';
      words.push(character);
    } else {
      run += character;
    }
  }
  if (run !== '') words.push(run);
}
