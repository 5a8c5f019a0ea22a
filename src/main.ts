import { serve } from '@hono/node-server';
import { createApp } from './app';
import { ConfigError, loadConfig } from './config/load-config';
import { createLogger } from './logger';
import { openStore } from './store/open-store';

/** Grace period for in-flight requests on shutdown before the process exits anyway. */
const SHUTDOWN_GRACE_MS = 10_000;

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`memory-proxy: invalid configuration: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const logger = createLogger(config.logLevel);
  const storeName = config.neo4j ? `Neo4j at ${config.neo4j.uri}` : `the embedded store in ${config.dataDir}`;
  let store;
  try {
    store = await openStore(config);
  } catch (error) {
    process.stderr.write(`memory-proxy: cannot open ${storeName}: ${(error as Error).message}\n`);
    process.exit(1);
  }
  const app = createApp({ config, store, logger });
  const server = serve({ fetch: app.fetch, port: config.port, hostname: config.host }, (info) => {
    logger.info('memory-proxy listening', { url: `http://${config.host}:${info.port}`, store: store.kind, upstream: config.upstreamBaseUrl });
  });

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info('shutting down', { signal });
    const force = setTimeout(() => process.exit(0), SHUTDOWN_GRACE_MS);
    force.unref();
    server.close(() => {
      void store.close().finally(() => process.exit(0));
    });
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}

void main();
