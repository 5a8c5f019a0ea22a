import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Neo4jConfig } from '../../src/config/load-config';

const run = promisify(execFile);
const SCRIPT = path.join(import.meta.dirname, '..', '..', 'scripts', 'neo4j.sh');

/** A Neo4j server of a test's own, which the test may kill; the shared one on 7687 is never touched. */
export interface OwnNeo4j {
  config: Neo4jConfig;
  /** Starts the server (again), on the same data. */
  start(): Promise<void>;
  /** Kills the server process at once (SIGKILL), as a crash or an OOM kill would. */
  kill(): void;
  /** Stops the server and removes its data. */
  destroy(): Promise<void>;
}

/** Prepares a Neo4j on `port` with its data in a fresh temporary folder (started by start()). */
export function ownNeo4j(port: number): OwnNeo4j {
  const home = mkdtempSync(path.join(tmpdir(), 'memory-proxy-own-neo4j-'));
  const env = {
    ...process.env,
    NEO4J_PORT: String(port),
    NEO4J_HOME_DIR: home,
    NEO4J_HEAP: '512m',
    NEO4J_PAGECACHE_MB: '64',
  };
  const script = (command: string) => run('bash', [SCRIPT, command], { env, timeout: 240_000 });
  return {
    config: { uri: `bolt://127.0.0.1:${port}`, user: 'neo4j', password: '', database: 'neo4j' },
    async start() {
      await script('start');
    },
    kill() {
      const pid = Number(readFileSync(path.join(home, 'neo4j.pid'), 'utf8').trim());
      process.kill(pid, 'SIGKILL');
    },
    async destroy() {
      await script('stop').catch(() => undefined);
      rmSync(home, { recursive: true, force: true });
    },
  };
}
