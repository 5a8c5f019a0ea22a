import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Scope } from '../../src/store/types';
import type { ProxyCommand } from './proxy-process';

const ENTRY = fileURLToPath(new URL('./proxy-process.ts', import.meta.url));

/** A proxy running in its own process, and the way to talk to it. */
export interface ProxyChild {
  /** e.g. http://127.0.0.1:40123 */
  origin: string;
  stats(): Promise<ProxyStats>;
  /** Loads the vector indexes of scopes (embedded store); resolves with the milliseconds it took (null: Neo4j). */
  warm(scopes: Scope[]): Promise<{ ms: number | null }>;
  /** Waits until the proxy's background jobs (embeddings, synapses) are done. */
  drain(): Promise<void>;
  /** Starts a V8 CPU profile of the proxy process. */
  startProfile(): Promise<void>;
  /** Stops the profile and writes it (a .cpuprofile file for Chrome DevTools) to `path`. */
  stopProfile(path: string): Promise<string>;
  stop(): Promise<void>;
}

/** What a proxy process reports of itself. */
export interface ProxyStats {
  rss: number;
  /** Background jobs queued or running. */
  background: number;
  /** CPU time used since the process started, every thread, in milliseconds. */
  cpuMs: number;
}

function proxyNodeArguments(): string[] {
  return (process.env['BENCH_PROXY_NODE_ARGS'] ?? '').split(/\s+/).filter((argument) => argument !== '');
}

/** Starts the proxy process with the given environment (on top of quiet logging). */
export async function startProxyChild(env: Record<string, string>): Promise<ProxyChild> {
  const child: ChildProcess = fork(ENTRY, [], {
    env: { ...process.env, LOG_LEVEL: 'silent', HOST: '127.0.0.1', ...env },
    // As `npm start` runs the proxy (package.json). BENCH_PROXY_NODE_ARGS adds flags Node
    // refuses in NODE_OPTIONS, such as `--cpu-prof --cpu-prof-dir=<dir>` (a profile of every
    // thread of the proxy, search thread included, written when it exits).
    execArgv: ['--max-semi-space-size=64', ...proxyNodeArguments(), '--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  let nextId = 1;
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the proxy process exited with ${code} before listening`)));
    child.on('message', (message: { type?: string; port?: number; id?: number; result?: unknown; error?: string }) => {
      if (message.type === 'listening' && message.port) resolve(message.port);
      if (message.id === undefined) return;
      const waiter = pending.get(message.id);
      pending.delete(message.id);
      if (message.error !== undefined) waiter?.reject(new Error(message.error));
      else waiter?.resolve(message.result);
    });
  });
  const ask = <T>(command: { type: ProxyCommand['type']; scopes?: Scope[]; path?: string }): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      child.send({ ...command, id });
    });
  return {
    origin: `http://127.0.0.1:${port}`,
    stats: () => ask({ type: 'stats' }),
    warm: (scopes) => ask({ type: 'warm', scopes }),
    drain: () => ask({ type: 'drain' }),
    startProfile: () => ask({ type: 'profile-start' }),
    stopProfile: (path) => ask({ type: 'profile-stop', path }),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        child.disconnect();
      }),
  };
}

/** `count` proxy processes on one store, as `WORKERS=count` runs them; client `index` talks to one of them. */
export interface ProxyGroup {
  count: number;
  originFor(index: number): string;
  /** RSS, background jobs and CPU time, each summed over the processes. */
  stats(): Promise<ProxyStats>;
  warm(scopes: Scope[]): Promise<void>;
  drain(): Promise<void>;
  /**
   * With BENCH_CPU_PROF_DIR=<dir> set, runs `work` under a V8 CPU profile of every process and
   * writes <dir>/<label>-<process>.cpuprofile; without it, just runs `work`. Profiling only the
   * timed load keeps start-up, seeding and cold caches out of the profile.
   */
  profiled<T>(label: string, work: () => Promise<T>): Promise<T>;
  stop(): Promise<void>;
}

/**
 * Starts `count` proxy processes on the same store. WORKERS=n shares one port through the
 * primary, which hands each connection to the next worker; a client here keeps its connection
 * to one process the same way, picked by its index.
 */
export async function startProxyGroup(env: Record<string, string>, count: number): Promise<ProxyGroup> {
  // Each process is configured as WORKERS=count configures it (the search thread's default
  // depends on it); the benchmark starts them itself, so none forks.
  const children = await Promise.all(Array.from({ length: count }, () => startProxyChild({ ...env, WORKERS: String(count) })));
  return {
    count,
    originFor: (index) => children[index % count]!.origin,
    async stats() {
      const all = await Promise.all(children.map((child) => child.stats()));
      const sum = (field: keyof ProxyStats) => all.reduce((total, one) => total + one[field], 0);
      return { rss: sum('rss'), background: sum('background'), cpuMs: sum('cpuMs') };
    },
    async warm(scopes) {
      // Each process loads the indexes of the scopes its clients use.
      await Promise.all(children.map((child, slot) => child.warm(scopes.filter((_, index) => index % count === slot))));
    },
    async drain() {
      await Promise.all(children.map((child) => child.drain()));
    },
    async profiled(label, work) {
      const directory = process.env['BENCH_CPU_PROF_DIR'];
      if (!directory) return work();
      await Promise.all(children.map((child) => child.startProfile()));
      try {
        return await work();
      } finally {
        const name = label.replace(/[^a-z0-9]+/gi, '-').toLowerCase();
        await Promise.all(children.map((child, slot) => child.stopProfile(join(directory, `${name}-${slot}.cpuprofile`))));
      }
    },
    async stop() {
      await Promise.all(children.map((child) => child.stop()));
    },
  };
}
