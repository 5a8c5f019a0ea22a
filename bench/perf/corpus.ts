/**
 * Seeded chat text for the performance benchmarks: everyday English sentences mixed with words
 * drawn from a Zipf-distributed vocabulary of made-up words, so full-text and vector search see
 * what a long real conversation gives them (common words everywhere, rare words in few turns).
 * Same seed, same text: no Math.random.
 */
import { FILLER_SENTENCES } from '../embedder-filler';

/** Distinct made-up words; their frequencies follow Zipf's law. */
const VOCABULARY_SIZE = 20_000;
const SYLLABLES = ['ka', 'lo', 'mi', 'ren', 'tas', 'vo', 'shi', 'ber', 'dun', 'ell', 'fa', 'gor', 'hin', 'jul', 'kem', 'lat', 'mor', 'nip', 'ost', 'pra', 'quil', 'rud', 'sen', 'tor', 'ulm', 'vex', 'wen', 'yor', 'zan', 'bri'];

/** Deterministic PRNG (mulberry32): a function returning floats in [0, 1). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = Math.imul(state ^ (state >>> 15), 1 | state);
    value ^= value + Math.imul(value ^ (value >>> 7), 61 | value);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

function makeVocabulary(): string[] {
  const words: string[] = [];
  const count = SYLLABLES.length;
  for (let index = 0; words.length < VOCABULARY_SIZE; index++) {
    let rest = index;
    let word = '';
    do {
      word += SYLLABLES[rest % count];
      rest = Math.floor(rest / count);
    } while (rest > 0);
    if (word.length >= 4) words.push(word);
  }
  return words;
}

const VOCABULARY = makeVocabulary();
// Cumulative Zipf weights (s = 1), searched by bisection.
const CUMULATIVE = (() => {
  const weights = new Float64Array(VOCABULARY_SIZE);
  let sum = 0;
  for (let rank = 0; rank < VOCABULARY_SIZE; rank++) {
    sum += 1 / (rank + 1);
    weights[rank] = sum;
  }
  for (let rank = 0; rank < VOCABULARY_SIZE; rank++) weights[rank]! /= sum;
  return weights;
})();

function zipfWord(next: () => number): string {
  const target = next();
  let low = 0;
  let high = VOCABULARY_SIZE - 1;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (CUMULATIVE[middle]! < target) low = middle + 1;
    else high = middle;
  }
  return VOCABULARY[low]!;
}

/** Writes chat turns: a user turn is 1-2 sentences, an answer 2-4, each with a few topic words. */
export class Corpus {
  private readonly next: () => number;

  constructor(seed: number) {
    this.next = seededRandom(seed);
  }

  /** The text of turn `index` of a conversation (even: user, odd: assistant). */
  turn(index: number): string {
    const sentences = index % 2 === 0 ? 1 + this.pick(2) : 2 + this.pick(3);
    const parts: string[] = [];
    for (let i = 0; i < sentences; i++) {
      const sentence = FILLER_SENTENCES[this.pick(FILLER_SENTENCES.length)]!;
      const words = Array.from({ length: 1 + this.pick(4) }, () => zipfWord(this.next));
      parts.push(`${sentence} ${words.join(' ')}.`);
    }
    return parts.join(' ');
  }

  /** A question a user might ask later: a sentence and a few topic words. */
  question(): string {
    return this.turn(0);
  }

  private pick(count: number): number {
    return Math.floor(this.next() * count);
  }
}
