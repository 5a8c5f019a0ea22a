import { createHash } from 'node:crypto';
import { InvalidRequestError, ProxyError } from '../errors';
import type { Logger } from '../logger';
import { ChatAccumulator } from '../proxy/chat-accumulator';
import type { ChatOutcome } from '../proxy/chat-pipeline';
import { completionFrames } from '../proxy/completion-frames';
import type { MemoryStore } from '../store/memory-store';
import type { Scope } from '../store/types';

/** Idempotency keys as clients send them (Stripe-style): printable ASCII, no spaces. */
const KEY = /^[\x21-\x7e]{1,255}$/;
/** Response headers worth replaying with a stored answer (the memory figures of the first call). */
const REPLAYED_HEADER = /^x-memory-|^openai-/;

/** What is stored under a key. */
interface StoredReply {
  /** Hash of the request body without its stream options: a key reused for another request is refused. */
  fingerprint: string;
  headers: Record<string, string>;
  completion: Record<string, unknown>;
}

/** What the replies need. */
export interface IdempotentRepliesDeps {
  store: MemoryStore;
  logger: Logger;
  ttlSeconds: number;
  now: () => number;
  onReplay?: () => void;
}

/** One request that carries an Idempotency-Key. */
export interface IdempotentRequest {
  scope: Scope;
  key: string;
  body: Record<string, unknown>;
  requestId: string;
}

/**
 * Idempotency-Key support for chat completions: the finished answer of a request is stored
 * under its key (per scope, for the TTL), and a retry with the same key gets that answer again,
 * as JSON or replayed as a stream, without calling upstream or storing anything twice. A retry
 * that arrives while the first request still runs gets 409; failed answers are not stored, so
 * their retries run again.
 */
export class IdempotentReplies {
  private readonly inFlight = new Set<string>();

  constructor(private readonly deps: IdempotentRepliesDeps) {}

  /** The Idempotency-Key header checked, or null when the request has none. */
  static keyOf(header: string | undefined): string | null {
    if (header === undefined) return null;
    if (!KEY.test(header)) {
      throw new InvalidRequestError(
        'Idempotency-Key must be 1-255 printable ASCII characters without spaces.',
        { param: 'Idempotency-Key', code: 'invalid_idempotency_key' },
      );
    }
    return header;
  }

  /** Replays the stored answer of the key, or runs `produce` and stores its answer. */
  async run(request: IdempotentRequest, produce: () => Promise<ChatOutcome>): Promise<ChatOutcome> {
    const fingerprint = fingerprintOf(request.body);
    const stored = await this.deps.store.getIdempotent(request.scope, request.key);
    if (stored)
      return this.replay(request, JSON.parse(stored.response) as StoredReply, fingerprint);
    const flight = `${request.scope.partition}\u0000${request.scope.instance}\u0000${request.key}`;
    if (this.inFlight.has(flight)) {
      throw new ProxyError(
        'A request with this Idempotency-Key is still in progress; retry when it has finished.',
        {
          status: 409,
          type: 'invalid_request_error',
          code: 'idempotency_key_in_use',
          param: 'Idempotency-Key',
        },
      );
    }
    this.inFlight.add(flight);
    const release = () => this.inFlight.delete(flight);
    try {
      const outcome = await produce();
      if (outcome.kind === 'stream')
        return { ...outcome, frames: this.recording(request, fingerprint, outcome, release) };
      if (outcome.status === 200 && isCompletion(outcome.body)) {
        await this.save(request, {
          fingerprint,
          headers: replayedHeaders(outcome.headers),
          completion: outcome.body as Record<string, unknown>,
        });
      }
      release();
      return outcome;
    } catch (error) {
      release();
      throw error;
    }
  }

  private replay(
    request: IdempotentRequest,
    stored: StoredReply,
    fingerprint: string,
  ): ChatOutcome {
    if (stored.fingerprint !== fingerprint) {
      throw new InvalidRequestError(
        'This Idempotency-Key was already used for a different request; use a new key for a new request.',
        { param: 'Idempotency-Key', code: 'idempotency_key_reused' },
      );
    }
    this.deps.onReplay?.();
    const headers = { ...stored.headers, 'idempotent-replayed': 'true' };
    if (request.body['stream'] !== true)
      return { kind: 'json', status: 200, headers, body: stored.completion };
    const includeUsage =
      (request.body['stream_options'] as { include_usage?: unknown } | undefined)?.include_usage ===
      true;
    return {
      kind: 'stream',
      headers,
      frames: toAsync(completionFrames(stored.completion, { includeUsage })),
    };
  }

  /** Passes a stream through, assembling its answer; stores it before `[DONE]` unless the stream failed. */
  private async *recording(
    request: IdempotentRequest,
    fingerprint: string,
    outcome: Extract<ChatOutcome, { kind: 'stream' }>,
    release: () => void,
  ): AsyncGenerator<string> {
    const accumulator = new ChatAccumulator();
    let broken = false;
    try {
      for await (const frame of outcome.frames) {
        if (frame.startsWith('data: [DONE]')) {
          if (!broken && accumulator.error === undefined) {
            await this.save(request, {
              fingerprint,
              headers: replayedHeaders(outcome.headers),
              completion: accumulator.toCompletion() as Record<string, unknown>,
            });
          }
        } else {
          for (const line of frame.split('\n')) {
            if (!line.startsWith('data: ')) continue;
            try {
              accumulator.add(JSON.parse(line.slice(6)));
            } catch {
              broken = true;
            }
          }
        }
        yield frame;
      }
    } finally {
      release();
    }
  }

  private async save(request: IdempotentRequest, reply: StoredReply): Promise<void> {
    const now = this.deps.now();
    try {
      await this.deps.store.putIdempotent(request.scope, {
        key: request.key,
        response: JSON.stringify(reply),
        createdAt: now,
        expiresAt: now + this.deps.ttlSeconds * 1000,
      });
    } catch (error) {
      // The client still gets its answer; a retry would then call upstream again.
      this.deps.logger.error('could not store the idempotent answer', {
        requestId: request.requestId,
        error: (error as Error).message,
      });
    }
  }
}

function fingerprintOf(body: Record<string, unknown>): string {
  // Streaming or not, the same question has the same answer: a stream may replay a JSON answer.
  const rest = Object.fromEntries(
    Object.entries(body).filter(([field]) => field !== 'stream' && field !== 'stream_options'),
  );
  return createHash('sha256').update(JSON.stringify(rest)).digest('hex');
}

function isCompletion(body: unknown): boolean {
  return (
    typeof body === 'object' &&
    body !== null &&
    Array.isArray((body as { choices?: unknown }).choices)
  );
}

function replayedHeaders(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).filter(([name]) => REPLAYED_HEADER.test(name.toLowerCase())),
  );
}

async function* toAsync(frames: Iterable<string>): AsyncGenerator<string> {
  yield* frames;
}
