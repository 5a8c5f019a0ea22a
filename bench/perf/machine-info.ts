import { execFileSync } from 'node:child_process';
import os from 'node:os';

/** Where and on what a benchmark ran, for the header of its results. */
export interface MachineInfo {
  date: string;
  cpu: string;
  cores: number;
  memoryGiB: number;
  node: string;
  commit: string;
  /** 1, 5 and 15 minute load averages when the benchmark started (others' work skews timings). */
  loadAverage: string;
}

/** Describes this machine and the checked-out commit. */
export function machineInfo(): MachineInfo {
  return {
    date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    cpu: os.cpus()[0]?.model ?? 'unknown',
    cores: os.cpus().length,
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    // BENCH_COMMIT names the commit when the benchmark runs from an export, outside the repository.
    commit: process.env['BENCH_COMMIT'] ?? commitOf(),
    loadAverage: os.loadavg().map((value) => value.toFixed(1)).join(' / '),
  };
}

function commitOf(): string {
  try {
    const git = (args: string[]) => execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const head = git(['rev-parse', '--short', 'HEAD']);
    const dirty = git(['status', '--porcelain', '--untracked-files=no', '--', 'src']) !== '';
    return dirty ? `${head} (with uncommitted changes in src/)` : head;
  } catch {
    return 'unknown';
  }
}
