import type { MemoryStore } from '../../store/memory-store';
import type { PeriodGranularity, PeriodSummary, PeriodTopic } from '../../store/topic-types';
import type { Scope } from '../../store/types';
import { centralTurns, meanDirection, quoteTurns, type EmbeddedTurn } from './extractive-summary';
import { yieldToRequests } from './yield-to-requests';

const DAY_MS = 86_400_000;
/** New turns read per step; the periods they fall in are summarized again in that step. */
const STEP = 1_000;
/** Turns of a period read to choose its most central ones. */
const SAMPLE = 2_000;
/** Topics a period lists. */
const PERIOD_TOPICS = 5;
/** Stored periods checked for quotes of deleted turns (about 270 years of days). */
const MAX_PERIODS = 100_000;

/** A period's bounds and name. */
export interface PeriodBounds {
  granularity: PeriodGranularity;
  period: string;
  start: number;
  end: number;
}

/** The UTC day and the ISO week (Monday to Sunday) a time falls in. */
export function periodsOf(time: number): PeriodBounds[] {
  const day = Math.floor(time / DAY_MS);
  const dayStart = day * DAY_MS;
  // Day 0 (1970-01-01) was a Thursday: (day + 3) % 7 counts the days since Monday.
  const weekStart = (day - ((((day + 3) % 7) + 7) % 7)) * DAY_MS;
  const thursday = new Date(weekStart + 3 * DAY_MS);
  const year = thursday.getUTCFullYear();
  const week = Math.floor((thursday.getTime() - Date.UTC(year, 0, 1)) / (7 * DAY_MS)) + 1;
  return [
    {
      granularity: 'day',
      period: new Date(dayStart).toISOString().slice(0, 10),
      start: dayStart,
      end: dayStart + DAY_MS,
    },
    {
      granularity: 'week',
      period: `${year}-W${String(week).padStart(2, '0')}`,
      start: weekStart,
      end: weekStart + 7 * DAY_MS,
    },
  ];
}

/** Options of one run of the period job over one instance. */
export interface SummarizePeriodsOptions {
  store: MemoryStore;
  scope: Scope;
  now: () => number;
  /** Checked between steps: true stops the run. */
  stopping?: () => boolean;
}

/**
 * Summarizes the days and weeks of an instance that gained turns since the last run: counts,
 * main topics (from the topic job's links) and the most central turns quoted. Each step stores
 * its summaries with the job's cursor in one transaction, so a stopped run resumes where it was,
 * and summarizing a period again replaces its summary.
 */
export async function summarizePeriods(
  options: SummarizePeriodsOptions,
): Promise<{ periods: number; done: boolean }> {
  const { store, scope } = options;
  let cursor = await store.getJobCursor(scope, 'periods');
  let periods = 0;
  const labels = new Map((await store.listTopics(scope)).map((topic) => [topic.id, topic.label]));
  const stale = await stalePeriods(store, scope);
  if (stale.length > 0) {
    const summaries: PeriodSummary[] = [];
    for (const bounds of stale) {
      summaries.push(await summarizePeriod({ store, scope, bounds, labels, now: options.now() }));
    }
    await store.savePeriodSummaries(scope, { summaries, cursor });
    periods += summaries.length;
  }
  for (;;) {
    if (options.stopping?.()) return { periods, done: false };
    await yieldToRequests();
    const turns = await store.listMessages(scope, {
      afterSeq: cursor,
      limit: STEP,
      includeDeleted: true,
    });
    if (turns.length === 0) return { periods, done: true };
    const dirty = new Map<string, PeriodBounds>();
    for (const turn of turns) {
      for (const bounds of periodsOf(turn.timestamp))
        dirty.set(`${bounds.granularity} ${bounds.period}`, bounds);
    }
    const summaries: PeriodSummary[] = [];
    for (const bounds of dirty.values()) {
      summaries.push(await summarizePeriod({ store, scope, bounds, labels, now: options.now() }));
    }
    cursor = turns.at(-1)!.seq;
    await store.savePeriodSummaries(scope, { summaries, cursor });
    periods += summaries.length;
  }
}

/**
 * Stored periods whose summary quotes a turn deleted or purged since: summarized again, so a
 * purged turn's words do not outlive it there. Other periods keep the counts they were made with.
 */
async function stalePeriods(store: MemoryStore, scope: Scope): Promise<PeriodBounds[]> {
  const stored = (
    await Promise.all(
      (['day', 'week'] as const).map((granularity) =>
        store.listPeriodSummaries(scope, { granularity, limit: MAX_PERIODS }),
      ),
    )
  ).flat();
  const quoted = [...new Set(stored.flatMap((summary) => summary.highlightIds))];
  const live = new Set(
    (await store.getMessages(scope, quoted)).filter((turn) => !turn.deleted).map((turn) => turn.id),
  );
  return stored
    .filter((summary) => summary.highlightIds.some((id) => !live.has(id)))
    .map(({ granularity, period, start, end }) => ({ granularity, period, start, end }));
}

async function summarizePeriod(input: {
  store: MemoryStore;
  scope: Scope;
  bounds: PeriodBounds;
  labels: Map<string, string>;
  now: number;
}): Promise<PeriodSummary> {
  const { store, scope, bounds } = input;
  let messages = 0;
  let tokens = 0;
  let userMessages = 0;
  const topicCounts = new Map<string, number>();
  const sample: EmbeddedTurn[] = [];
  let afterSeq = 0;
  for (;;) {
    const page = await store.listMessages(scope, {
      afterSeq,
      fromTime: bounds.start,
      toTime: bounds.end,
      limit: STEP,
    });
    if (page.length === 0) break;
    afterSeq = page.at(-1)!.seq;
    const topics = await store.getTopicIds(
      scope,
      page.map((turn) => turn.id),
    );
    const kept = page.slice(0, Math.max(0, SAMPLE - sample.length));
    const vectors = await store.getEmbeddings(
      scope,
      kept.map((turn) => turn.id),
    );
    for (const turn of page) {
      messages += 1;
      tokens += turn.tokenCount;
      if (turn.role === 'user') userMessages += 1;
      const topic = topics.get(turn.id);
      if (topic) topicCounts.set(topic, (topicCounts.get(topic) ?? 0) + 1);
    }
    for (const message of kept) sample.push({ message, vector: vectors.get(message.id) });
    if (page.length < STEP) break;
  }
  const centre = meanDirection(sample.flatMap((turn) => (turn.vector ? [turn.vector] : [])));
  const highlights = centralTurns(sample, centre);
  const topics: PeriodTopic[] = [...topicCounts.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, PERIOD_TOPICS)
    .map(([id, count]) => ({ id, label: input.labels.get(id) ?? '', messages: count }));
  return {
    ...bounds,
    messages,
    tokens,
    userMessages,
    topics,
    summary: quoteTurns(highlights),
    highlightIds: highlights.map((turn) => turn.id),
    updatedAt: input.now,
  };
}
