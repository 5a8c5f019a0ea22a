import type { AddressInfo } from 'node:net';
import type { ServerType } from '@hono/node-server';
import { createApp, type AppDeps } from '../../src/app';
import { loadConfig, type Config } from '../../src/config/load-config';
import { LocalEmbedder } from '../../src/embeddings/local-embedder';
import { listen } from '../../src/http/listen';
import { createLogger } from '../../src/logger';
import { BackgroundQueue } from '../../src/memory/background-queue';
import type { MemoryStore } from '../../src/store/memory-store';
import { TEST_DIMENSIONS } from './stores';

/** A running proxy: the real app over real HTTP on 127.0.0.1, with a real store. */
export interface RunningProxy {
  /** e.g. http://127.0.0.1:40123 */
  origin: string;
  /** The OpenAI base URL for a scope: `${origin}/partition/<p>/instance/<i>/v1`. */
  baseUrl(partition: string, instance: string): string;
  config: Config;
  store: MemoryStore;
  /** Embeddings and synapses run here after answers; drain it before asserting on them. */
  background: BackgroundQueue;
  close(): Promise<void>;
}

/** Starts the proxy in-process on a free port against `upstreamUrl`. */
export async function startProxy(options: {
  store: MemoryStore;
  upstreamUrl: string;
  env?: Record<string, string>;
  deps?: Partial<AppDeps>;
}): Promise<RunningProxy> {
  const config = loadConfig({
    UPSTREAM_BASE_URL: options.upstreamUrl,
    UPSTREAM_TIMEOUT_MS: '5000',
    LOG_LEVEL: 'silent',
    ...options.env,
  });
  const logger = createLogger(config.logLevel);
  const background = options.deps?.background ?? new BackgroundQueue(logger);
  const embedder = options.deps?.embedder ?? new LocalEmbedder({ dimensions: TEST_DIMENSIONS });
  const app = createApp({ config, store: options.store, logger, embedder, background, ...options.deps });
  const server = await new Promise<ServerType>((resolve) => {
    const started = listen(app, { port: 0, hostname: '127.0.0.1', keepAliveSeconds: config.keepAliveSeconds }, () => resolve(started));
  });
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    baseUrl: (partition, instance) => `${origin}/partition/${partition}/instance/${instance}/v1`,
    config,
    store: options.store,
    background,
    close: () =>
      new Promise<void>((resolve) => {
        void background.drain();
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}
