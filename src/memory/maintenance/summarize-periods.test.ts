import { describe, expect, it } from 'vitest';
import { periodsOf } from './summarize-periods';

describe('periodsOf', () => {
  it('names the UTC day and the ISO week a time falls in', () => {
    const [day, week] = periodsOf(Date.parse('2026-11-22T23:59:59Z'));
    expect(day).toEqual({
      granularity: 'day',
      period: '2026-11-22',
      start: Date.parse('2026-11-22T00:00:00Z'),
      end: Date.parse('2026-11-23T00:00:00Z'),
    });
    // 2026-11-22 is a Sunday: the last day of ISO week 47, which began on Monday the 16th.
    expect(week).toEqual({
      granularity: 'week',
      period: '2026-W47',
      start: Date.parse('2026-11-16T00:00:00Z'),
      end: Date.parse('2026-11-23T00:00:00Z'),
    });
  });

  it('gives the days around a new year the ISO week and year they belong to', () => {
    // 2026-01-01 is a Thursday, so it is in week 1 of 2026; 2027-01-01 is a Friday, in 2026-W53.
    expect(periodsOf(Date.parse('2026-01-01T12:00:00Z'))[1]!.period).toBe('2026-W01');
    expect(periodsOf(Date.parse('2025-12-29T00:00:00Z'))[1]!.period).toBe('2026-W01');
    expect(periodsOf(Date.parse('2027-01-01T00:00:00Z'))[1]!.period).toBe('2026-W53');
    expect(periodsOf(Date.parse('2027-01-04T00:00:00Z'))[1]!.period).toBe('2027-W01');
    expect(periodsOf(Date.parse('1969-12-31T00:00:00Z'))[1]!.period).toBe('1970-W01');
  });
});
