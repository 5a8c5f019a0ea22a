/**
 * The proxy as a benchmark runs it: the real app (createApp) in its own process, configured by
 * the environment like `npm start`, on 127.0.0.1 and a free port. It reports the port over IPC
 * and answers `stats` (RSS, background jobs), `warm` (load a scope's vector index), `drain` and
 * `profile-start` / `profile-stop` (a V8 CPU profile of a timed phase only, written to a file).
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { createApp, memoryWriter } from '../../src/app';
import { loadConfig } from '../../src/config/load-config';
import { createEmbedder } from '../../src/embeddings/create-embedder';
import { ensureEmbeddingModel } from '../../src/embeddings/ensure-embedding-model';
import { listen } from '../../src/http/listen';
import { createLogger } from '../../src/logger';
import { BackgroundQueue } from '../../src/memory/background-queue';
import { sweepMissingEmbeddings } from '../../src/memory/embed-and-link';
import { openStore } from '../../src/store/open-store';
import type { Scope } from '../../src/store/types';

/** Messages the benchmark sends the proxy process. */
export type ProxyCommand =
  | { id: number; type: 'stats' }
  | { id: number; type: 'warm'; scopes: Scope[] }
  | { id: number; type: 'drain' }
  | { id: number; type: 'profile-start' }
  | { id: number; type: 'profile-stop'; path: string };

const config = loadConfig(process.env);
const logger = createLogger(config.logLevel);
const store = await openStore(config);
const embedder = createEmbedder(config);
await ensureEmbeddingModel(store, embedder, { onMismatch: 'refuse' });
const background = new BackgroundQueue(logger);
await sweepMissingEmbeddings(memoryWriter({ store, embedder, config }));
const app = createApp({ config, store, embedder, logger, background });
const server = listen(app, { port: 0, hostname: '127.0.0.1', keepAliveSeconds: config.keepAliveSeconds }, (port) => {
  process.send?.({ type: 'listening', port });
});

process.on('message', (message: ProxyCommand) => {
  void answer(message).then(
    (result) => process.send?.({ id: message.id, result }),
    (error: unknown) => process.send?.({ id: message.id, error: String(error) }),
  );
});
process.on('disconnect', () => {
  server.close();
  void background.stop().then(() => store.close()).finally(() => process.exit(0));
});

async function answer(command: ProxyCommand): Promise<unknown> {
  if (command.type === 'stats') return { rss: process.memoryUsage().rss, background: background.pending, cpuMs: cpuMs() };
  if (command.type === 'drain') return background.drain();
  if (command.type === 'profile-start') return startProfile();
  if (command.type === 'profile-stop') return stopProfile(command.path);
  // The embedded store's vector indexes load on a scope's first search; a benchmark measures
  // requests after that, and reports the loading on its own.
  const warm = (store as { warmVectorIndex?: (scope: Scope) => Promise<unknown> }).warmVectorIndex;
  if (!warm) return { ms: null };
  const started = performance.now();
  for (const scope of command.scopes) await warm.call(store, scope);
  return { ms: performance.now() - started };
}

let profiler: Session | undefined;

async function startProfile(): Promise<void> {
  profiler = new Session();
  profiler.connect();
  await profiler.post('Profiler.enable');
  await profiler.post('Profiler.start');
}

async function stopProfile(path: string): Promise<string> {
  if (!profiler) throw new Error('no profile was started');
  const { profile } = await profiler.post('Profiler.stop');
  profiler.disconnect();
  profiler = undefined;
  writeFileSync(path, JSON.stringify(profile));
  return path;
}

/** CPU time this process has used so far, user and system, in milliseconds (every thread of it). */
function cpuMs(): number {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1000;
}
