import type { Hono, MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import type { Logger } from '../logger';
import type { ProxyMetrics } from '../metrics/proxy-metrics';
import type { AppEnv } from './app-env';

/**
 * Counts and times every request by route pattern (never the partition name, which would
 * make a metric per user) and writes one access log line with the request id. The time is to
 * the response headers: for a stream, its first byte.
 */
export function observeRequests(deps: {
  metrics: ProxyMetrics;
  logger: Logger;
}): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now();
    await next();
    const seconds = (performance.now() - started) / 1000;
    const matched = routePath(c, -1);
    const route = matched === '*' || matched === '/*' ? 'unmatched' : matched;
    const labels = { route, method: c.req.method, status: c.res.status };
    deps.metrics.httpRequests.inc(labels);
    deps.metrics.httpDuration.observe(labels, seconds);
    if (route !== '/metrics' && route !== '/health') {
      deps.logger.info('request', {
        requestId: c.get('requestId'),
        method: c.req.method,
        route,
        status: c.res.status,
        durationMs: Math.round(seconds * 1000),
      });
    }
  };
}

/** Registers GET /metrics in the Prometheus text format. */
export function registerMetricsRoute(app: Hono<AppEnv>, metrics: ProxyMetrics): void {
  app.get('/metrics', (c) =>
    c.body(metrics.registry.render(), 200, {
      'content-type': 'text/plain; version=0.0.4; charset=utf-8',
    }),
  );
}
