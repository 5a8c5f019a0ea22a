import { createApp, createMaintenance, memoryWriter } from './app';
import { ConfigError, loadConfig, type Config } from './config/load-config';
import { createEmbedder } from './embeddings/create-embedder';
import type { Embedder } from './embeddings/embedder';
import { ensureEmbeddingModel } from './embeddings/ensure-embedding-model';
import { listen } from './http/listen';
import { createLogger, type Logger } from './logger';
import { BackgroundQueue } from './memory/background-queue';
import { sweepMissingEmbeddings } from './memory/embed-and-link';
import type { MemoryStore } from './store/memory-store';
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
  const embedder = createEmbedder(config);
  if (isPrimaryOf(config.workers)) {
    // The schema is created or upgraded, and the embedding model checked, once and before any
    // worker opens the store: an upgrade that builds an index can outlast a worker's wait for
    // the write lock, two workers re-embedding at once could each drop the other's new vectors,
    // and a store that cannot be used stops the proxy instead of failing every worker in turn.
    await (await openReadyStore(config, embedder, logger)).close();
    runWorkers({ workers: config.workers, logger });
    return;
  }
  // With WORKERS=n, slot 0 alone sweeps and runs the upkeep; a single process is slot 0.
  const leader = (process.env[WORKER_SLOT_VARIABLE] ?? '0') === '0';
  const store = await openReadyStore(config, embedder, logger);
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

/**
 * Opens the configured store, creating or upgrading its schema, and makes sure its vectors are
 * the configured embedder's; exits with a message when either cannot be done.
 */
async function openReadyStore(config: Config, embedder: Embedder, logger: Logger): Promise<MemoryStore> {
  const storeName = config.neo4j ? `Neo4j at ${config.neo4j.uri}` : `the embedded store in ${config.dataDir}`;
  let store: MemoryStore;
  try {
    store = await openStore(config);
  } catch (error) {
    process.stderr.write(`memory-proxy: cannot open ${storeName}: ${(error as Error).message}\n`);
    process.exit(1);
  }
  try {
    const model = await ensureEmbeddingModel(store, embedder, { onMismatch: config.embeddingReembed ? 'reembed' : 'refuse' });
    if (model.changed) logger.warn('embedding model changed: re-embedding the store', { previous: model.previous, model: embedder.model });
  } catch (error) {
    process.stderr.write(`memory-proxy: ${(error as Error).message}\n`);
    await store.close();
    process.exit(1);
  }
  return store;
}

void main();
