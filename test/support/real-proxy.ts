import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

const REPO = path.join(import.meta.dirname, '..', '..');

/** The real proxy process (`src/main.ts` under tsx), as an operator runs it. */
export interface RealProxy {
  origin: string;
  child: ChildProcess;
  /** Its last 500 log lines (JSON on stderr). */
  log: string[];
  /** SIGKILL: no shutdown hook runs, as in a crash or an OOM kill. */
  kill(): Promise<void>;
  /** SIGTERM: the graceful shutdown. */
  stop(): Promise<void>;
}

/** Starts `src/main.ts` with `env` on a free port and resolves once it listens (LOG_LEVEL must be info or debug). */
export async function startRealProxy(env: Record<string, string>): Promise<RealProxy> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: REPO,
    env: { ...process.env, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const log: string[] = [];
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const origin = await new Promise<string>((resolve, reject) => {
    let buffered = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        // Only the recent lines: a long run must not grow the caller's memory.
        if (log.length >= 500) log.shift();
        log.push(line);
        const url = /"message":"memory-proxy listening".*"url":"(http:\/\/[^"]+)"/.exec(line)?.[1];
        if (url) resolve(url);
      }
    });
    child.once('exit', (code) =>
      reject(
        new Error(`the proxy exited (${code}) before listening:\n${log.join('\n')}${buffered}`),
      ),
    );
  });
  return {
    origin,
    child,
    log,
    async kill() {
      child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
