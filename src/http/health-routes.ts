import type { Hono } from 'hono';
import type { MemoryStore } from '../store/memory-store';
import type { AppEnv } from './app-env';

/** Registers /health (the process is up) and /ready (the store answers). */
export function registerHealthRoutes(app: Hono<AppEnv>, store: MemoryStore): void {
  app.get('/health', (c) => c.json({ status: 'ok' }));
  app.get('/ready', async (c) => {
    const health = await store.health().catch((error: unknown) => ({ ok: false, store: store.kind, detail: (error as Error).message }));
    return c.json({ status: health.ok ? 'ready' : 'unavailable', store: health.store, detail: health.detail }, health.ok ? 200 : 503);
  });
}
