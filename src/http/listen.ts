import { serve, type ServerType } from '@hono/node-server';
import type { Hono } from 'hono';
import type { AppEnv } from './app-env';

/**
 * Serves the app over HTTP and keeps an idle client connection open for `keepAliveSeconds`
 * (Node closes it after 5 s). SDKs and chat UIs hold their connections longer than that, so a
 * short server timeout makes them connect again after every pause, and under load a new
 * connection waits longest: since libuv 1.45 a busy event loop accepts one per turn. Load
 * balancers in front keep theirs for about a minute, so the default stays above that.
 */
export function listen(
  app: Hono<AppEnv>,
  options: { port: number; hostname: string; keepAliveSeconds: number },
  onListening: (port: number) => void,
): ServerType {
  const server = serve(
    { fetch: app.fetch, port: options.port, hostname: options.hostname },
    (info) => onListening(info.port),
  );
  const http = server as ServerType & { keepAliveTimeout: number };
  http.keepAliveTimeout = options.keepAliveSeconds * 1000;
  return server;
}
