/** Options of a ProxyError. */
export interface ProxyErrorOptions {
  status: number;
  type: string;
  code?: string | null;
  param?: string | null;
  cause?: unknown;
}

/** The one error model: rendered as OpenAI's `{error:{message,type,param,code}}` with its status. */
export class ProxyError extends Error {
  readonly status: number;
  readonly type: string;
  readonly code: string | null;
  readonly param: string | null;

  constructor(message: string, options: ProxyErrorOptions) {
    super(message, { cause: options.cause });
    this.name = new.target.name;
    this.status = options.status;
    this.type = options.type;
    this.code = options.code ?? null;
    this.param = options.param ?? null;
  }

  /** The JSON body OpenAI clients expect. */
  toJSON(): { error: { message: string; type: string; param: string | null; code: string | null } } {
    return { error: { message: this.message, type: this.type, param: this.param, code: this.code } };
  }
}

/** 400: the request is malformed or names something invalid. */
export class InvalidRequestError extends ProxyError {
  constructor(message: string, options: { param?: string | null; code?: string | null; status?: number } = {}) {
    super(message, {
      status: options.status ?? 400,
      type: 'invalid_request_error',
      code: options.code ?? null,
      param: options.param ?? null,
    });
  }
}

/** 401: the caller is not authenticated. */
export class AuthenticationError extends ProxyError {
  constructor(message: string) {
    super(message, { status: 401, type: 'authentication_error', code: 'invalid_api_key' });
  }
}

/** 403: the caller is authenticated but may not touch what it asked for (another partition). */
export class PermissionDeniedError extends ProxyError {
  constructor(message: string, options: { param?: string | null; code?: string } = {}) {
    super(message, { status: 403, type: 'permission_error', code: options.code ?? 'permission_denied', param: options.param ?? null });
  }
}

/** 404: no such route or record. */
export class NotFoundError extends ProxyError {
  constructor(message: string, param: string | null = null) {
    super(message, { status: 404, type: 'invalid_request_error', code: 'not_found', param });
  }
}

/** 429: too many requests; `retryAfterSeconds` becomes the retry-after header. */
export class RateLimitError extends ProxyError {
  readonly retryAfterSeconds: number;
  constructor(message: string, retryAfterSeconds: number) {
    super(message, { status: 429, type: 'rate_limit_error', code: 'rate_limit_exceeded' });
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** 502/504: the upstream model server failed or timed out. */
export class UpstreamError extends ProxyError {
  /**
   * Whether trying again before the first byte may help: not after a timeout (it already
   * waited its whole time), nor for a redirect (it would point to the same place again).
   */
  readonly retryable: boolean;

  constructor(message: string, options: { status: 502 | 504; code?: string; cause?: unknown; retryable?: boolean }) {
    super(message, {
      status: options.status,
      type: 'upstream_error',
      code: options.code ?? (options.status === 504 ? 'upstream_timeout' : 'upstream_unreachable'),
      cause: options.cause,
    });
    this.retryable = options.retryable ?? options.status !== 504;
  }
}

/**
 * An upstream HTTP error answered before any byte reached the client: its status and body
 * pass through unchanged.
 */
export class UpstreamHttpError extends ProxyError {
  readonly body: string;
  readonly headers: Record<string, string>;
  constructor(status: number, body: string, headers: Record<string, string>) {
    super(extractUpstreamMessage(body) ?? `upstream answered ${status}`, {
      status,
      type: 'upstream_error',
      code: `upstream_${status}`,
    });
    this.body = body;
    this.headers = headers;
  }
}

/** 503: the memory store does not answer. */
export class StoreUnavailableError extends ProxyError {
  constructor(message: string, cause?: unknown) {
    super(message, { status: 503, type: 'store_unavailable', code: 'store_unavailable', cause });
  }
}

/** 409: the request conflicts with what is stored (a fork into an instance that has turns). */
export class ConflictError extends ProxyError {
  constructor(message: string, options: { param?: string | null; code?: string } = {}) {
    super(message, {
      status: 409,
      type: 'invalid_request_error',
      code: options.code ?? 'conflict',
      param: options.param ?? null,
    });
  }
}

/** 400: a record of an import cannot be stored; `recordIndex` is its position in the batch given. */
export class RecordImportError extends InvalidRequestError {
  constructor(
    readonly recordIndex: number,
    message: string,
  ) {
    super(message, { code: 'invalid_import_record' });
  }
}

function extractUpstreamMessage(body: string): string | null {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } | string };
    if (typeof parsed.error === 'string') return parsed.error;
    if (parsed.error && typeof parsed.error.message === 'string') return parsed.error.message;
  } catch {
    // not JSON: fall through to the status line
  }
  return null;
}
