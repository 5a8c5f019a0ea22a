/**
 * A compact Porter (1980) stemmer for English: run/runs/running meet at "run", connect/
 * connection/connected at "connect". Written from the published algorithm description.
 */

/** How far stemWord strips suffixes: 'porter' runs every step, 'light' only plurals and -ed/-ing. */
export type StemLevel = 'porter' | 'light' | 'none';

/** Reduces a lowercase English word to its stem; words under 3 letters and non-ASCII words are kept. */
export function stemWord(word: string, level: StemLevel = 'porter'): string {
  if (level === 'none' || word.length < 3 || !/^[a-z]+$/.test(word)) return word;
  let stem = step1a(word);
  stem = step1b(stem);
  stem = step1c(stem);
  if (level === 'light') return stem;
  stem = replaceSuffix(stem, STEP2, 0);
  stem = replaceSuffix(stem, STEP3, 0);
  stem = step4(stem);
  return step5(stem);
}

const STEP2: readonly (readonly [string, string])[] = [
  ['ational', 'ate'],
  ['tional', 'tion'],
  ['enci', 'ence'],
  ['anci', 'ance'],
  ['izer', 'ize'],
  ['bli', 'ble'],
  ['alli', 'al'],
  ['entli', 'ent'],
  ['eli', 'e'],
  ['ousli', 'ous'],
  ['ization', 'ize'],
  ['ation', 'ate'],
  ['ator', 'ate'],
  ['alism', 'al'],
  ['iveness', 'ive'],
  ['fulness', 'ful'],
  ['ousness', 'ous'],
  ['aliti', 'al'],
  ['iviti', 'ive'],
  ['biliti', 'ble'],
  ['logi', 'log'],
];

const STEP3: readonly (readonly [string, string])[] = [
  ['icate', 'ic'],
  ['ative', ''],
  ['alize', 'al'],
  ['iciti', 'ic'],
  ['ical', 'ic'],
  ['ful', ''],
  ['ness', ''],
];

const STEP4 = [
  'al',
  'ance',
  'ence',
  'er',
  'ic',
  'able',
  'ible',
  'ant',
  'ement',
  'ment',
  'ent',
  'ion',
  'ou',
  'ism',
  'ate',
  'iti',
  'ous',
  'ive',
  'ize',
] as const;

function isConsonant(word: string, index: number): boolean {
  const letter = word.charAt(index);
  if ('aeiou'.includes(letter)) return false;
  // 'y' after a consonant acts as a vowel (happy, sky), after a vowel as a consonant (toy).
  if (letter === 'y') return index === 0 || !isConsonant(word, index - 1);
  return true;
}

/** Porter's m: the number of vowel-consonant sequences in the stem. */
function measure(stem: string): number {
  let count = 0;
  let index = 0;
  while (index < stem.length && isConsonant(stem, index)) index++;
  while (index < stem.length) {
    while (index < stem.length && !isConsonant(stem, index)) index++;
    if (index >= stem.length) break;
    while (index < stem.length && isConsonant(stem, index)) index++;
    count++;
  }
  return count;
}

function hasVowel(stem: string): boolean {
  for (let index = 0; index < stem.length; index++) if (!isConsonant(stem, index)) return true;
  return false;
}

function endsDoubleConsonant(word: string): boolean {
  const last = word.length - 1;
  return last > 0 && word.charAt(last) === word.charAt(last - 1) && isConsonant(word, last);
}

/** Consonant-vowel-consonant ending, the last not w, x or y (hop, but not snow). */
function endsCvc(word: string): boolean {
  const last = word.length - 1;
  if (last < 2) return false;
  if (!isConsonant(word, last) || isConsonant(word, last - 1) || !isConsonant(word, last - 2))
    return false;
  return !'wxy'.includes(word.charAt(last));
}

function replaceSuffix(
  word: string,
  rules: readonly (readonly [string, string])[],
  minMeasure: number,
): string {
  for (const [suffix, replacement] of rules) {
    if (!word.endsWith(suffix)) continue;
    const stem = word.slice(0, -suffix.length);
    return measure(stem) > minMeasure ? stem + replacement : word;
  }
  return word;
}

function step1a(word: string): string {
  if (word.endsWith('sses')) return word.slice(0, -2);
  if (word.endsWith('ies')) return word.slice(0, -2);
  if (word.endsWith('ss')) return word;
  if (word.endsWith('s')) return word.slice(0, -1);
  return word;
}

function step1b(word: string): string {
  if (word.endsWith('eed')) return measure(word.slice(0, -3)) > 0 ? word.slice(0, -1) : word;
  let stem: string;
  if (word.endsWith('ed') && hasVowel(word.slice(0, -2))) stem = word.slice(0, -2);
  else if (word.endsWith('ing') && hasVowel(word.slice(0, -3))) stem = word.slice(0, -3);
  else return word;
  if (stem.endsWith('at') || stem.endsWith('bl') || stem.endsWith('iz')) return stem + 'e';
  if (endsDoubleConsonant(stem) && !'lsz'.includes(stem.charAt(stem.length - 1)))
    return stem.slice(0, -1);
  if (measure(stem) === 1 && endsCvc(stem)) return stem + 'e';
  return stem;
}

function step1c(word: string): string {
  return word.endsWith('y') && hasVowel(word.slice(0, -1)) ? word.slice(0, -1) + 'i' : word;
}

function step4(word: string): string {
  // Longest suffix first, as the algorithm requires (ement before ment before ent).
  let best = '';
  for (const suffix of STEP4)
    if (word.endsWith(suffix) && suffix.length > best.length) best = suffix;
  if (best === '') return word;
  const stem = word.slice(0, -best.length);
  if (measure(stem) <= 1) return word;
  if (best === 'ion' && !(stem.endsWith('s') || stem.endsWith('t'))) return word;
  return stem;
}

function step5(word: string): string {
  let stem = word;
  if (stem.endsWith('e')) {
    const base = stem.slice(0, -1);
    const m = measure(base);
    if (m > 1 || (m === 1 && !endsCvc(base))) stem = base;
  }
  if (measure(stem) > 1 && endsDoubleConsonant(stem) && stem.endsWith('l'))
    stem = stem.slice(0, -1);
  return stem;
}
