import type { Context, Hono } from 'hono';
import type { UpstreamClient } from '../proxy/upstream-client';
import { forwardedAuthorization } from './access-control';
import type { AppEnv } from './app-env';
import { resolveScope } from './scope';

/** Registers GET models, passed through from upstream unchanged. */
export function registerModelsRoutes(app: Hono<AppEnv>, upstream: UpstreamClient): void {
  const handler = (suffix: string) => async (c: Context<AppEnv>) => {
    resolveScope({ partition: c.req.param('partition'), instance: c.req.param('instance') }, (name) => c.req.header(name));
    const model = c.req.param('model');
    const path = model === undefined ? suffix : `${suffix}/${encodeURIComponent(model)}`;
    const answer = await upstream.get(path, forwardedAuthorization(c), c.req.raw.signal);
    return c.body(answer.body, answer.status as 200, { ...answer.headers, 'content-type': 'application/json' });
  };
  app.get('/partition/:partition/instance/:instance/v1/models', handler('/models'));
  app.get('/partition/:partition/instance/:instance/v1/models/:model', handler('/models'));
  app.get('/v1/models', handler('/models'));
  app.get('/v1/models/:model', handler('/models'));
}
