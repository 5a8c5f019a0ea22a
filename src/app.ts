import { Hono } from 'hono';
import { ulid } from 'ulid';
import type { Config } from './config/load-config';
import { NotFoundError, ProxyError, RateLimitError, StoreUnavailableError, UpstreamHttpError } from './errors';
import type { AppEnv } from './http/app-env';
import { registerApiRoutes } from './http/api/register-api-routes';
import { registerChatRoutes } from './http/chat-route';
import { registerHealthRoutes } from './http/health-routes';
import { registerModelsRoutes } from './http/models-route';
import type { Embedder } from './embeddings/embedder';
import type { Logger } from './logger';
import type { BackgroundQueue } from './memory/background-queue';
import { embedAndLink, type MemoryWriter } from './memory/embed-and-link';
import { createMemoryContext } from './memory/memory-context';
import { UpstreamClient } from './proxy/upstream-client';
import type { MemoryStore } from './store/memory-store';

/** Everything the app is built from, so tests build the real app with a real store and a fake upstream. */
export interface AppDeps {
  config: Config;
  store: MemoryStore;
  embedder: Embedder;
  logger: Logger;
  /** Runs embeddings and synapses after answers; the caller drains it on shutdown. */
  background: BackgroundQueue;
  /** Defaults to a client for config.upstreamBaseUrl. */
  upstream?: UpstreamClient;
  /** The clock (milliseconds); tests may fix it. */
  now?: () => number;
}

/** A request id the client sent is kept when it is short and plain; else one is made. */
const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Builds the HTTP app: routes, request ids, and one error handler rendering OpenAI's error shape. */
export function createApp(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const upstream =
    deps.upstream ??
    new UpstreamClient({
      baseUrl: deps.config.upstreamBaseUrl,
      apiKey: deps.config.upstreamApiKey,
      timeoutMs: deps.config.upstreamTimeoutMs,
      maxRetries: deps.config.upstreamMaxRetries,
    });

  app.use('*', async (c, next) => {
    const incoming = c.req.header('x-request-id');
    const requestId = incoming && CLIENT_REQUEST_ID.test(incoming) ? incoming : `req_${ulid()}`;
    c.set('requestId', requestId);
    await next();
    c.res.headers.set('x-request-id', requestId);
  });

  registerHealthRoutes(app, deps.store);
  const writer = memoryWriter(deps);
  registerChatRoutes(app, {
    config: deps.config,
    store: deps.store,
    embedder: deps.embedder,
    upstream,
    logger: deps.logger,
    now: deps.now ?? Date.now,
    toollessModels: new Set<string>(),
    afterAnswer: (scope, turns) => deps.background.push('embed-and-link', () => embedAndLink(writer, scope, turns)),
    enrich: createMemoryContext({ store: deps.store, embedder: deps.embedder, config: deps.config }),
  });
  registerModelsRoutes(app, upstream);
  registerApiRoutes(app, {
    config: deps.config,
    store: deps.store,
    embedder: deps.embedder,
    editor: {
      store: deps.store,
      afterWrite: (scope, turns) => deps.background.push('embed-and-link', () => embedAndLink(writer, scope, turns)),
    },
    now: deps.now ?? Date.now,
    backgroundPending: () => deps.background.pending,
  });

  app.notFound((c) => {
    const error = new NotFoundError(`Unknown route: ${c.req.method} ${c.req.path}`);
    return c.json(error.toJSON(), 404, { 'x-request-id': c.get('requestId') ?? '' });
  });

  app.onError((error, c) => {
    const requestId = c.get('requestId') ?? `req_${ulid()}`;
    const headers: Record<string, string> = { 'x-request-id': requestId };
    if (error instanceof UpstreamHttpError) {
      deps.logger.warn('upstream refused the request', { requestId, status: error.status });
      return new Response(error.body, { status: error.status, headers: { ...error.headers, ...headers, 'content-type': 'application/json' } });
    }
    if (error instanceof RateLimitError) headers['retry-after'] = String(error.retryAfterSeconds);
    const proxyError = error instanceof ProxyError ? error : asProxyError(error);
    const level = proxyError.status >= 500 ? 'error' : 'info';
    deps.logger[level]('request failed', { requestId, status: proxyError.status, code: proxyError.code, error: proxyError.message });
    return c.json(proxyError.toJSON(), proxyError.status as 400, headers);
  });

  return app;
}

/** Errors nobody mapped: an unavailable store becomes 503, anything else a 500 without internals. */
function asProxyError(error: unknown): ProxyError {
  const code = (error as { code?: unknown }).code;
  if (code === 'SQLITE_BUSY' || code === 'SQLITE_IOERR' || code === 'ServiceUnavailable') {
    return new StoreUnavailableError('The memory store is unavailable right now; try again shortly.', error);
  }
  return new ProxyError('The proxy failed to handle this request.', { status: 500, type: 'server_error', code: 'internal_error', cause: error });
}

/** How the app writes embeddings, chunks and synapses. */
export function memoryWriter(deps: Pick<AppDeps, 'store' | 'embedder' | 'config'>): MemoryWriter {
  return {
    store: deps.store,
    embedder: deps.embedder,
    chunkThreshold: deps.config.indexChunkThreshold,
    synapseThreshold: deps.config.synapseThreshold,
  };
}
