/**
 * Figures and markdown tables for bench/recall.ts: recall of planted facts split lexical /
 * paraphrased, tokens per request, requests over the window, and where recalled facts came from.
 */
import type { Conversation } from './recall-generator';
import { fullHistoryTokens, type PlayResult, type QuestionRecord } from './recall-play';

/** What one configuration at one window measured. */
export interface Summary {
  label: string;
  window: number;
  questions: number;
  lexical: number;
  paraphrased: number;
  all: number;
  idShown: number;
  /** Shares of lexical and of paraphrased questions whose fact hybrid retrieval ranks in its first 10 / 60 hits. */
  top10: ByKind;
  top60: ByKind;
  withSummary: number;
  viaIndex: number;
  viaSummary: number;
  tokensMean: number;
  tokensP50: number;
  tokensMax: number;
  toolTokens: number;
  /** Share of the late questions whose request (messages + tools + max_tokens) exceeded the window. */
  questionsOverWindow: number;
  /** Share of every request of the run that exceeded the window. */
  requestsOverWindow: number;
  errors: number;
  budget: number | null;
  strategies: string;
  proxyMsP50: number;
  seconds: number;
}

/** A share among lexical and among paraphrased questions. */
export interface ByKind {
  lexical: number;
  paraphrased: number;
}

function byKind(records: QuestionRecord[], test: (record: QuestionRecord) => boolean): ByKind {
  return {
    lexical: share(
      records.filter((record) => record.questionKind === 'lexical'),
      test,
    ),
    paraphrased: share(
      records.filter((record) => record.questionKind === 'paraphrased'),
      test,
    ),
  };
}

function share(records: QuestionRecord[], test: (record: QuestionRecord) => boolean): number {
  return records.length === 0 ? NaN : records.filter(test).length / records.length;
}

/** The value at a quantile of a list (nearest rank). */
export function quantile(values: number[], at: number): number {
  const sorted = values.filter((value) => Number.isFinite(value)).sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(at * sorted.length) - 1))]!;
}

function mean(values: number[]): number {
  return values.length === 0 ? NaN : values.reduce((sum, value) => sum + value, 0) / values.length;
}

/** Summarises one job's records. */
export function summarize(result: PlayResult): Summary {
  const { questions, requests, job } = result;
  const tokens = questions.map((record) => record.messageTokens + record.toolTokens);
  const strategies = new Map<string, number>();
  for (const record of questions)
    strategies.set(record.strategy ?? 'none', (strategies.get(record.strategy ?? 'none') ?? 0) + 1);
  return {
    label: job.label,
    window: job.window,
    questions: questions.length,
    lexical: share(
      questions.filter((record) => record.questionKind === 'lexical'),
      (record) => record.reached,
    ),
    paraphrased: share(
      questions.filter((record) => record.questionKind === 'paraphrased'),
      (record) => record.reached,
    ),
    all: share(questions, (record) => record.reached),
    idShown: share(questions, (record) => record.idShown),
    top10: byKind(questions, (record) => record.rank >= 0 && record.rank < 10),
    top60: byKind(questions, (record) => record.rank >= 0),
    withSummary: share(questions, (record) => record.hasSummary),
    viaIndex: share(questions, (record) => record.via.includes('index')),
    viaSummary: share(questions, (record) => record.via.includes('summary')),
    tokensMean: mean(tokens),
    tokensP50: quantile(tokens, 0.5),
    tokensMax: Math.max(...tokens),
    toolTokens: Math.max(0, ...questions.map((record) => record.toolTokens)),
    questionsOverWindow: share(
      questions,
      (record) => record.messageTokens + record.toolTokens + job.maxTokens > job.window,
    ),
    requestsOverWindow: requests.count === 0 ? NaN : requests.overWindow / requests.count,
    errors: requests.errors,
    budget: questions.find((record) => record.budget !== null)?.budget ?? null,
    strategies: [...strategies]
      .sort((a, b) => b[1] - a[1])
      .map(([name, count]) => `${name} ${count}`)
      .join(', '),
    proxyMsP50: quantile(requests.proxyMs, 0.5),
    seconds: result.seconds,
  };
}

/** The full-history baseline: what sending the whole conversation would cost at each question. */
export function fullHistorySummary(
  conversations: Conversation[],
  window: number,
  maxTokens: number,
): Summary {
  const figures = conversations.flatMap((conversation) => fullHistoryTokens(conversation));
  const tokens = figures.map((figure) => figure.tokens);
  const over = tokens.filter((value) => value + maxTokens > window).length / tokens.length;
  return {
    label: 'full history (computed)',
    window,
    questions: tokens.length,
    lexical: 1,
    paraphrased: 1,
    all: 1,
    idShown: NaN,
    top10: { lexical: NaN, paraphrased: NaN },
    top60: { lexical: NaN, paraphrased: NaN },
    withSummary: NaN,
    viaIndex: NaN,
    viaSummary: NaN,
    tokensMean: mean(tokens),
    tokensP50: quantile(tokens, 0.5),
    tokensMax: Math.max(...tokens),
    toolTokens: 0,
    questionsOverWindow: over,
    requestsOverWindow: NaN,
    errors: 0,
    budget: null,
    strategies: '',
    proxyMsP50: NaN,
    seconds: 0,
  };
}

const percent = (value: number): string =>
  Number.isFinite(value) ? `${(value * 100).toFixed(0)}%` : '–';
const whole = (value: number): string =>
  Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : '–';

/** The main table: every configuration at every window, with the baselines. */
export function mainTable(rows: Summary[]): string {
  const lines = [
    '| window | context sent upstream | recall lexical | recall paraphrased | recall all | fact id in request | tokens/request mean · p50 · max (memory tools) | questions over window | all requests over window | proxy ms p50 |',
    '| ---: | --- | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: |',
  ];
  for (const row of rows) {
    const full = row.label.startsWith('full history');
    const recall = (value: number) => (full ? `(${percent(value)})` : percent(value));
    lines.push(
      `| ${row.window} | ${row.label} | ${recall(row.lexical)} | ${recall(row.paraphrased)} | ${recall(row.all)} | ${percent(row.idShown)} | ${whole(row.tokensMean)} · ${whole(row.tokensP50)} · ${whole(row.tokensMax)}${row.toolTokens > 0 ? ` (${whole(row.toolTokens)})` : ''} | ${percent(row.questionsOverWindow)} | ${percent(row.requestsOverWindow)} | ${Number.isFinite(row.proxyMsP50) ? row.proxyMsP50.toFixed(0) : '–'} |`,
    );
  }
  return lines.join('\n');
}

/** Where recalled facts came from, whether retrieval found them, and which index formats the questions got. */
export function channelTable(rows: Summary[]): string {
  const lines = [
    '| window | context | budget | fact in retrieval top 10, lexical · paraphrased | in top 60, lexical · paraphrased | fact via memory index | summary in request | fact via running summary | index formats at the questions | errors | run s |',
    '| ---: | --- | ---: | --- | --- | ---: | ---: | ---: | --- | ---: | ---: |',
  ];
  for (const row of rows.filter((summary) => !summary.label.startsWith('full history'))) {
    lines.push(
      `| ${row.window} | ${row.label} | ${row.budget ?? '–'} | ${percent(row.top10.lexical)} · ${percent(row.top10.paraphrased)} | ${percent(row.top60.lexical)} · ${percent(row.top60.paraphrased)} | ${percent(row.viaIndex)} | ${percent(row.withSummary)} | ${percent(row.viaSummary)} | ${row.strategies} | ${row.errors} | ${row.seconds.toFixed(0)} |`,
    );
  }
  return lines.join('\n');
}

/** One row of the tuning table: a split of the budget and what it recalled. */
export interface TuneRow {
  summary: Summary;
  tools: boolean;
  memorySummary: boolean;
  /** snippets: the default (by result count); clusters: INDEX_CLUSTERING_THRESHOLD=50, clusters past 50 results. */
  format: 'clusters' | 'snippets';
  caps: number[];
  indexReserve: number;
}

/** The tuning table: per window, each split of the budget by recall; the best one in bold. */
export function tuneTable(rows: TuneRow[]): string {
  const lines = [
    '| window | memory tools | running summary | index format | INDEX_MAX_TOKENS | index reserve | budget | recall lexical | recall paraphrased | recall all | fact id in request | summary in request | tokens/request mean |',
    '| ---: | --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  const windows = [...new Set(rows.map((row) => row.summary.window))].sort((a, b) => a - b);
  for (const window of windows) {
    const order = (row: TuneRow) => [
      row.tools ? 0 : 1,
      row.format === 'snippets' ? 0 : 1,
      row.memorySummary ? 0 : 1,
      row.indexReserve,
    ];
    const group = rows
      .filter((row) => row.summary.window === window)
      .sort((a, b) =>
        order(a).reduce((difference, value, i) => difference || value - order(b)[i]!, 0),
      );
    const best = Math.max(...group.map((row) => row.summary.all));
    for (const row of group) {
      const mark = (text: string) => (row.summary.all === best ? `**${text}**` : text);
      const caps =
        row.caps.length > 1
          ? `${Math.min(...row.caps)}–${Math.max(...row.caps)}`
          : String(row.caps[0]);
      lines.push(
        `| ${window} | ${row.tools ? 'on' : 'off'} | ${row.memorySummary ? 'on' : 'off'} | ${row.format === 'snippets' ? 'default (snippets)' : 'clusters'} | ${caps} | ${row.indexReserve} | ${row.summary.budget ?? '–'} | ${percent(row.summary.lexical)} | ${percent(row.summary.paraphrased)} | ${mark(percent(row.summary.all))} | ${percent(row.summary.idShown)} | ${percent(row.summary.withSummary)} | ${whole(row.summary.tokensMean)} |`,
      );
    }
  }
  return lines.join('\n');
}
