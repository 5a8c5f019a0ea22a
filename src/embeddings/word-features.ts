import { ANSWER_TYPES } from './answer-types';
import { IRREGULAR_FORMS } from './irregular-forms';
import { findConcepts } from './concept-index';
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
  /** A word in n groups gives each group conceptWeight / n^conceptSplit (0.5 keeps its total fixed). */
  conceptSplit: number;
  /** Weight of the answer type a word asks for or gives ("when" ~ "Tuesday", "how much" ~ "1,450"). */
  answerTypeWeight: number;
  /** Weight of adjacent content-word pairs, order ignored ("locker code" ~ "code of my locker"). */
  bigramWeight: number;
  /** Weight of function words relative to content words. */
  stopWeight: number;
  /** Weight of very common chat words relative to other content words. */
  commonWeight: number;
  /** Weight of numbers, which must match exactly (codes, dates, amounts). */
  numberWeight: number;
  /** Weight of the categories a word is a member of (paramedic ~ job), relative to conceptWeight. */
  categoryWeight: number;
  /** Weight of groups found through a one-letter typo (recieve ~ receive), relative to a sure match. */
  typoWeight: number;
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
  /** Bucket indices of the word's own features (word, n-grams, concepts, answer type). */
  indices: Int32Array;
  /** Signed values matching `indices`, the word's weight already applied. */
  values: Float64Array;
}

const NUMBER = /^[\p{N}.,:/-]+$/u;
// Numbers written with a unit or suffix: 11pm, 14th, 85k, 5km, 50mg.
const NUMBER_WITH_SUFFIX = /^\p{N}+(?:am|pm|st|nd|rd|th|k|m|bn|km|kg|mg|g|ml|l|h|s|x|%)$/u;
const CLOCK_TIME = /^\d{1,2}(?::\d\d|am|pm)$/;
const ORDINAL_OR_YEAR = /^(?:\d{1,2}(?:st|nd|rd|th)|(?:19|20)\d\d)$/;
let answerTypeIndex: Map<string, string> | null = null;

/** Computes the hashed features of one token under a tuning. */
export function wordFeatures(
  token: string,
  dimensions: number,
  tuning: LocalEmbedderTuning,
): WordFeatures {
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
  const isStop = STOP_WORDS.has(token);
  const isNumber = NUMBER.test(token) || NUMBER_WITH_SUFFIX.test(token);
  let weight: number;
  if (isStop) {
    weight = tuning.stopWeight;
    add(`w:${stem}`, weight * tuning.wordWeight);
  } else if (isNumber) {
    weight = tuning.numberWeight;
    add(`w:${token}`, weight * tuning.wordWeight);
  } else {
    weight = COMMON_WORDS.has(token) || COMMON_WORDS.has(canonical) ? tuning.commonWeight : 1;
    add(`w:${stem}`, weight * tuning.wordWeight);
    addNgrams(token, weight * tuning.ngramWeight, tuning, add);
    const { groups, typo } = findConcepts(token, stem, tuning.stemmer);
    const scale = typo ? tuning.typoWeight : 1;
    const each =
      (scale * weight * tuning.conceptWeight) / Math.pow(groups.length, tuning.conceptSplit);
    for (const group of groups) {
      add(`c:${group.key}`, group.category ? each * tuning.categoryWeight : each);
    }
  }
  const answerType = isNumber ? numberType(token) : answerTypes().get(token);
  // Not scaled by the word's weight: "when" is a stop word, yet it is what asks for a date.
  if (answerType !== undefined && tuning.answerTypeWeight > 0) {
    add(`t:${answerType}`, tuning.answerTypeWeight);
  }
  const indices = Int32Array.from(features.keys());
  const values = Float64Array.from(features.values());
  return { stem: isStop ? null : stem, weight, indices, values };
}

function numberType(token: string): string {
  return CLOCK_TIME.test(token) || ORDINAL_OR_YEAR.test(token) ? 'time' : 'amount';
}

function answerTypes(): Map<string, string> {
  if (answerTypeIndex) return answerTypeIndex;
  answerTypeIndex = new Map();
  for (const [type, words] of Object.entries(ANSWER_TYPES)) {
    for (const word of words.split(/\s+/)) if (word !== '') answerTypeIndex.set(word, type);
  }
  return answerTypeIndex;
}

function addNgrams(
  token: string,
  total: number,
  tuning: LocalEmbedderTuning,
  add: (feature: string, value: number) => void,
): void {
  if (total === 0) return;
  // Boundary markers make prefixes and suffixes their own features ("<un", "ing>").
  const marked = `<${token}>`;
  const ngrams: string[] = [];
  for (let size = tuning.ngramMin; size <= tuning.ngramMax; size++) {
    for (let start = 0; start + size <= marked.length; start++) {
      ngrams.push(marked.slice(start, start + size));
    }
  }
  // Long words have many n-grams; share one fixed weight so they do not drown the word itself.
  const each = total / Math.sqrt(Math.max(ngrams.length, 1));
  for (const ngram of ngrams) add(`g:${ngram}`, each);
}
