import { CONCEPT_GROUPS, IRREGULAR_FORMS } from './concept-groups';
import { featureBuckets } from './hash-feature';
import { stemWord, type StemLevel } from './stem-word';
import { COMMON_WORDS, STOP_WORDS } from './stop-words';

/** The knobs of the local embedder's features; the defaults were chosen by bench/embedder-quality.ts. */
export interface LocalEmbedderTuning {
  /** How hard words are stemmed before they are compared. */
  stemmer: StemLevel;
  /** Weight of the exact (stemmed) word. */
  wordWeight: number;
  /** Total weight of a word's character n-grams (typos, morphology, compounds). */
  ngramWeight: number;
  ngramMin: number;
  ngramMax: number;
  /** Weight of the related-word groups a word belongs to (car ~ vehicle). */
  conceptWeight: number;
  /** Weight of adjacent content-word pairs, order ignored ("locker code" ~ "code of my locker"). */
  bigramWeight: number;
  /** Weight of function words relative to content words. */
  stopWeight: number;
  /** Weight of very common chat words relative to other content words. */
  commonWeight: number;
  /** Weight of numbers, which must match exactly (codes, dates, amounts). */
  numberWeight: number;
  /** Buckets per feature in the signed hash. */
  hashes: 1 | 2;
  /** Repeated words count 1 + ln(count) times instead of count times. */
  sublinearTf: boolean;
}

/** Everything the embedder needs to know about one token, computed once and cached. */
export interface WordFeatures {
  /** The form adjacent-pair features are built from; null for function words. */
  stem: string | null;
  /** The token's weight among the words of a text (function words low, numbers high). */
  weight: number;
  /** Bucket indices of the word's own features (word, n-grams, concepts). */
  indices: Int32Array;
  /** Signed values matching `indices`, already scaled by `weight`. */
  values: Float64Array;
}

const NUMBER = /^[\p{N}.,:/-]+$/u;
const conceptIndexes = new Map<StemLevel, Map<string, string[]>>();

/** Computes the hashed features of one token under a tuning. */
export function wordFeatures(token: string, dimensions: number, tuning: LocalEmbedderTuning): WordFeatures {
  const features = new Map<number, number>();
  const add = (feature: string, value: number): void => {
    const buckets = featureBuckets(feature, dimensions, tuning.hashes);
    const share = value / Math.sqrt(buckets.indices.length);
    buckets.indices.forEach((index, position) => {
      const sign = buckets.signs[position] ?? 1;
      features.set(index, (features.get(index) ?? 0) + sign * share);
    });
  };
  const canonical = IRREGULAR_FORMS[token] ?? token;
  const stem = stemWord(canonical, tuning.stemmer);
  let weight: number;
  if (STOP_WORDS.has(token)) {
    weight = tuning.stopWeight;
    add(`w:${stem}`, tuning.wordWeight);
  } else if (NUMBER.test(token)) {
    weight = tuning.numberWeight;
    add(`w:${token}`, tuning.wordWeight);
  } else {
    weight = COMMON_WORDS.has(token) || COMMON_WORDS.has(canonical) ? tuning.commonWeight : 1;
    add(`w:${stem}`, tuning.wordWeight);
    addNgrams(token, tuning, add);
    const groups = conceptIndex(tuning.stemmer).get(stem) ?? [];
    for (const group of groups) add(`c:${group}`, tuning.conceptWeight / Math.sqrt(groups.length));
  }
  const indices = Int32Array.from(features.keys());
  const values = Float64Array.from(features.values(), (value) => value * weight);
  return { stem: STOP_WORDS.has(token) ? null : stem, weight, indices, values };
}

function addNgrams(
  token: string,
  tuning: LocalEmbedderTuning,
  add: (feature: string, value: number) => void,
): void {
  if (tuning.ngramWeight === 0) return;
  // Boundary markers make prefixes and suffixes their own features ("<un", "ing>").
  const marked = `<${token}>`;
  const ngrams: string[] = [];
  for (let size = tuning.ngramMin; size <= tuning.ngramMax; size++) {
    for (let start = 0; start + size <= marked.length; start++) ngrams.push(marked.slice(start, start + size));
  }
  // Long words have many n-grams; share one fixed weight so they do not drown the word itself.
  const each = tuning.ngramWeight / Math.sqrt(Math.max(ngrams.length, 1));
  for (const ngram of ngrams) add(`g:${ngram}`, each);
}

/**
 * Stem -> the concept groups it belongs to, built once per stemmer level. A group is keyed by its
 * own text, so adding a group elsewhere in the table leaves other groups' features unchanged.
 */
function conceptIndex(level: StemLevel): Map<string, string[]> {
  const cached = conceptIndexes.get(level);
  if (cached) return cached;
  const index = new Map<string, string[]>();
  for (const group of CONCEPT_GROUPS) {
    for (const word of group.split(' ')) {
      if (word === '') continue;
      const key = stemWord(IRREGULAR_FORMS[word] ?? word, level);
      const groups = index.get(key) ?? [];
      if (!groups.includes(group)) groups.push(group);
      index.set(key, groups);
    }
  }
  conceptIndexes.set(level, index);
  return index;
}
