/** Label values of one series, by label name. */
export type Labels = Record<string, string | number>;

/** A metric that can write itself in the Prometheus text exposition format. */
interface Metric {
  render(): string[];
}

/** Seconds buckets for latencies from a cache hit to a long generation. */
export const LATENCY_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120,
];

/** A counter per label set; only goes up. */
export class Counter implements Metric {
  private readonly series = new Map<string, { labels: Labels; value: number }>();

  constructor(
    readonly name: string,
    private readonly help: string,
  ) {}

  /** Adds `value` (default 1) to the series of `labels`. */
  inc(labels: Labels = {}, value = 1): void {
    const key = seriesKey(labels);
    const entry = this.series.get(key) ?? { labels, value: 0 };
    entry.value += value;
    this.series.set(key, entry);
  }

  /** The current value of one series (tests, logs). */
  value(labels: Labels = {}): number {
    return this.series.get(seriesKey(labels))?.value ?? 0;
  }

  render(): string[] {
    const lines = header(this.name, this.help, 'counter');
    for (const { labels, value } of this.series.values())
      lines.push(`${this.name}${formatLabels(labels)} ${value}`);
    return lines;
  }
}

/** A histogram per label set, with cumulative buckets, sum and count. */
export class Histogram implements Metric {
  private readonly series = new Map<
    string,
    { labels: Labels; counts: number[]; sum: number; count: number }
  >();

  constructor(
    readonly name: string,
    private readonly help: string,
    private readonly buckets: readonly number[] = LATENCY_BUCKETS,
  ) {}

  /** Records one observation. */
  observe(labels: Labels, value: number): void {
    const key = seriesKey(labels);
    let entry = this.series.get(key);
    if (!entry) {
      entry = { labels, counts: this.buckets.map(() => 0), sum: 0, count: 0 };
      this.series.set(key, entry);
    }
    this.buckets.forEach((bound, index) => {
      if (value <= bound) entry.counts[index]! += 1;
    });
    entry.sum += value;
    entry.count += 1;
  }

  /** Observations recorded for one series (tests). */
  count(labels: Labels = {}): number {
    return this.series.get(seriesKey(labels))?.count ?? 0;
  }

  render(): string[] {
    const lines = header(this.name, this.help, 'histogram');
    for (const { labels, counts, sum, count } of this.series.values()) {
      this.buckets.forEach((bound, index) =>
        lines.push(`${this.name}_bucket${formatLabels({ ...labels, le: bound })} ${counts[index]}`),
      );
      lines.push(`${this.name}_bucket${formatLabels({ ...labels, le: '+Inf' })} ${count}`);
      lines.push(`${this.name}_sum${formatLabels(labels)} ${sum}`);
      lines.push(`${this.name}_count${formatLabels(labels)} ${count}`);
    }
    return lines;
  }
}

/** A value read when the metrics are scraped (queue lengths, memory). */
export class Gauge implements Metric {
  constructor(
    readonly name: string,
    private readonly help: string,
    private readonly read: () => number,
  ) {}

  render(): string[] {
    return [...header(this.name, this.help, 'gauge'), `${this.name} ${this.read()}`];
  }
}

/** The metrics of one process, rendered together for GET /metrics. */
export class Registry {
  private readonly metrics: Metric[] = [];

  /** Registers and returns a counter. */
  counter(name: string, help: string): Counter {
    return this.add(new Counter(name, help));
  }

  /** Registers and returns a histogram (latency buckets in seconds unless given). */
  histogram(name: string, help: string, buckets?: readonly number[]): Histogram {
    return this.add(new Histogram(name, help, buckets));
  }

  /** Registers a gauge read at scrape time. */
  gauge(name: string, help: string, read: () => number): Gauge {
    return this.add(new Gauge(name, help, read));
  }

  /** The Prometheus text exposition (version 0.0.4) of every metric. */
  render(): string {
    return `${this.metrics.flatMap((metric) => metric.render()).join('\n')}\n`;
  }

  private add<T extends Metric>(metric: T): T {
    this.metrics.push(metric);
    return metric;
  }
}

function header(name: string, help: string, type: string): string[] {
  return [`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`];
}

function seriesKey(labels: Labels): string {
  return JSON.stringify(Object.entries(labels).sort(([a], [b]) => a.localeCompare(b)));
}

function formatLabels(labels: Labels): string {
  const entries = Object.entries(labels);
  if (entries.length === 0) return '';
  // The exposition format escapes backslash, double quote and newline in label values.
  const escaped = entries.map(
    ([name, value]) =>
      `${name}="${String(value).replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`,
  );
  return `{${escaped.join(',')}}`;
}
