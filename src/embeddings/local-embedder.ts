import { toNumbers } from '../lists';
import type { Embedder } from './embedder';
import { featureBuckets } from './hash-feature';
import { tokenizeText } from './tokenize-text';
import { wordFeatures, type LocalEmbedderTuning, type WordFeatures } from './word-features';

export type { LocalEmbedderTuning } from './word-features';

/**
 * Bump whenever tokens, features, weights or any word table change: the model name is stored
 * with the vectors, and a new name makes ensureEmbeddingModel re-embed instead of mixing spaces.
 * The fingerprint test in local-embedder.test.ts fails until the version is bumped.
 */
export const LOCAL_EMBEDDER_VERSION = 1;

/** The tuning the `local` model uses (chosen by bench/embedder-quality.ts). */
export const DEFAULT_LOCAL_TUNING: Readonly<LocalEmbedderTuning> = {
  stemmer: 'porter',
  wordWeight: 1,
  ngramWeight: 0.6,
  ngramMin: 3,
  ngramMax: 5,
  conceptWeight: 2,
  conceptSplit: 0.5,
  answerTypeWeight: 0.5,
  bigramWeight: 0.5,
  stopWeight: 0.1,
  commonWeight: 0.5,
  numberWeight: 1.5,
  categoryWeight: 1,
  typoWeight: 0.7,
  hashes: 2,
  sublinearTf: true,
};

/** Options of the local embedder. */
export interface LocalEmbedderOptions {
  /** Vector length (default 384). */
  dimensions?: number;
  /** Overrides of the feature weights, for benchmarks; the model name then says "custom". */
  tuning?: Partial<LocalEmbedderTuning>;
}

// Words repeat across a conversation, so their features are cached; clearing at a bound keeps
// memory flat on long-running proxies without an LRU's bookkeeping on this hot path.
const WORD_CACHE_LIMIT = 50_000;
const EMPTY_TEXT_FEATURE = 'e:empty';

/**
 * The built-in offline embedder: signed feature hashing of stemmed words, character n-grams,
 * hand-written related-word and category groups, answer types and adjacent word pairs.
 * Deterministic, no model weights, about 0.05 ms per 50-word message.
 */
export class LocalEmbedder implements Embedder {
  readonly model: string;
  readonly dimensions: number;
  private readonly tuning: LocalEmbedderTuning;
  private readonly words = new Map<string, WordFeatures>();

  constructor(options: LocalEmbedderOptions = {}) {
    const dimensions = options.dimensions ?? 384;
    if (!Number.isInteger(dimensions) || dimensions < 8) {
      throw new Error(
        `LocalEmbedder needs whole-number dimensions of at least 8, got ${dimensions}`,
      );
    }
    this.dimensions = dimensions;
    this.tuning = { ...DEFAULT_LOCAL_TUNING, ...options.tuning };
    const custom = options.tuning !== undefined && Object.keys(options.tuning).length > 0;
    this.model = `local-v${LOCAL_EMBEDDER_VERSION}${custom ? '-custom' : ''}`;
  }

  /** Embeds texts in order (synchronously underneath; see embedText). */
  async embed(texts: string[]): Promise<number[][]> {
    return texts.map((text) => this.embedText(text));
  }

  /** Embeds one text: a unit vector of `dimensions` entries. */
  embedText(text: string): number[] {
    const vector = new Float64Array(this.dimensions);
    const tokens = tokenizeText(text);
    const counts = new Map<string, number>();
    for (const token of tokens) counts.set(token, (counts.get(token) ?? 0) + 1);
    for (const [token, count] of counts) {
      const features = this.features(token);
      const scale = this.tuning.sublinearTf ? 1 + Math.log(count) : count;
      for (let position = 0; position < features.indices.length; position++) {
        const index = features.indices[position] ?? 0;
        vector[index] = (vector[index] ?? 0) + (features.values[position] ?? 0) * scale;
      }
    }
    this.addPairs(tokens, vector);
    if (!normalize(vector)) {
      // Empty or punctuation-only text still needs a unit vector; all such texts share it.
      this.addFeature(vector, EMPTY_TEXT_FEATURE, 1);
      normalize(vector);
    }
    return toNumbers(vector);
  }

  private features(token: string): WordFeatures {
    let cached = this.words.get(token);
    if (cached === undefined) {
      if (this.words.size >= WORD_CACHE_LIMIT) this.words.clear();
      cached = wordFeatures(token, this.dimensions, this.tuning);
      this.words.set(token, cached);
    }
    return cached;
  }

  /** Adjacent content words as unordered pairs, function words skipped. */
  private addPairs(tokens: string[], vector: Float64Array): void {
    if (this.tuning.bigramWeight === 0) return;
    let previous: WordFeatures | null = null;
    for (const token of tokens) {
      const current = this.features(token);
      if (current.stem === null) continue;
      if (previous?.stem != null && previous.stem !== current.stem) {
        // The pair in code-unit order, as sort() would put it, without an array to sort.
        const first = previous.stem < current.stem ? previous.stem : current.stem;
        const second = first === previous.stem ? current.stem : previous.stem;
        const weight = this.tuning.bigramWeight * Math.sqrt(previous.weight * current.weight);
        this.addFeature(vector, `b:${first} ${second}`, weight);
      }
      previous = current;
    }
  }

  private addFeature(vector: Float64Array, feature: string, weight: number): void {
    const buckets = featureBuckets(feature, this.dimensions, this.tuning.hashes);
    const share = weight / Math.sqrt(buckets.indices.length);
    for (let position = 0; position < buckets.indices.length; position++) {
      const index = buckets.indices[position]!;
      vector[index] = (vector[index] ?? 0) + (buckets.signs[position] ?? 1) * share;
    }
  }
}

/** Scales a vector to unit length in place; false when it is all zeros. */
function normalize(vector: Float64Array): boolean {
  let sum = 0;
  for (const value of vector) sum += value * value;
  if (sum === 0) return false;
  const scale = 1 / Math.sqrt(sum);
  for (let index = 0; index < vector.length; index++) vector[index] = (vector[index] ?? 0) * scale;
  return true;
}
