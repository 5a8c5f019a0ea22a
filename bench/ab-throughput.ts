/**
 * Alternating throughput runs of two revisions, for changes smaller than the drift of a shared
 * host between runs (the same code gave 0.90-1.28x between the two runs of a pair on the EPYC
 * host, bench/NOTES.md). Each pair runs both revisions back to back, the order swapped from
 * pair to pair, and the ratios are taken within pairs; the report gives each run, each pair's
 * ratios and their medians.
 *   npm run bench:ab -- --base <rev> [--head <rev>] [--pairs 5] [--seconds 20] [--warm-seconds 20]
 *     [--clients 64] [--suffix name]   (results in ab-throughput-<suffix>-<date>.md)
 * Without --head the second side is this checkout as it is, uncommitted changes included. A
 * revision runs from a detached worktree of its own with this checkout's node_modules, so both
 * sides must have the same package-lock.json. Each run is `bench/throughput.ts` on the embedded
 * store without the streaming phase.
 */
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArguments } from './perf/bench-store';
import { startReport, writeReport } from './perf/report';

const REPO = fileURLToPath(new URL('..', import.meta.url));

/** One side of the comparison: where it runs from, and what to call it. */
interface Side {
  label: string;
  directory: string;
  /** Removes its worktree, if it has one. */
  dispose(): void;
}

/** The 64-client row of one throughput run. */
interface RunResult {
  requestsPerSecond: number;
  /** Requests a second counting the time to finish the background work left queued. */
  withBacklogDone: number;
  /** Proxy CPU ms a request. */
  cpuMs: number;
  p50Ms: number;
  errors: number;
}

const options = parseArguments(process.argv.slice(2));
const base = options.get('base');
if (base === undefined || base === 'true') throw new Error('--base <rev> is required');
const head = options.get('head');
const pairs = wholeNumber('pairs', 5);
const seconds = wholeNumber('seconds', 20);
const warmSeconds = wholeNumber('warm-seconds', 20, 0);
const clients = wholeNumber('clients', 64);

/** The whole-number option `name`, at least `least`. */
function wholeNumber(name: string, fallback: number, least = 1): number {
  const value = Number(options.get(name) ?? fallback);
  if (!Number.isInteger(value) || value < least)
    throw new Error(`--${name} must be a whole number of at least ${least}`);
  return value;
}

function git(...args: string[]): string {
  return execFileSync('git', args, { cwd: REPO, encoding: 'utf8' }).trim();
}

/** The short name of the commit `rev` names; throws for a revision that names none. */
function commitOf(rev: string): string {
  return git('rev-parse', '--short', `${rev}^{commit}`);
}

/** A detached worktree of `commit` that uses this checkout's node_modules. */
function worktree(commit: string): Side {
  const directory = path.join(mkdtempSync(path.join(tmpdir(), 'memory-proxy-ab-')), commit);
  git('worktree', 'add', '--detach', directory, commit);
  symlinkSync(path.join(REPO, 'node_modules'), path.join(directory, 'node_modules'));
  return {
    label: commit,
    directory,
    dispose: () => {
      git('worktree', 'remove', '--force', directory);
      rmSync(path.dirname(directory), { recursive: true, force: true });
    },
  };
}

/** Fails unless both sides install the same packages (they share one node_modules). */
function checkSamePackages(baseRev: string, headRev: string | undefined): void {
  try {
    // Exits with 1, and git() throws, when the file differs.
    git(
      'diff',
      '--quiet',
      baseRev,
      ...(headRev === undefined ? [] : [headRev]),
      '--',
      'package-lock.json',
    );
  } catch {
    throw new Error(
      'the two sides have different package-lock.json files: they cannot share node_modules',
    );
  }
}

/** Runs one throughput measurement from `side`. */
async function run(side: Side, runIndex: number): Promise<RunResult> {
  const args = [
    'tsx',
    'bench/throughput.ts',
    '--stores',
    'sqlite',
    '--seconds',
    String(seconds),
    '--warm-seconds',
    String(warmSeconds),
    '--clients',
    String(clients),
    '--streams',
    '0',
    '--suffix',
    `ab-${side.label}-${runIndex}`,
  ];
  const output = await new Promise<string>((resolve, reject) => {
    const child = spawn('npx', args, { cwd: side.directory, stdio: ['ignore', 'pipe', 'inherit'] });
    let text = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => (text += chunk));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0
        ? resolve(text)
        : reject(new Error(`throughput run of ${side.label} exited with ${code}`)),
    );
  });
  // The run's own report is a by-product here: the comparison's report holds its row.
  const written = /\(written to (bench\/results\/[^)]+\.md)\)/.exec(output)?.[1];
  if (written !== undefined) rmSync(path.join(side.directory, written), { force: true });
  const lines = output.split('\n');
  const header = lines.find((line) => line.startsWith('| load |'));
  const row = lines.find((line) => line.startsWith(`| ${clients} clients, non-streaming |`));
  if (header === undefined || row === undefined)
    throw new Error(`no ${clients}-client row in the output of ${side.label}`);
  // Read by column name, so a column added to the throughput table moves nothing here.
  const cells = (line: string) => line.split('|').map((cell) => cell.trim());
  const names = cells(header);
  const values = cells(row);
  const column = (name: string): number => {
    const value = Number(values[names.indexOf(name)]);
    if (!names.includes(name) || Number.isNaN(value))
      throw new Error(`no "${name}" figure in the output of ${side.label}`);
    return value;
  };
  return {
    requestsPerSecond: column('req/s'),
    withBacklogDone: column('req/s with the backlog done'),
    p50Ms: column('p50 ms'),
    errors: column('errors'),
    cpuMs: column('proxy CPU ms a request'),
  };
}

const ratio = (value: number): string => value.toFixed(3);
/** The middle value, or the mean of the two middle ones. */
function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

const machine = startReport();
// Both named before anything else, so a bad revision is reported as such and leaves no worktree.
const baseCommit = commitOf(base);
const headCommit = head === undefined ? undefined : commitOf(head);
checkSamePackages(baseCommit, headCommit);
const baseSide = worktree(baseCommit);
const headSide: Side =
  headCommit === undefined
    ? { label: 'checkout', directory: REPO, dispose: () => undefined }
    : worktree(headCommit);
const rows: (string | number)[][] = [];
const ratios = { requests: [] as number[], backlogDone: [] as number[], cpu: [] as number[] };
try {
  for (let pair = 0; pair < pairs; pair++) {
    // Swapped every other pair, so a host slowing down through the session favours neither side.
    const order = pair % 2 === 0 ? [baseSide, headSide] : [headSide, baseSide];
    const results = new Map<Side, RunResult>();
    for (const side of order) {
      const result = await run(side, pair);
      results.set(side, result);
      rows.push([
        pair + 1,
        side.label,
        result.requestsPerSecond,
        result.withBacklogDone,
        result.p50Ms,
        result.cpuMs,
        result.errors,
      ]);
      process.stderr.write(
        `pair ${pair + 1}, ${side.label}: ${result.requestsPerSecond} req/s (${result.withBacklogDone}), ${result.cpuMs} ms CPU a request\n`,
      );
    }
    const before = results.get(baseSide)!;
    const after = results.get(headSide)!;
    ratios.requests.push(after.requestsPerSecond / before.requestsPerSecond);
    ratios.backlogDone.push(after.withBacklogDone / before.withBacklogDone);
    ratios.cpu.push(after.cpuMs / before.cpuMs);
  }
} finally {
  baseSide.dispose();
  headSide.dispose();
}

const range = (values: number[]) =>
  `${ratio(median(values))} (${ratio(Math.min(...values))}-${ratio(Math.max(...values))})`;
writeReport(
  {
    name: 'ab-throughput',
    suffix: options.get('suffix'),
    title: `Throughput, ${headSide.label} against ${baseSide.label}, in alternating runs`,
    command: `npm run bench:ab -- --base ${base}${head === undefined ? '' : ` --head ${head}`} --pairs ${pairs} --seconds ${seconds} --warm-seconds ${warmSeconds} --clients ${clients}`,
    store: 'sqlite',
    embedder: 'local-v1:384',
    conditions: {
      base: baseSide.label,
      head: head === undefined ? 'this checkout, uncommitted changes included' : headSide.label,
      runs: `${pairs} pair${pairs === 1 ? '' : 's'} of \`bench/throughput.ts\`, ${clients} non-streaming clients, ${warmSeconds} s untimed then ${seconds} s timed`,
    },
    tables: [
      {
        title: 'Runs, in the order they ran',
        columns: [
          'pair',
          'side',
          'req/s',
          'req/s with the backlog done',
          'p50 ms',
          'proxy CPU ms a request',
          'errors',
        ],
        rows,
      },
      {
        title: `${headSide.label} / ${baseSide.label} within each pair: median (range)`,
        columns: ['req/s', 'req/s with the backlog done', 'proxy CPU ms a request'],
        rows: [[range(ratios.requests), range(ratios.backlogDone), range(ratios.cpu)]],
      },
    ],
    notes: [
      'A ratio above 1 for req/s, or below 1 for CPU, favours the second side. The same code on both sides gave pair ratios of 0.90-1.28 on the EPYC host (bench/NOTES.md): read the median of several pairs, never one pair.',
    ],
  },
  machine,
);
