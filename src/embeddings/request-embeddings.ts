import { toNumbers } from '../lists';
import { decodeBase64Vector } from '../store/vector-codec';

/** How to reach an OpenAI-compatible embeddings endpoint and how hard to retry it. */
export interface EmbeddingRequestOptions {
  /** Full URL of the endpoint, `.../embeddings`. */
  url: string;
  apiKey: string | null;
  model: string;
  dimensions: number;
  /** Send `dimensions` in the body (models without shortening reject it). */
  sendDimensions: boolean;
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  timeoutMs: number;
  sleep: (milliseconds: number) => Promise<void>;
}

/** An embeddings call that failed for good; the message never contains the API key. */
export class EmbeddingRequestError extends Error {
  constructor(
    message: string,
    /** HTTP status of the last answer; null when the server was never reached. */
    readonly status: number | null,
  ) {
    super(message);
    this.name = 'EmbeddingRequestError';
  }
}

// The statuses OpenAI's own SDK retries: timeouts, lock conflicts, rate limits, server errors.
const RETRYABLE_STATUS = new Set([408, 409, 429, 500, 502, 503, 504]);

/** Posts one batch and returns its vectors in input order, unit length, checked for dimensions. */
export async function requestEmbeddings(
  options: EmbeddingRequestOptions,
  inputs: string[],
): Promise<number[][]> {
  const body = JSON.stringify({
    model: options.model,
    input: inputs,
    ...(options.sendDimensions ? { dimensions: options.dimensions } : {}),
  });
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (options.apiKey !== null) headers['authorization'] = `Bearer ${options.apiKey}`;
  const where = `embedding model "${options.model}" at ${safeUrl(options.url)}`;
  for (let attempt = 0; ; attempt++) {
    let response: Response;
    try {
      response = await fetch(options.url, {
        method: 'POST',
        headers,
        body,
        signal: AbortSignal.timeout(options.timeoutMs),
      });
    } catch (error) {
      const reason = redact(describe(error), options.apiKey);
      if (attempt >= options.maxRetries) {
        throw new EmbeddingRequestError(
          `${where} is unreachable after ${attempt + 1} attempts: ${reason}`,
          null,
        );
      }
      await options.sleep(backoff(options, attempt));
      continue;
    }
    if (response.ok) {
      return parseVectors(await readJson(response, where), inputs.length, options, where);
    }
    const { message, code } = await errorDetail(response);
    const detail = redact(message, options.apiKey);
    // OpenAI answers 429 both for "slow down" and for an exhausted quota; only the first passes.
    const retryable = RETRYABLE_STATUS.has(response.status) && code !== 'insufficient_quota';
    if (!retryable || attempt >= options.maxRetries) {
      const tries = attempt > 0 ? ` after ${attempt + 1} attempts` : '';
      throw new EmbeddingRequestError(
        `${where} answered ${response.status}${tries}: ${detail}`,
        response.status,
      );
    }
    const delay = retryAfter(response.headers) ?? backoff(options, attempt);
    if (delay > options.maxDelayMs) {
      throw new EmbeddingRequestError(
        `${where} asked to retry after ${Math.ceil(delay / 1000)} s, longer than the ${options.maxDelayMs} ms this proxy waits: ${detail}`,
        response.status,
      );
    }
    await options.sleep(delay);
  }
}

function parseVectors(
  json: unknown,
  count: number,
  options: EmbeddingRequestOptions,
  where: string,
): number[][] {
  const data = (json as { data?: unknown } | null)?.data;
  if (!Array.isArray(data) || data.length !== count) {
    throw new EmbeddingRequestError(
      `${where} returned ${Array.isArray(data) ? data.length : 'no'} embeddings for ${count} inputs`,
      200,
    );
  }
  const vectors: number[][] = new Array<number[]>(count);
  data.forEach((item: { index?: unknown; embedding?: unknown }, position) => {
    const index = typeof item.index === 'number' ? item.index : position;
    const vector = vectorOf(item.embedding);
    if (vector === null || index < 0 || index >= count) {
      throw new EmbeddingRequestError(
        `${where} returned a malformed embedding at position ${position}`,
        200,
      );
    }
    if (vector.length !== options.dimensions) {
      throw new EmbeddingRequestError(
        `${where} returned ${vector.length}-dimensional vectors but EMBEDDING_DIMENSIONS is ${options.dimensions}; ` +
          `set EMBEDDING_DIMENSIONS=${vector.length} or use a model that accepts the dimensions parameter`,
        200,
      );
    }
    vectors[index] = normalize(vector, where);
  });
  return vectors;
}

/** Float arrays as JSON, or base64 little-endian float32 as some servers send by default. */
function vectorOf(embedding: unknown): number[] | null {
  if (Array.isArray(embedding))
    return embedding.every((value) => typeof value === 'number' && Number.isFinite(value))
      ? embedding
      : null;
  if (typeof embedding !== 'string') return null;
  const values = decodeBase64Vector(embedding);
  return values === null ? null : toNumbers(values);
}

function normalize(vector: number[], where: string): number[] {
  const norm = Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0));
  if (norm === 0) throw new EmbeddingRequestError(`${where} returned an all-zero vector`, 200);
  return vector.map((value) => value / norm);
}

/** Exponential backoff with jitter: base * 2^attempt, up to a quarter shorter, capped. */
function backoff(options: EmbeddingRequestOptions, attempt: number): number {
  const delay = Math.min(options.baseDelayMs * 2 ** attempt, options.maxDelayMs);
  return Math.round(delay * (1 - Math.random() * 0.25));
}

/** `retry-after-ms` (OpenAI) or `retry-after` in seconds or as an HTTP date, in ms. */
function retryAfter(headers: Headers): number | null {
  const milliseconds = Number(headers.get('retry-after-ms') ?? Number.NaN);
  if (Number.isFinite(milliseconds) && milliseconds >= 0) return milliseconds;
  const value = headers.get('retry-after');
  if (value === null) return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - Date.now());
}

async function readJson(response: Response, where: string): Promise<unknown> {
  try {
    return await response.json();
  } catch {
    throw new EmbeddingRequestError(
      `${where} answered ${response.status} with a body that is not JSON`,
      response.status,
    );
  }
}

/** The message and code of an OpenAI-style error body, else the start of the body. */
async function errorDetail(response: Response): Promise<{ message: string; code: string | null }> {
  const text = await response.text().catch(() => '');
  try {
    const error = (JSON.parse(text) as { error?: { message?: unknown; code?: unknown } }).error;
    const code = typeof error?.code === 'string' ? error.code : null;
    if (typeof error?.message === 'string') return { message: error.message, code };
  } catch {
    // Not JSON: some gateways answer with HTML or plain text.
  }
  return { message: text.slice(0, 300) || response.statusText || 'no details', code: null };
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error.name === 'TimeoutError') return 'timed out';
  const cause = error.cause instanceof Error ? ` (${error.cause.message})` : '';
  return `${error.message}${cause}`;
}

/** Removes the key itself and anything shaped like an API key (servers echo them in 401s). */
function redact(text: string, apiKey: string | null): string {
  // Keys shorter than 4 characters are placeholders (local servers), not secrets worth garbling text for.
  let result = apiKey !== null && apiKey.length >= 4 ? text.split(apiKey).join('[redacted]') : text;
  result = result.replace(/\b(sk|pk|rk)-[A-Za-z0-9_*.-]{6,}/g, '[redacted]');
  return result;
}

/** The URL without user:password, so credentials in EMBEDDING_BASE_URL stay out of errors. */
export function safeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.toString();
  } catch {
    return '[invalid url]';
  }
}
