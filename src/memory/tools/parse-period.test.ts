import { describe, expect, it } from 'vitest';
import { parsePeriod } from './parse-period';
import { ToolError } from './tool-error';

// A Wednesday afternoon, UTC.
const NOW = Date.parse('2025-03-12T15:30:00Z');

function iso(period: { start: number; end: number }): [string, string] {
  return [new Date(period.start).toISOString(), new Date(period.end).toISOString()];
}

describe('parsePeriod', () => {
  it.each([
    ['today', '2025-03-12T00:00:00.000Z', '2025-03-13T00:00:00.000Z'],
    ['yesterday', '2025-03-11T00:00:00.000Z', '2025-03-12T00:00:00.000Z'],
    ['this_week', '2025-03-10T00:00:00.000Z', '2025-03-17T00:00:00.000Z'],
    ['last_week', '2025-03-03T00:00:00.000Z', '2025-03-10T00:00:00.000Z'],
    ['this_month', '2025-03-01T00:00:00.000Z', '2025-04-01T00:00:00.000Z'],
    ['last_month', '2025-02-01T00:00:00.000Z', '2025-03-01T00:00:00.000Z'],
  ])('resolves %s against now in UTC', (period, start, end) => {
    expect(iso(parsePeriod(period, NOW))).toEqual([start, end]);
  });

  it('starts weeks on Monday, also on a Sunday night and a Monday morning', () => {
    expect(iso(parsePeriod('this_week', Date.parse('2025-03-16T23:59:00Z')))[0]).toBe(
      '2025-03-10T00:00:00.000Z',
    );
    expect(iso(parsePeriod('this_week', Date.parse('2025-03-17T00:00:00Z')))[0]).toBe(
      '2025-03-17T00:00:00.000Z',
    );
  });

  it('crosses year boundaries for last_month and last_week', () => {
    const january = Date.parse('2025-01-02T08:00:00Z');
    expect(iso(parsePeriod('last_month', january))).toEqual([
      '2024-12-01T00:00:00.000Z',
      '2025-01-01T00:00:00.000Z',
    ]);
    expect(iso(parsePeriod('last_week', january))).toEqual([
      '2024-12-23T00:00:00.000Z',
      '2024-12-30T00:00:00.000Z',
    ]);
  });

  it('accepts the spellings models use for named periods', () => {
    expect(parsePeriod('This Week', NOW)).toEqual(parsePeriod('this_week', NOW));
    expect(parsePeriod(' last-month ', NOW)).toEqual(parsePeriod('last_month', NOW));
  });

  it('reads a date range with its end day included', () => {
    expect(iso(parsePeriod('2025-02-27..2025-03-01', NOW))).toEqual([
      '2025-02-27T00:00:00.000Z',
      '2025-03-02T00:00:00.000Z',
    ]);
    expect(parsePeriod('2025-02-27/2025-03-01', NOW)).toEqual(
      parsePeriod('2025-02-27..2025-03-01', NOW),
    );
  });

  it('reads a single day and a month', () => {
    expect(iso(parsePeriod('2024-02-29', NOW))).toEqual([
      '2024-02-29T00:00:00.000Z',
      '2024-03-01T00:00:00.000Z',
    ]);
    expect(iso(parsePeriod('2024-12', NOW))).toEqual([
      '2024-12-01T00:00:00.000Z',
      '2025-01-01T00:00:00.000Z',
    ]);
  });

  it('reads {start, end} with dates or date-times; a date-time end is exclusive, offsets count', () => {
    expect(iso(parsePeriod({ start: '2025-03-01', end: '2025-03-01' }, NOW))).toEqual([
      '2025-03-01T00:00:00.000Z',
      '2025-03-02T00:00:00.000Z',
    ]);
    expect(
      iso(parsePeriod({ start: '2025-03-01T09:00:00Z', end: '2025-03-01T10:30' }, NOW)),
    ).toEqual(['2025-03-01T09:00:00.000Z', '2025-03-01T10:30:00.000Z']);
    expect(
      iso(parsePeriod({ start: '2025-03-01T09:00:00+02:00', end: '2025-03-02' }, NOW))[0],
    ).toBe('2025-03-01T07:00:00.000Z');
  });

  it('accepts the object form sent as a JSON string', () => {
    expect(parsePeriod('{"start":"2025-03-01","end":"2025-03-02"}', NOW)).toEqual(
      parsePeriod('2025-03-01..2025-03-02', NOW),
    );
  });

  it.each([
    ['next_week', /not understood.*this_week/],
    ['2025-02-30', /not a real date/],
    ['2025-13', /no month 13/],
    ['2025-03-05..2025-03-01', /ends .* before it starts/],
    ['2025-03-01..soon', /period end "soon" is not an ISO date/],
    ['{"start":', /not valid JSON/],
  ])('refuses %s with a message that says what is accepted', (period, message) => {
    expect(() => parsePeriod(period, NOW)).toThrow(ToolError);
    expect(() => parsePeriod(period, NOW)).toThrow(message);
  });

  it('refuses a missing end and values that are not periods', () => {
    expect(() => parsePeriod({ start: '2025-03-01' }, NOW)).toThrow(/needs both start and end/);
    expect(() => parsePeriod(7, NOW)).toThrow(/not understood/);
    expect(() => parsePeriod(null, NOW)).toThrow(ToolError);
  });
});
