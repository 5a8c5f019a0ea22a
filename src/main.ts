import { createApp, createMaintenance, memoryWriter } from './app';
import { ConfigError, loadConfig } from './config/load-config';
import { createEmbedder } from './embeddings/create-embedder';
import { ensureEmbeddingModel } from './embeddings/ensure-embedding-model';
import { listen } from './http/listen';
import { createLogger } from './logger';
import { BackgroundQueue } from './memory/background-queue';
import { sweepMissingEmbeddings } from './memory/embed-and-link';
import { openStore } from './store/open-store';
import { isPrimaryOf, runWorkers, WORKER_SLOT_VARIABLE } from './run-workers';

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
  if (isPrimaryOf(config.workers)) {
    runWorkers({ workers: config.workers, logger });
    return;
  }
  // With WORKERS=n, slot 0 alone sweeps and runs the upkeep; a single process is slot 0.
  const leader = (process.env[WORKER_SLOT_VARIABLE] ?? '0') === '0';
  const storeName = config.neo4j ? `Neo4j at ${config.neo4j.uri}` : `the embedded store in ${config.dataDir}`;
  let store;
  try {
    store = await openStore(config);
  } catch (error) {
    process.stderr.write(`memory-proxy: cannot open ${storeName}: ${(error as Error).message}\n`);
    process.exit(1);
  }
  const embedder = createEmbedder(config);
  try {
    const model = await ensureEmbeddingModel(store, embedder, { onMismatch: config.embeddingReembed ? 'reembed' : 'refuse' });
    if (model.changed) logger.warn('embedding model changed: re-embedding the store', { previous: model.previous, model: embedder.model });
  } catch (error) {
    process.stderr.write(`memory-proxy: ${(error as Error).message}\n`);
    await store.close();
    process.exit(1);
  }
  const background = new BackgroundQueue(logger);
  // Finishes what a crash or a model change left without an embedding, without delaying startup.
  if (leader) {
    background.push('startup-sweep', async () => {
      const embedded = await sweepMissingEmbeddings(memoryWriter({ store, embedder, config }));
      if (embedded > 0) logger.info('startup sweep embedded stored items', { count: embedded });
    });
  }
  // Topics, period summaries, orphan cleanup and retention, on a timer that never keeps the process up.
  const maintenance = createMaintenance({ config, store, logger });
  const app = createApp({ config, store, embedder, logger, background, maintenance });
  if (leader) maintenance.start(config.maintenanceIntervalSeconds * 1000);
  const server = listen(app, { port: config.port, hostname: config.host, keepAliveSeconds: config.keepAliveSeconds }, (port) => {
    logger.info('memory-proxy listening', { url: `http://${config.host}:${port}`, store: store.kind, upstream: config.upstreamBaseUrl });
  });

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info('shutting down', { signal });
    const force = setTimeout(() => process.exit(0), SHUTDOWN_GRACE_MS);
    force.unref();
    server.close(() => {
      void maintenance
        .stop()
        .then(() => background.stop())
        .then(() => store.close())
        .finally(() => process.exit(0));
    });
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}

void main();
