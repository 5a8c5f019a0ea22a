import { ToolError } from './tool-error';

/** A span of time in milliseconds since the epoch: `start` inclusive, `end` exclusive. */
export interface Period {
  start: number;
  end: number;
}

/** Named periods a model may ask for. */
export const NAMED_PERIODS = [
  'today',
  'yesterday',
  'this_week',
  'last_week',
  'this_month',
  'last_month',
] as const;

const DAY = 86_400_000;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const MONTH = /^(\d{4})-(\d{2})$/;
const DATE_TIME =
  /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)(Z|[+-]\d{2}:?\d{2})?$/i;
const USAGE = `use today, yesterday, this_week, last_week, this_month, last_month, "YYYY-MM-DD", "YYYY-MM", "YYYY-MM-DD..YYYY-MM-DD" or {"start": ..., "end": ...} with ISO dates or date-times`;

/**
 * Resolves a period argument against `now`, in UTC (weeks start on Monday, as in ISO 8601):
 * a named period, a day, a month, a "start..end" range or a {start, end} object. A date as the
 * end includes that whole day; a date-time end is exclusive. Throws a ToolError saying what is
 * accepted.
 */
export function parsePeriod(period: unknown, now: number): Period {
  if (typeof period === 'string') {
    const text = period.trim();
    // Some models send the object form as a JSON string.
    if (text.startsWith('{')) return parsePeriod(parseJson(text), now);
    const named = text.toLowerCase().replace(/[\s-]+/g, '_');
    if ((NAMED_PERIODS as readonly string[]).includes(named))
      return namedPeriod(named as (typeof NAMED_PERIODS)[number], now);
    const separator = text.includes('..') ? '..' : text.includes('/') ? '/' : null;
    if (separator !== null) {
      const [start = '', end = ''] = text.split(separator);
      return range(start, end);
    }
    const month = MONTH.exec(text);
    if (month) {
      const start = Date.UTC(Number(month[1]), Number(month[2]) - 1, 1);
      if (Number(month[2]) < 1 || Number(month[2]) > 12)
        throw new ToolError(`period ${JSON.stringify(text)} has no month ${month[2]}`);
      return { start, end: Date.UTC(Number(month[1]), Number(month[2]), 1) };
    }
    if (DATE.test(text)) return range(text, text);
    throw new ToolError(`period ${JSON.stringify(text)} is not understood; ${USAGE}`);
  }
  if (typeof period === 'object' && period !== null && !Array.isArray(period)) {
    const { start, end } = period as Record<string, unknown>;
    if (typeof start !== 'string' || typeof end !== 'string')
      throw new ToolError(`period needs both start and end as strings; ${USAGE}`);
    return range(start, end);
  }
  throw new ToolError(`period is missing or not understood; ${USAGE}`);
}

function namedPeriod(name: (typeof NAMED_PERIODS)[number], now: number): Period {
  const today = Math.floor(now / DAY) * DAY;
  const date = new Date(now);
  // getUTCDay: Sunday 0; ISO weeks start on Monday.
  const monday = today - ((date.getUTCDay() + 6) % 7) * DAY;
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth();
  switch (name) {
    case 'today':
      return { start: today, end: today + DAY };
    case 'yesterday':
      return { start: today - DAY, end: today };
    case 'this_week':
      return { start: monday, end: monday + 7 * DAY };
    case 'last_week':
      return { start: monday - 7 * DAY, end: monday };
    case 'this_month':
      return { start: Date.UTC(year, month, 1), end: Date.UTC(year, month + 1, 1) };
    case 'last_month':
      return { start: Date.UTC(year, month - 1, 1), end: Date.UTC(year, month, 1) };
  }
}

function range(startText: string, endText: string): Period {
  const start = instant(startText.trim(), 'start');
  const end = instant(endText.trim(), 'end');
  if (end <= start)
    throw new ToolError(`period ends (${endText.trim()}) before it starts (${startText.trim()})`);
  return { start, end };
}

/** A date (start of that UTC day, or the day after it for an end) or a date-time (UTC unless it has an offset). */
function instant(text: string, bound: 'start' | 'end'): number {
  const date = DATE.exec(text);
  if (date) return validDay(text, date) + (bound === 'end' ? DAY : 0);
  const dateTime = DATE_TIME.exec(text);
  if (dateTime) {
    validDay(text, DATE.exec(dateTime[1] ?? '')!);
    const value = Date.parse(`${dateTime[1]}T${dateTime[2]}${dateTime[3] ?? 'Z'}`);
    if (!Number.isNaN(value)) return value;
  }
  throw new ToolError(
    `period ${bound} ${JSON.stringify(text)} is not an ISO date (YYYY-MM-DD) or date-time (YYYY-MM-DDTHH:MM:SSZ)`,
  );
}

/** Midnight UTC of a date, refusing dates that do not exist (2025-02-30). */
function validDay(text: string, match: RegExpExecArray): number {
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const value = Date.UTC(year, month - 1, day);
  const check = new Date(value);
  if (check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day)
    throw new ToolError(`${JSON.stringify(text)} is not a real date`);
  return value;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new ToolError(`period ${JSON.stringify(text)} is not valid JSON; ${USAGE}`);
  }
}
