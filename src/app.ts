import { Hono } from 'hono';
import type { Config } from './config/load-config';
import { NotFoundError, ProxyError, RateLimitError, StoreUnavailableError, UpstreamHttpError } from './errors';
import { accessControl } from './http/access-control';
import type { AppEnv } from './http/app-env';
import { registerApiRoutes } from './http/api/register-api-routes';
import { registerChatRoutes } from './http/chat-route';
import { registerHealthRoutes } from './http/health-routes';
import { IdempotentReplies } from './http/idempotent-replies';
import { registerModelsRoutes } from './http/models-route';
import { observeRequests, registerMetricsRoute } from './http/observe-requests';
import { RateLimiter } from './http/rate-limiter';
import { createProxyMetrics, type ProxyMetrics } from './metrics/proxy-metrics';
import type { Embedder } from './embeddings/embedder';
import { idFactory } from './ids';
import type { Logger } from './logger';
import { MODEL_LANE, type BackgroundQueue } from './memory/background-queue';
import { embedAndLink, NearestForSweep, sweepMissingEmbeddings, type MemoryWriter } from './memory/embed-and-link';
import { LinkBatches } from './memory/link-batches';
import { createMemoryContext } from './memory/memory-context';
import { createSummaryRewriter } from './memory/summary-rewriter';
import { MaintenanceRunner, type MaintenanceOutcome } from './memory/maintenance/maintenance-runner';
import type { TopicSummarizer } from './memory/maintenance/summarize-topics';
import type { AnsweredRequest } from './proxy/chat-pipeline';
import { runningSummarizer } from './proxy/running-summarizer';
import { topicSummarizer } from './proxy/topic-summarizer';
import { UpstreamClient } from './proxy/upstream-client';
import { guardStore } from './store/guarded-store';
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
  /** Background upkeep (topics, periods, cleanup, retention); made here, without a timer, when absent. */
  maintenance?: MaintenanceRunner;
}

/** Background jobs queued before new turns are left to a sweep instead (bounds memory under overload). */
const MAX_QUEUED_JOBS = 1_000;

/**
 * Request ids: monotonic ULIDs draw fresh randomness once per millisecond, where a plain ULID
 * drew it for each of its 16 characters (2% of a request's CPU).
 */
const requestIds = idFactory();

/** A request id the client sent is kept when it is short and plain; else one is made. */
const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Builds the HTTP app: routes, request ids, and one error handler rendering OpenAI's error shape. */
export function createApp(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const upstream = deps.upstream ?? upstreamClient(deps.config);

  app.use('*', async (c, next) => {
    const incoming = c.req.header('x-request-id');
    const requestId = incoming && CLIENT_REQUEST_ID.test(incoming) ? incoming : `req_${requestIds()}`;
    c.set('requestId', requestId);
    await next();
    c.res.headers.set('x-request-id', requestId);
  });

  const now = deps.now ?? Date.now;
  // Every route reaches the store through the guard: timed for /metrics, and a store that went
  // away fails fast (503, or memoryless answers with STORE_FAILURE_MODE=open) until it is back.
  const guard = guardStore(deps.store, {
    observe: (method, outcome, seconds) => metrics.storeDuration.observe({ method, outcome }, seconds),
    onChange: (state) =>
      state.up ? deps.logger.info('memory store is back') : deps.logger.error('memory store is unavailable', { reason: state.reason }),
  });
  const metrics = createProxyMetrics({ backgroundPending: () => deps.background.pending, storeUp: () => (guard.state().up ? 1 : 0) });
  const store = guard.store;
  app.use('*', observeRequests({ metrics, logger: deps.logger }));
  app.use(
    '*',
    accessControl({
      keys: deps.config.apiKeys,
      rateLimiter: deps.config.rateLimitPerMinute > 0 ? new RateLimiter(deps.config.rateLimitPerMinute, now) : null,
      onRateLimited: () => metrics.rateLimited.inc(),
    }),
  );

  registerHealthRoutes(app, store);
  registerMetricsRoute(app, metrics);
  const writer = memoryWriter({ ...deps, store });
  // Under sustained load faster than embedding, the queue would grow without bound (the soak
  // bench showed it); past the limit new turns wait for one sweep queued behind the backlog.
  let sweepQueued = false;
  const overflowed = new NearestForSweep();
  const queueSweep = (name: string) => {
    if (sweepQueued) return;
    sweepQueued = true;
    deps.background.push(name, async () => {
      sweepQueued = false;
      await sweepMissingEmbeddings(writer, { nearest: overflowed });
    });
  };
  const linking = new LinkBatches(
    (run) => deps.background.push('embed-and-link', run),
    (batch) => embedAndLink(writer, batch),
  );
  // A request's follow-ups (the next window's summary) are dropped past the limit: the request
  // that needs one builds it itself. Its question's nearest turns are kept for the sweep. A
  // request whose turns joined a queued batch counts as a queued job: the bound is on what
  // waits in memory.
  const remember = (answered: AnsweredRequest) => {
    if (deps.background.pending + linking.joined < MAX_QUEUED_JOBS) {
      linking.add(answered);
      for (const job of answered.followUps) deps.background.push(job.name, job.run);
    } else {
      overflowed.keep(answered.nearest);
      queueSweep('overflow-sweep');
    }
  };
  // With SUMMARY_MODEL the model writes each extractive running summary again, after the answer.
  const summaryModel = deps.config.summaryModel;
  const rewriteSummary =
    summaryModel !== null && deps.config.memorySummary
      ? createSummaryRewriter({
          store,
          summarizer: runningSummarizer(upstream, summaryModel),
          schedule: (name, job) => {
            if (deps.background.pending >= MAX_QUEUED_JOBS) return false;
            // Their own lane: a slow summary model must not hold back the embeddings.
            deps.background.push(name, job, { lane: MODEL_LANE });
            return true;
          },
          logger: deps.logger,
          now,
          onOutcome: (outcome) => metrics.runningSummaries.inc({ outcome }),
        })
      : undefined;
  const replies = new IdempotentReplies({ store, logger: deps.logger, ttlSeconds: deps.config.idempotencyTtlSeconds, now, onReplay: () => metrics.idempotentReplays.inc() });
  registerChatRoutes(
    app,
    {
      config: deps.config,
      store,
      embedder: deps.embedder,
      upstream,
      logger: deps.logger,
      now,
      toollessModels: new Set<string>(),
      afterAnswer: remember,
      enrich: createMemoryContext({ store, embedder: deps.embedder, config: deps.config, rewriteSummary }),
      metrics,
    },
    replies,
  );
  registerModelsRoutes(app, upstream);
  const maintenance = deps.maintenance ?? createMaintenance({ ...deps, store, upstream, now });
  maintenance.observe((outcome) => countMaintenance(metrics, outcome));
  registerApiRoutes(app, {
    config: deps.config,
    store,
    embedder: deps.embedder,
    editor: {
      store,
      afterWrite: (scope, turns) => deps.background.push('embed-and-link', () => embedAndLink(writer, { scope, turns })),
      afterRestore: () => queueSweep('restore-sweep'),
    },
    now,
    backgroundPending: () => deps.background.pending,
    maintenance,
  });

  app.notFound((c) => {
    const error = new NotFoundError(`Unknown route: ${c.req.method} ${c.req.path}`);
    return c.json(error.toJSON(), 404, { 'x-request-id': c.get('requestId') ?? '' });
  });

  app.onError((error, c) => {
    const requestId = c.get('requestId') ?? `req_${requestIds()}`;
    const headers: Record<string, string> = { 'x-request-id': requestId };
    if (error instanceof UpstreamHttpError) {
      deps.logger.warn('upstream refused the request', { requestId, status: error.status });
      return new Response(error.body, { status: error.status, headers: { ...error.headers, ...headers, 'content-type': 'application/json' } });
    }
    if (error instanceof RateLimitError) headers['retry-after'] = String(error.retryAfterSeconds);
    const proxyError = error instanceof ProxyError ? error : asProxyError(error);
    const level = proxyError.status >= 500 ? 'error' : 'info';
    // An unmapped error keeps its own name and message in the log (never in the response).
    const cause = error instanceof ProxyError ? {} : { cause: `${(error as Error).name} ${String((error as { code?: unknown }).code ?? '')}: ${(error as Error).message}` };
    deps.logger[level]('request failed', { requestId, status: proxyError.status, code: proxyError.code, error: proxyError.message, ...cause });
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

/** Counts a run of the background jobs and what it did for /metrics. */
function countMaintenance(metrics: ProxyMetrics, outcome: MaintenanceOutcome): void {
  const { report } = outcome;
  const result = report === null ? 'failed' : report.completed ? 'completed' : 'stopped';
  metrics.maintenanceRuns.inc({ outcome: result });
  metrics.maintenanceDuration.observe({}, outcome.seconds);
  if (report === null) return;
  const items: [string, string, number | undefined][] = [
    ['orphans', 'chunks_deleted', report.orphans?.chunks],
    ['retention', 'soft_deleted', report.retention?.softDeleted],
    ['retention', 'purged', report.retention?.purged],
    ['topics', 'assigned', report.topics?.assigned],
    ['periods', 'summarized', report.periods?.periods],
  ];
  for (const [job, item, count] of items) {
    if (count) metrics.maintenanceItems.inc({ job, item }, count);
  }
}

/** The client for config.upstreamBaseUrl. */
function upstreamClient(config: Config): UpstreamClient {
  return new UpstreamClient({
    baseUrl: config.upstreamBaseUrl,
    apiKey: config.upstreamApiKey,
    timeoutMs: config.upstreamTimeoutMs,
    maxRetries: config.upstreamMaxRetries,
  });
}

/** The background upkeep as the configuration asks for it (main.ts starts its timer). */
export function createMaintenance(
  deps: Pick<AppDeps, 'config' | 'store' | 'logger' | 'upstream' | 'now'>,
): MaintenanceRunner {
  const { config } = deps;
  const model =
    config.topicSummaries === 'model' && config.summaryModel !== null
      ? topicSummarizer(deps.upstream ?? upstreamClient(config), config.summaryModel)
      : null;
  const summarizer: TopicSummarizer | null =
    model &&
    (async (input) => {
      try {
        return await model(input);
      } catch (error) {
        deps.logger.warn('topic summary failed; its turns are quoted instead', {
          model: config.summaryModel,
          error: (error as Error).message,
        });
        throw error;
      }
    });
  return new MaintenanceRunner({
    store: deps.store,
    logger: deps.logger,
    now: deps.now ?? Date.now,
    retention: { days: config.retentionDays, graceDays: config.retentionGraceDays },
    topicThreshold: config.topicThreshold,
    maxTopics: config.topicMax,
    summarizer,
  });
}
