/**
 * Does the proxy remember? Plays long seeded conversations through the real proxy (embedded
 * SQLite store, local embedder, fake upstream), plants facts early, asks about them late, and
 * checks whether each fact reached the upstream request, against two baselines: the recent
 * window alone, and the whole history (computed).
 *
 *   npm run bench:recall                         3 conversations x 1,500 turns, 30 facts, 2k/4k/8k
 *   npm run bench:recall -- --quick              a small smoke run (nothing written unless --out)
 *   npm run bench:recall -- --tune               also the budget-split grid (INDEX_MAX_TOKENS,
 *                                                memory tools, running summary, index format)
 *
 * Flags: --turns N (stored turns per conversation: a message and its answer are two),
 * --conversations N, --facts N, --windows 2048,4096,8192, --seed N, --max-tokens N,
 * --index-caps 250,500,1000,2000,4000 (with --tune), --configs memory,recent (main runs), --jobs N (parallel runs, default: cores),
 * --drain-every N (exchanges between background drains), --env NAME=VALUE (proxy setting for every
 * run, repeatable), --neighbour-turns N (a busier instance of that many turns in the same store,
 * written in the same words, so that few words of a question are rare in the store), --out FILE,
 * --json FILE (every question's record).
 * Writes bench/results/recall-<date>.md (recall-<date>-tune.md with --tune).
 */
import { execFileSync, fork } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config/load-config';
import { FACT_ZONE, generateConversation } from './recall-generator';
import {
  EMBEDDING_DIMENSIONS,
  playJob,
  probeBudgets,
  type PlayJob,
  type PlayResult,
} from './recall-play';
import {
  channelTable,
  fullHistorySummary,
  mainTable,
  summarize,
  tuneTable,
  type Summary,
  type TuneRow,
} from './recall-report';

interface Options {
  turns: number;
  conversations: number;
  facts: number;
  windows: number[];
  seed: number;
  maxTokens: number;
  indexCaps: number[];
  /** Which of the main configurations to run: memory (the defaults), recent (the recent-window baseline). */
  configs: Set<string>;
  jobs: number;
  drainEvery: number;
  /** Turns of a neighbouring instance stored first, in the conversations' vocabulary (0: none). */
  neighbourTurns: number;
  quick: boolean;
  tune: boolean;
  out: string | null;
  /** Also writes every question's record as JSON here, for digging into the figures. */
  json: string | null;
  /** Proxy environment added to every run (--env NAME=VALUE, repeatable), e.g. to try a setting. */
  env: Record<string, string>;
}

const SCRIPT = fileURLToPath(import.meta.url);
const ROOT = path.resolve(path.dirname(SCRIPT), '..');
const RECENT_ONLY = { MEMORY_INDEX: 'false', MEMORY_SUMMARY: 'false', MEMORY_TOOLS: 'false' };
/** The proxy's defaults (src/config/load-config.ts). */
const DEFAULTS = loadConfig({});
/** The default INDEX_MAX_TOKENS. */
const DEFAULT_INDEX_MAX_TOKENS = DEFAULTS.indexMaxTokens;
/** The default INDEX_BUDGET_SHARE: the index reserve is min(INDEX_MAX_TOKENS, share x budget). */
const INDEX_SHARE = DEFAULTS.indexBudgetShare;

function parseOptions(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv,
    options: {
      turns: { type: 'string' },
      conversations: { type: 'string' },
      facts: { type: 'string' },
      windows: { type: 'string' },
      seed: { type: 'string', default: '1' },
      'max-tokens': { type: 'string', default: '256' },
      'index-caps': { type: 'string', default: '250,500,1000,2000,4000' },
      configs: { type: 'string', default: 'memory,recent' },
      jobs: { type: 'string', default: String(os.cpus().length) },
      'drain-every': { type: 'string', default: '25' },
      'neighbour-turns': { type: 'string', default: '0' },
      quick: { type: 'boolean', default: false },
      tune: { type: 'boolean', default: false },
      out: { type: 'string' },
      json: { type: 'string' },
      env: { type: 'string', multiple: true },
    },
    strict: true,
  });
  const int = (name: string, raw: string | undefined, fallback: number, min: number): number => {
    const value = raw === undefined ? fallback : Number(raw);
    if (!Number.isInteger(value) || value < min)
      throw new Error(`--${name} must be a whole number of at least ${min}, got "${raw}"`);
    return value;
  };
  const list = (name: string, raw: string, min: number): number[] =>
    raw.split(',').map((part) => int(name, part.trim(), 0, min));
  const quick = values.quick === true;
  return {
    turns: int('turns', values.turns, quick ? 300 : 1500, 40),
    conversations: int('conversations', values.conversations, quick ? 1 : 3, 1),
    facts: int('facts', values.facts, quick ? 8 : 30, 1),
    windows: list('windows', values.windows ?? (quick ? '2048,4096' : '2048,4096,8192'), 100),
    seed: int('seed', values.seed, 1, 0),
    maxTokens: int('max-tokens', values['max-tokens'], 256, 1),
    indexCaps: list('index-caps', values['index-caps'] ?? '', 0),
    configs: configsOf(values.configs ?? ''),
    jobs: int('jobs', values.jobs, os.cpus().length, 1),
    drainEvery: int('drain-every', values['drain-every'], 25, 1),
    neighbourTurns: int('neighbour-turns', values['neighbour-turns'], 0, 0),
    quick,
    tune: values.tune === true,
    out: values.out ?? null,
    json: values.json ?? null,
    env: envOf(values.env ?? []),
  };
}

function envOf(pairs: string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const pair of pairs) {
    const match = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(pair);
    if (!match) throw new Error(`--env takes NAME=VALUE, got "${pair}"`);
    env[match[1]!] = match[2]!;
  }
  return env;
}

function configsOf(raw: string): Set<string> {
  const configs = new Set(
    raw
      .split(',')
      .map((part) => part.trim())
      .filter((part) => part !== ''),
  );
  for (const config of configs)
    if (config !== 'memory' && config !== 'recent')
      throw new Error(`--configs takes memory and/or recent, got "${config}"`);
  return configs;
}

function job(options: Options, run: Pick<PlayJob, 'label' | 'window' | 'env'>): PlayJob {
  const { maxTokens, seed, turns, facts, conversations, drainEvery, neighbourTurns } = options;
  return {
    ...run,
    env: { ...options.env, ...run.env },
    maxTokens,
    seed,
    turns,
    facts,
    conversations,
    drainEvery,
    neighbourTurns,
  };
}

/** INDEX_CLUSTERING_THRESHOLD that puts the index in the clusters format past 50 retrieval results. */
const CLUSTERS_PAST_50 = 50;

/**
 * The budget-split grid. Every INDEX_MAX_TOKENS cap with the memory tools on and off (summary on,
 * default index format: snippets at these result counts); then, at the largest index reserve, the
 * running summary off, and the clusters format instead of snippets. Caps above INDEX_SHARE x
 * budget give the same reserve and run once.
 */
async function tuneJobs(
  options: Options,
): Promise<{ jobs: PlayJob[]; rows: Map<PlayJob, Omit<TuneRow, 'summary'>> }> {
  const rows = new Map<PlayJob, Omit<TuneRow, 'summary'>>();
  const byKey = new Map<string, PlayJob>();
  const add = (point: Omit<TuneRow, 'summary' | 'caps'>, window: number, cap: number) => {
    const key = `${window}|${point.tools}|${point.memorySummary}|${point.format}|${point.indexReserve}`;
    const existing = byKey.get(key);
    if (existing) {
      rows.get(existing)!.caps.push(cap);
      return;
    }
    const env: Record<string, string> = {
      MEMORY_TOOLS: String(point.tools),
      MEMORY_SUMMARY: String(point.memorySummary),
      INDEX_MAX_TOKENS: String(cap),
    };
    if (point.format === 'clusters') env['INDEX_CLUSTERING_THRESHOLD'] = String(CLUSTERS_PAST_50);
    const label = `tools ${point.tools ? 'on' : 'off'}, summary ${point.memorySummary ? 'on' : 'off'}, ${point.format}, index cap ${cap}`;
    const tuned = job(options, { label, window, env });
    byKey.set(key, tuned);
    rows.set(tuned, { ...point, caps: [cap] });
  };
  const largest = Math.max(...options.indexCaps);
  for (const tools of [true, false]) {
    const budgets = await probeBudgets({
      windows: options.windows,
      maxTokens: options.maxTokens,
      tools,
    });
    for (const window of options.windows) {
      const shareCap = Math.floor(budgets.get(window)! * INDEX_SHARE);
      for (const cap of options.indexCaps)
        add(
          { tools, memorySummary: true, format: 'snippets', indexReserve: Math.min(cap, shareCap) },
          window,
          cap,
        );
      const indexReserve = Math.min(largest, shareCap);
      add({ tools, memorySummary: false, format: 'snippets', indexReserve }, window, largest);
      add({ tools, memorySummary: true, format: 'clusters', indexReserve }, window, largest);
    }
  }
  return { jobs: [...rows.keys()], rows };
}

/** Runs jobs in child processes, `parallel` at a time, so the 2-core machine plays two conversations at once. */
async function runPool(jobs: PlayJob[], parallel: number): Promise<Map<PlayJob, PlayResult>> {
  const results = new Map<PlayJob, PlayResult>();
  const queue = [...jobs];
  const worker = async (): Promise<void> => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      const current = next;
      results.set(current, await runChild(current));
      console.error(
        `done ${results.size}/${jobs.length}: ${current.label} @${current.window} in ${results.get(current)!.seconds.toFixed(0)} s`,
      );
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallel, jobs.length) }, worker));
  return results;
}

function runChild(playJob: PlayJob): Promise<PlayResult> {
  return new Promise((resolve, reject) => {
    const child = fork(SCRIPT, ['--worker'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let result: PlayResult | null = null;
    child.on('message', (message) => (result = message as PlayResult));
    child.on('error', reject);
    child.on('exit', (code) =>
      result
        ? resolve(result)
        : reject(new Error(`${playJob.label} @${playJob.window}: worker exited with ${code}`)),
    );
    child.send(playJob);
  });
}

function runWorker(): void {
  process.once('message', (message) => {
    playJob(message as PlayJob, (line) => console.error(line))
      .then((result) => process.send!(result, () => process.exit(0)))
      .catch((error: unknown) => {
        console.error(error);
        process.exit(1);
      });
  });
}

function git(args: string[]): string {
  try {
    return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const options = parseOptions(argv);
  const started = performance.now();
  const loadAtStart = os.loadavg()[0] ?? NaN;
  const conversations = Array.from({ length: options.conversations }, (_, index) =>
    generateConversation({ seed: options.seed, index, turns: options.turns, facts: options.facts }),
  );
  const memoryLabel =
    Object.keys(options.env).length > 0 ? 'memory (defaults + --env)' : 'memory (defaults)';
  const mainJobs = options.windows.flatMap((window) => [
    ...(options.configs.has('memory')
      ? [job(options, { label: memoryLabel, window, env: {} })]
      : []),
    ...(options.configs.has('recent')
      ? [job(options, { label: 'recent only', window, env: RECENT_ONLY })]
      : []),
  ]);
  const tune = options.tune ? await tuneJobs(options) : null;
  // The defaults are one point of the grid: measured once, reported in both tables.
  const defaults = new Map<PlayJob, PlayJob>();
  if (tune) {
    for (const [tuned, row] of tune.rows) {
      const main = mainJobs.find(
        (candidate) => candidate.label === memoryLabel && candidate.window === tuned.window,
      );
      if (
        main &&
        row.tools &&
        row.memorySummary &&
        row.format === 'snippets' &&
        row.caps.includes(DEFAULT_INDEX_MAX_TOKENS)
      )
        defaults.set(tuned, main);
    }
  }
  const extra = tune ? tune.jobs.filter((tuned) => !defaults.has(tuned)) : [];
  const all = [...mainJobs, ...extra].sort((a, b) => b.window - a.window);
  console.error(
    `recall bench: ${all.length} runs of ${options.conversations} x ${options.turns} turns, ${options.jobs} at a time`,
  );
  const results = await runPool(all, options.jobs);

  const rows: Summary[] = [];
  for (const window of options.windows) {
    for (const playJob of mainJobs.filter((candidate) => candidate.window === window))
      rows.push(summarize(results.get(playJob)!));
    rows.push(fullHistorySummary(conversations, window, options.maxTokens));
  }
  const seconds = (performance.now() - started) / 1000;
  const anyResult = results.values().next().value as PlayResult;
  const report = [
    `# Recall benchmark, ${new Date().toISOString().slice(0, 10)}`,
    '',
    metadata(options, argv, anyResult.embedderModel, {
      seconds,
      cpuSeconds: [...results.values()].reduce((sum, result) => sum + result.cpuSeconds, 0),
      load: [loadAtStart, os.loadavg()[0] ?? NaN],
    }),
    '',
    '## Recall and cost per request',
    '',
    mainTable(rows),
    '',
    '## Where recalled facts came from',
    '',
    channelTable(rows),
    '',
  ];
  if (tune) {
    const tuneRows: TuneRow[] = [...tune.rows].map(([tuned, row]) => ({
      ...row,
      summary: summarize(results.get(defaults.get(tuned) ?? tuned)!),
    }));
    report.push('## Budget split (tuning)', '', tuneTable(tuneRows), '', TUNE_NOTE, '');
  }
  report.push(READING_NOTE, '');
  const text = report.join('\n');
  console.log(text);
  const out =
    options.out ??
    (options.quick
      ? null
      : path.join(
          ROOT,
          'bench',
          'results',
          `recall-${new Date().toISOString().slice(0, 10)}${options.tune ? '-tune' : ''}.md`,
        ));
  if (out) {
    mkdirSync(path.dirname(out), { recursive: true });
    writeFileSync(out, text);
    console.error(`written to ${path.relative(process.cwd(), out)}`);
  }
  if (options.json) {
    const records = [...results.values()].map((result) => ({
      label: result.job.label,
      window: result.job.window,
      env: result.job.env,
      questions: result.questions,
    }));
    writeFileSync(options.json, JSON.stringify(records, null, 1));
  }
}

function metadata(
  options: Options,
  argv: string[],
  embedderModel: string,
  time: { seconds: number; cpuSeconds: number; load: number[] },
): string {
  const cpus = os.cpus();
  const dirty = git(['status', '--porcelain', '--', 'src', 'test', 'config'])
    .split('\n')
    .filter((line) => line.trim() !== '').length;
  const questions = options.conversations * options.facts * 2;
  return [
    `- command: \`npm run bench:recall${argv.length > 0 ? ` -- ${argv.join(' ')}` : ''}\``,
    `- machine: ${cpus[0]?.model ?? 'unknown'}, ${cpus.length} cores, Node ${process.version}`,
    `- git commit: ${git(['rev-parse', '--short', 'HEAD'])}${dirty > 0 ? ` (with ${dirty} uncommitted or untracked files under src/, test/, config/ at run time)` : ''}`,
    `- store: embedded SQLite (SqliteStore in a temp dir); embedder: ${embedderModel} (${EMBEDDING_DIMENSIONS} dimensions); upstream: the fake upstream answering short text, no tool calls`,
    `- conversations: ${options.conversations} x ${options.turns} turns (${options.turns / 2} requests each, system message + newest user message only), seed ${options.seed}; ${options.facts} facts each, planted in the first ${FACT_ZONE * 100}% of turns; ${questions} questions in all (one lexical and one paraphrased per fact), asked as the last turns`,
    ...(options.neighbourTurns > 0
      ? [`- a neighbouring instance of ${options.neighbourTurns} turns in each store, written in the conversations' words (other seeds), stored and embedded before them`]
      : []),
    `- requests: model unlisted (DEFAULT_CONTEXT_WINDOW = the window), max_tokens ${options.maxTokens}; background queue drained every ${options.drainEvery} requests and before the questions`,
    `- wall time: ${(time.seconds / 60).toFixed(1)} min with ${options.jobs} runs in parallel (CPU time of the runs: ${(time.cpuSeconds / 60).toFixed(1)} min; load average at start and end: ${time.load.map((value) => value.toFixed(1)).join(', ')} on ${os.cpus().length} cores)`,
  ].join('\n');
}

const READING_NOTE = `Reading the figures: a fact is recalled when its distinctive value (the dog's name, the code, the city...) appears in the messages upstream received for the question; "fact id in request" counts questions whose request carried the stored id of the fact's turn (one get_message_by_id call away for a model that uses the memory tools). Tokens are counted here with gpt-tokenizer over the messages upstream received plus the tools array (the memory tools' share in parentheses). "Over window" counts requests whose messages + tools + max_tokens exceed the context window. Proxy ms is the time from sending a request to upstream receiving it (ingest + retrieval + context building), median over all requests; runs share the machine, so it is indicative only. Full history is computed: the tokens the whole conversation up to the question would take, had the client sent all of it; recall would be 100% only if it fit.`;

const TUNE_NOTE = `The index reserve is min(INDEX_MAX_TOKENS, INDEX_BUDGET_SHARE x budget), INDEX_BUDGET_SHARE ${INDEX_SHARE} (src/config/load-config.ts), so caps above ${INDEX_SHARE} x budget give the same reserve and were measured once (shown as a range). The budget already has the memory tools' definitions taken out when they are on. The index format is picked by the count of retrieval results (at most MEMORY_RETRIEVAL_LIMIT, 60): snippets past 50; "clusters" sets INDEX_CLUSTERING_THRESHOLD=${CLUSTERS_PAST_50} so the same results are grouped into clusters instead. Memory tools "on" are the set the window is offered (src/proxy/chat-pipeline.ts). Recall here depends only on the index and the summary (planted facts are far outside any recent window), so a split that starves the window looks free in this table; it is not free for the conversation's coherence.`;

if (process.argv.includes('--worker')) runWorker();
else {
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
