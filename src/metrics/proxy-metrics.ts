import { Registry, type Counter, type Histogram } from './prometheus';

/** Token-count buckets for the context sent upstream. */
const TOKEN_BUCKETS = [256, 1024, 4096, 8192, 16384, 32768, 65536, 131072, 262144, 524288, 1048576];
/** Buckets for memory tool rounds per request. */
const ROUND_BUCKETS = [0, 1, 2, 3, 4, 6, 8, 16, 32, 64];

/** Live figures the metrics read at scrape time. */
export interface MetricSources {
  /** Background jobs waiting or running (BackgroundQueue.pending). */
  backgroundPending: () => number;
  /** 1 while the store answers, 0 while it is known to be down. */
  storeUp: () => number;
}

/** Every metric the proxy exposes on /metrics. */
export interface ProxyMetrics {
  registry: Registry;
  /** HTTP requests by route pattern (never the partition name), method and status. */
  httpRequests: Counter;
  /** Seconds from request to response headers (a stream's first byte), by route, method, status. */
  httpDuration: Histogram;
  /** Upstream calls by path and outcome (HTTP status, or error code). */
  upstreamRequests: Counter;
  /** Seconds per upstream call until its answer (JSON) or first event (stream). */
  upstreamDuration: Histogram;
  /** Memory tool rounds a chat request ran. */
  toolRounds: Histogram;
  /** Tokens of the context sent upstream. */
  contextTokens: Histogram;
  /** Seconds per store call, by method and outcome. */
  storeDuration: Histogram;
  /** Requests refused by the per-partition rate limit. */
  rateLimited: Counter;
  /** Answers replayed for a repeated Idempotency-Key. */
  idempotentReplays: Counter;
  /** Requests answered without memory because the store was down (STORE_FAILURE_MODE=open). */
  memorylessAnswers: Counter;
  /** Runs of the background jobs (topics, periods, cleanup, retention) by outcome. */
  maintenanceRuns: Counter;
  /** Seconds per run of the background jobs. */
  maintenanceDuration: Histogram;
  /** What the background jobs did, by job and item. */
  maintenanceItems: Counter;
  /** Running summaries SUMMARY_MODEL was asked to write, by outcome. */
  runningSummaries: Counter;
}

/** Builds the proxy's metrics, with gauges for the process and the given sources. */
export function createProxyMetrics(sources: MetricSources): ProxyMetrics {
  const registry = new Registry();
  const metrics: ProxyMetrics = {
    registry,
    httpRequests: registry.counter(
      'memory_proxy_http_requests_total',
      'HTTP requests by route, method and status.',
    ),
    httpDuration: registry.histogram(
      'memory_proxy_http_request_duration_seconds',
      'Seconds from request to response headers (first byte of a stream).',
    ),
    upstreamRequests: registry.counter(
      'memory_proxy_upstream_requests_total',
      'Calls to the upstream model server by path and outcome.',
    ),
    upstreamDuration: registry.histogram(
      'memory_proxy_upstream_duration_seconds',
      'Seconds per upstream call until its answer or first stream event.',
    ),
    toolRounds: registry.histogram(
      'memory_proxy_tool_rounds',
      'Memory tool rounds per chat request.',
      ROUND_BUCKETS,
    ),
    contextTokens: registry.histogram(
      'memory_proxy_context_tokens',
      'Tokens of the context sent upstream per chat request.',
      TOKEN_BUCKETS,
    ),
    storeDuration: registry.histogram(
      'memory_proxy_store_duration_seconds',
      'Seconds per memory store call by method and outcome.',
    ),
    rateLimited: registry.counter(
      'memory_proxy_rate_limited_total',
      'Requests refused by the per-partition rate limit.',
    ),
    idempotentReplays: registry.counter(
      'memory_proxy_idempotent_replays_total',
      'Stored answers replayed for a repeated Idempotency-Key.',
    ),
    memorylessAnswers: registry.counter(
      'memory_proxy_memoryless_answers_total',
      'Requests answered without memory while the store was down.',
    ),
    maintenanceRuns: registry.counter(
      'memory_proxy_maintenance_runs_total',
      'Runs of the background jobs (topics, periods, cleanup, retention) by outcome.',
    ),
    maintenanceDuration: registry.histogram(
      'memory_proxy_maintenance_duration_seconds',
      'Seconds per run of the background jobs.',
    ),
    maintenanceItems: registry.counter(
      'memory_proxy_maintenance_items_total',
      'Turns assigned to topics, periods summarized, orphaned chunks deleted, turns soft-deleted and purged by retention.',
    ),
    runningSummaries: registry.counter(
      'memory_proxy_running_summaries_total',
      'Running summaries SUMMARY_MODEL was asked to write in the background, by outcome (written, failed, skipped).',
    ),
  };
  registry.gauge(
    'memory_proxy_background_jobs_pending',
    'Background jobs (embeddings, synapses) waiting or running.',
    sources.backgroundPending,
  );
  registry.gauge(
    'memory_proxy_store_up',
    '1 while the memory store answers, 0 while it is down.',
    sources.storeUp,
  );
  registry.gauge(
    'process_resident_memory_bytes',
    'Resident set size of the proxy process.',
    () => process.memoryUsage().rss,
  );
  registry.gauge('nodejs_heap_used_bytes', 'V8 heap in use.', () => process.memoryUsage().heapUsed);
  registry.gauge(
    'nodejs_array_buffers_bytes',
    'Memory of ArrayBuffers outside the V8 heap (vector caches, I/O buffers).',
    () => process.memoryUsage().arrayBuffers,
  );
  registry.gauge(
    'nodejs_active_resources',
    'Open handles and requests keeping the event loop alive (sockets, timers, files).',
    () => process.getActiveResourcesInfo().length,
  );
  return metrics;
}
