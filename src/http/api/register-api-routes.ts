import type { Hono } from 'hono';
import type { AppEnv } from '../app-env';
import { API_PREFIX, type ApiDeps } from './api-deps';
import { registerMessageRoutes } from './message-routes';
import { OPENAPI_DOCUMENT } from './openapi';
import { registerScopeRoutes } from './scope-routes';
import { registerTopicRoutes } from './topic-routes';

/** Registers the management API under /api/v1: JSON in and out, errors in OpenAI's shape (app.onError). */
export function registerApiRoutes(app: Hono<AppEnv>, deps: ApiDeps): void {
  app.get(`${API_PREFIX}/openapi.json`, (c) => c.json(OPENAPI_DOCUMENT));
  registerScopeRoutes(app, deps);
  registerMessageRoutes(app, deps);
  registerTopicRoutes(app, deps);
}
