import { createHash } from 'node:crypto';
import type { Embedder } from './embedder';
import {
  EmbeddingRequestError,
  requestEmbeddings,
  safeUrl,
  type EmbeddingRequestOptions,
} from './request-embeddings';
import { LruCache } from './lru-cache';

/** Options of the OpenAI-compatible embedder. */
export interface OpenAIEmbedderOptions {
  /** Model name sent upstream and recorded with the vectors (EMBEDDING_MODEL). */
  model: string;
  /** Base URL of an OpenAI-compatible API; `/embeddings` is appended (EMBEDDING_BASE_URL). */
  baseUrl: string;
  /** Bearer token; null sends no Authorization header (local servers such as Ollama). */
  apiKey: string | null;
  /** Vector length expected back (EMBEDDING_DIMENSIONS). */
  dimensions: number;
  /** Ask the server to shorten vectors to `dimensions` (default true; dropped if the model rejects it). */
  sendDimensions?: boolean;
  /** Most inputs per request (default 96). */
  maxBatchSize?: number;
  /** Most characters per request, so one call stays under provider token limits (default 200,000). */
  maxBatchChars?: number;
  /** Longer inputs are cut to this many characters (default 16,000, about a 4,000-token chunk). */
  maxInputChars?: number;
  /** Retries of a 408/409/429/5xx answer or a network error (default 4). */
  maxRetries?: number;
  /** First backoff delay, doubled per retry, in ms (default 500). */
  baseDelayMs?: number;
  /** Longest wait between attempts, retry-after included, in ms (default 30,000). */
  maxDelayMs?: number;
  /** Time limit of one request in ms (default 60,000). */
  timeoutMs?: number;
  /** Vectors kept in memory by model, dimensions and text hash (default 2,000). */
  cacheSize?: number;
  /** Waits between attempts; replaced in tests. */
  sleep?: (milliseconds: number) => Promise<void>;
}

/**
 * Embeds through any OpenAI-compatible `POST /embeddings` with global fetch: batched, retried
 * with backoff, cached, and checked for the configured dimensions.
 */
export class OpenAIEmbedder implements Embedder {
  readonly model: string;
  readonly dimensions: number;
  private request: EmbeddingRequestOptions;
  private readonly maxBatchSize: number;
  private readonly maxBatchChars: number;
  private readonly maxInputChars: number;
  private readonly cache: LruCache<string, number[]>;

  constructor(options: OpenAIEmbedderOptions) {
    if (!Number.isInteger(options.dimensions) || options.dimensions < 1) {
      throw new Error(`OpenAIEmbedder needs whole-number dimensions, got ${options.dimensions}`);
    }
    // fetch refuses URLs with user:password, so every call would fail as "unreachable".
    if (/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(options.baseUrl)) {
      throw new Error(
        `The embeddings base URL ${safeUrl(options.baseUrl)} must not contain credentials; ` +
          'put the key in EMBEDDING_API_KEY instead',
      );
    }
    this.model = options.model;
    this.dimensions = options.dimensions;
    this.maxBatchSize = Math.max(1, options.maxBatchSize ?? 96);
    this.maxBatchChars = Math.max(1, options.maxBatchChars ?? 200_000);
    this.maxInputChars = Math.max(1, options.maxInputChars ?? 16_000);
    this.cache = new LruCache(options.cacheSize ?? 2_000);
    this.request = {
      url: `${options.baseUrl.replace(/\/+$/, '')}/embeddings`,
      apiKey: options.apiKey,
      model: options.model,
      dimensions: options.dimensions,
      sendDimensions: options.sendDimensions ?? true,
      maxRetries: options.maxRetries ?? 4,
      baseDelayMs: options.baseDelayMs ?? 500,
      maxDelayMs: options.maxDelayMs ?? 30_000,
      timeoutMs: options.timeoutMs ?? 60_000,
      sleep:
        options.sleep ??
        ((milliseconds) => new Promise((resolve) => setTimeout(resolve, milliseconds))),
    };
  }

  /** Embeds texts in order; cached texts cost nothing, repeated texts are sent once. */
  async embed(texts: string[]): Promise<number[][]> {
    const results: (number[] | null)[] = texts.map(() => null);
    const missing = new Map<string, { text: string; positions: number[] }>();
    texts.forEach((text, position) => {
      if (text.trim() === '') {
        // Providers reject empty input; a basis vector is unit length and close to nothing real.
        results[position] = this.emptyVector();
        return;
      }
      const key = this.cacheKey(text);
      const cached = this.cache.get(key);
      if (cached) {
        results[position] = [...cached];
        return;
      }
      const entry = missing.get(key) ?? { text, positions: [] };
      entry.positions.push(position);
      missing.set(key, entry);
    });
    for (const batch of this.batches([...missing.entries()])) {
      const vectors = await this.send(
        batch.map(([, entry]) => entry.text.slice(0, this.maxInputChars)),
      );
      batch.forEach(([key, entry], index) => {
        const vector = vectors[index] ?? [];
        this.cache.set(key, vector);
        for (const position of entry.positions) results[position] = [...vector];
      });
    }
    return results.map((vector) => vector ?? this.emptyVector());
  }

  private async send(inputs: string[]): Promise<number[][]> {
    try {
      return await requestEmbeddings(this.request, inputs);
    } catch (error) {
      // Models without shortening (text-embedding-ada-002, many local servers) answer 400 to the
      // dimensions field; ask again without it, and the length check says if EMBEDDING_DIMENSIONS fits.
      const rejectsDimensions =
        error instanceof EmbeddingRequestError &&
        error.status === 400 &&
        /dimensions/i.test(error.message);
      if (!rejectsDimensions || !this.request.sendDimensions) throw error;
      this.request = { ...this.request, sendDimensions: false };
      return requestEmbeddings(this.request, inputs);
    }
  }

  private *batches<T extends [string, { text: string }]>(entries: T[]): Generator<T[]> {
    let batch: T[] = [];
    let characters = 0;
    for (const entry of entries) {
      const length = Math.min(entry[1].text.length, this.maxInputChars);
      if (
        batch.length > 0 &&
        (batch.length >= this.maxBatchSize || characters + length > this.maxBatchChars)
      ) {
        yield batch;
        batch = [];
        characters = 0;
      }
      batch.push(entry);
      characters += length;
    }
    if (batch.length > 0) yield batch;
  }

  private cacheKey(text: string): string {
    const hash = createHash('sha256').update(text).digest('base64url');
    return `${this.model}\u0000${this.dimensions}\u0000${hash}`;
  }

  private emptyVector(): number[] {
    const vector = new Array<number>(this.dimensions).fill(0);
    vector[0] = 1;
    return vector;
  }
}
