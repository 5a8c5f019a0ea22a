import { Readable } from 'node:stream';
import { request, type Dispatcher } from 'undici';
import { UpstreamError, UpstreamHttpError } from '../errors';
import { requestJson } from '../text/request-json';
import { parseSseStream, type SseEvent } from './sse-parse';

/** How the proxy reaches the model server. */
export interface UpstreamClientOptions {
  baseUrl: string;
  /** Sent as the bearer token when set; else the client's Authorization header is forwarded. */
  apiKey: string | null;
  /** Milliseconds to wait for response headers and for the first event (and between events). */
  timeoutMs: number;
  /** Retries of a failed call before any byte reached the client. */
  maxRetries: number;
  sleep?: (ms: number) => Promise<void>;
}

/** One call upstream. */
export interface UpstreamCall {
  path: string;
  body: unknown;
  /** The client's Authorization header, forwarded when the proxy has no key of its own. */
  authorization: string | null;
  /** Aborted when the client goes away. */
  signal: AbortSignal;
}

/** A successful non-streaming answer. */
export interface UpstreamJson {
  status: number;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

/** A streaming answer whose first event has already arrived. */
export interface UpstreamStream {
  status: number;
  headers: Record<string, string>;
  /** Every event, the first one included, as upstream sent it; ends after `[DONE]` or end of body. */
  events: AsyncGenerator<SseEvent>;
}

/** Statuses worth a retry before the first byte: rate limits and server-side failures. */
const RETRYABLE_STATUSES = new Set([408, 409, 429, 500, 502, 503, 504]);
/** Longest wait the proxy honours from an upstream retry-after before giving up and passing the error on. */
const MAX_RETRY_WAIT_MS = 10_000;
/** Named on every upstream call: some gateways refuse requests that carry no user agent. */
const USER_AGENT = 'memory-proxy';
/** Response headers worth relaying to the client. */
const RELAYED_HEADERS = ['x-request-id', 'openai-processing-ms', 'openai-model', 'retry-after'];

/** An answer whose headers arrived; its body must be read or destroyed. */
type UpstreamResponse = Dispatcher.ResponseData;

/**
 * Calls an OpenAI-compatible server; retries happen here and only before the first byte.
 * Requests go through undici's request API rather than fetch: a call costs ~0.1 ms of CPU
 * instead of ~0.5 (no WHATWG Request, Response and body streams for a JSON answer).
 */
export class UpstreamClient {
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly options: UpstreamClientOptions) {
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  /** POSTs a JSON request and returns the JSON answer; upstream errors throw with their status. */
  async postJson(call: UpstreamCall): Promise<UpstreamJson> {
    return this.withRetries(call.signal, 'ends', async (attemptSignal) => {
      const response = await this.send(call, attemptSignal);
      const text = await response.body.text();
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch (error) {
        throw new UpstreamError('upstream answered with malformed JSON', {
          status: 502,
          code: 'upstream_bad_response',
          cause: error,
        });
      }
      if (typeof body !== 'object' || body === null || Array.isArray(body)) {
        throw new UpstreamError('upstream answered with a JSON value that is not an object', {
          status: 502,
          code: 'upstream_bad_response',
        });
      }
      return {
        status: response.statusCode,
        headers: relayHeaders(response.headers),
        body: body as Record<string, unknown>,
      };
    });
  }

  /**
   * POSTs a streaming request and reads ahead to the first event, so a failure before any
   * byte reached the client still has a real status (and may be retried).
   */
  async openStream(call: UpstreamCall): Promise<UpstreamStream> {
    return this.withRetries(call.signal, 'streams', async (attemptSignal, idle) => {
      const response = await this.send(call, attemptSignal);
      const contentType = headerOf(response.headers, 'content-type') ?? '';
      if (!contentType.includes('text/event-stream')) {
        const text = await response.body.text();
        throw new UpstreamHttpError(502, streamRefusal(this.redact(text)), relayHeaders(response.headers));
      }
      const events = parseSseStream(Readable.toWeb(response.body) as ReadableStream<Uint8Array>, attemptSignal);
      idle.arm();
      const first = await events.next();
      if (first.done) {
        throw new UpstreamError('upstream closed the stream before sending anything', {
          status: 502,
          code: 'upstream_empty_stream',
        });
      }
      const refusal = openingRefusal(first.value.data, () => this.redact(first.value.data), response.headers);
      if (refusal !== null) {
        // Release the connection: nothing more of this stream will be read.
        await events.return(undefined);
        throw refusal;
      }
      return {
        status: response.statusCode,
        headers: relayHeaders(response.headers),
        events: withIdleTimeout(first.value, events, idle),
      };
    });
  }

  /** GETs a path (e.g. /models) and returns status, headers and body text unchanged. */
  async get(
    path: string,
    authorization: string | null,
    signal: AbortSignal,
  ): Promise<{ status: number; headers: Record<string, string>; body: string }> {
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': USER_AGENT };
    const auth = this.authorizationFor(authorization);
    if (auth) headers['authorization'] = auth;
    const response = await this.requestWithErrors(`${this.options.baseUrl}${path}`, {
      method: 'GET',
      headers,
      signal,
    });
    await this.refuseRedirect(response);
    return {
      status: response.statusCode,
      headers: relayHeaders(response.headers),
      body: await response.body.text(),
    };
  }

  /**
   * A redirect is an error, not an answer: following it would send the conversation (and the
   * key) to another address, or for 301/302 turn the request into a GET.
   */
  private async refuseRedirect(response: UpstreamResponse): Promise<void> {
    if (response.statusCode < 300 || response.statusCode >= 400) return;
    await response.body.dump().catch(() => undefined);
    const location = headerOf(response.headers, 'location');
    throw new UpstreamError(
      `upstream answered ${response.statusCode}, a redirect${location ? ` to ${this.redact(location)}` : ''}; set UPSTREAM_BASE_URL to the address that answers`,
      { status: 502, code: 'upstream_redirect', retryable: false },
    );
  }

  /** Removes the proxy's own upstream key from text that goes back to a client (an echoing error body). */
  private redact(text: string): string {
    const key = this.options.apiKey;
    return key ? text.replaceAll(key, '[redacted]') : text;
  }

  private authorizationFor(clientAuthorization: string | null): string | null {
    if (this.options.apiKey) return `Bearer ${this.options.apiKey}`;
    return clientAuthorization;
  }

  private async send(call: UpstreamCall, signal: AbortSignal): Promise<UpstreamResponse> {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'user-agent': USER_AGENT,
    };
    const auth = this.authorizationFor(call.authorization);
    if (auth) headers['authorization'] = auth;
    const response = await this.requestWithErrors(`${this.options.baseUrl}${call.path}`, {
      method: 'POST',
      headers,
      body: requestJson(call.body),
      signal,
    });
    await this.refuseRedirect(response);
    if (response.statusCode >= 400) {
      throw new UpstreamHttpError(
        response.statusCode,
        this.redact(await response.body.text()),
        relayHeaders(response.headers),
      );
    }
    return response;
  }

  private async requestWithErrors(
    url: string,
    init: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: string; signal: AbortSignal },
  ): Promise<UpstreamResponse> {
    try {
      // The idle timer above is the one timeout (UPSTREAM_TIMEOUT_MS), so undici's own are off.
      return await request(url, { ...init, headersTimeout: 0, bodyTimeout: 0 });
    } catch (error) {
      if (init.signal.aborted) throw init.signal.reason ?? error;
      throw new UpstreamError(`upstream unreachable: ${describeNetworkError(error)}`, {
        status: 502,
        cause: error,
      });
    }
  }

  /**
   * Runs `attempt` under an idle timer, again on a retryable failure. A call that `ends` with
   * its attempt closes the timer then; one that `streams` leaves it to the stream, which closes
   * it when read to the end (withIdleTimeout). A timer left armed would keep the call's objects
   * alive for the whole timeout: at a few hundred requests a second, tens of thousands of them.
   */
  private async withRetries<T>(
    signal: AbortSignal,
    after: 'ends' | 'streams',
    attempt: (signal: AbortSignal, idle: IdleTimer) => Promise<T>,
  ): Promise<T> {
    for (let attemptNumber = 0; ; attemptNumber++) {
      const idle = new IdleTimer(this.options.timeoutMs, signal);
      idle.arm();
      try {
        const result = await attempt(idle.signal, idle);
        if (after === 'ends') idle.close();
        return result;
      } catch (error) {
        idle.close();
        const failure = idle.timedOut
          ? new UpstreamError(`upstream did not answer within ${this.options.timeoutMs} ms`, {
              status: 504,
              cause: error,
            })
          : error;
        if (signal.aborted) throw failure;
        const wait = retryDelay(failure, attemptNumber);
        if (attemptNumber >= this.options.maxRetries || wait === null) throw failure;
        await this.sleep(wait);
      }
    }
  }
}

/**
 * An abort signal that fires when nothing arrived from upstream for `timeoutMs`; re-armed on
 * every event, so a slow but steady stream is never cut while a stalled one is.
 */
export class IdleTimer {
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout | null = null;
  private readonly parent: AbortSignal;
  private readonly onParentAbort = () => this.controller.abort(this.parent.reason);
  timedOut = false;

  constructor(
    readonly timeoutMs: number,
    parent: AbortSignal,
  ) {
    this.parent = parent;
    if (parent.aborted) this.controller.abort(parent.reason);
    else parent.addEventListener('abort', this.onParentAbort, { once: true });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  arm(): void {
    this.disarm();
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.controller.abort(
        new UpstreamError(`upstream sent nothing for ${this.timeoutMs} ms`, { status: 504 }),
      );
    }, this.timeoutMs);
    this.timer.unref();
  }

  disarm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** The call is over: no timeout, and the caller's signal no longer holds this timer. */
  close(): void {
    this.disarm();
    this.parent.removeEventListener('abort', this.onParentAbort);
  }
}

async function* withIdleTimeout(
  first: SseEvent,
  rest: AsyncGenerator<SseEvent>,
  idle: IdleTimer,
): AsyncGenerator<SseEvent> {
  try {
    idle.arm();
    yield first;
    for (;;) {
      idle.arm();
      let next: IteratorResult<SseEvent>;
      try {
        next = await rest.next();
      } catch (error) {
        if (idle.timedOut)
          throw new UpstreamError(`upstream stalled: nothing for ${idle.timeoutMs} ms`, {
            status: 504,
            cause: error,
          });
        throw error;
      }
      if (next.done) return;
      yield next.value;
    }
  } finally {
    idle.close();
    await rest.return(undefined);
  }
}

function retryDelay(error: unknown, attemptNumber: number): number | null {
  const backoff = Math.min(250 * 2 ** attemptNumber, 4000);
  if (error instanceof UpstreamHttpError) {
    if (!RETRYABLE_STATUSES.has(error.status)) return null;
    const retryAfter = parseRetryAfter(error.headers['retry-after']);
    if (retryAfter === null) return backoff;
    return retryAfter > MAX_RETRY_WAIT_MS ? null : retryAfter;
  }
  if (error instanceof UpstreamError) return error.retryable ? backoff : null;
  return null;
}

function parseRetryAfter(value: string | undefined): number | null {
  if (value === undefined) return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - Date.now());
}

function relayHeaders(headers: UpstreamResponse['headers']): Record<string, string> {
  const relayed: Record<string, string> = {};
  for (const name of RELAYED_HEADERS) {
    const value = headerOf(headers, name);
    if (value !== null) relayed[name] = value;
  }
  return relayed;
}

/** A response header by its lower-case name; a repeated one joined as fetch's Headers would. */
function headerOf(headers: UpstreamResponse['headers'], name: string): string | null {
  const value = headers[name];
  if (value === undefined) return null;
  return Array.isArray(value) ? value.join(', ') : value;
}

/** Why a stream's first event cannot open the answer (an error, or not JSON); null when it can. */
function openingRefusal(data: string, redacted: () => string, headers: UpstreamResponse['headers']): Error | null {
  if (errorPayload(data) !== null) return new UpstreamHttpError(502, redacted(), relayHeaders(headers));
  if (data !== '[DONE]' && !isJson(data)) {
    return new UpstreamError('upstream opened the stream with an event that is not JSON', {
      status: 502,
      code: 'upstream_bad_response',
    });
  }
  return null;
}

function isJson(data: string): boolean {
  try {
    JSON.parse(data);
    return true;
  } catch {
    return false;
  }
}

function errorPayload(data: string): unknown {
  if (!data.startsWith('{"error"') && !data.includes('"error":')) return null;
  try {
    const parsed = JSON.parse(data) as { error?: unknown; choices?: unknown };
    return parsed.error !== undefined && parsed.choices === undefined ? parsed.error : null;
  } catch {
    return null;
  }
}

function streamRefusal(text: string): string {
  if (errorPayload(text) !== null) return text;
  return JSON.stringify({
    error: {
      message: 'upstream did not answer with an event stream',
      type: 'upstream_error',
      param: null,
      code: 'upstream_not_streaming',
    },
  });
}

function describeNetworkError(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && !code.startsWith('UND_ERR')) return code;
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  if (cause?.code) return cause.code;
  return cause?.message ?? (error as Error).message ?? 'network error';
}
