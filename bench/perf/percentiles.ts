/** The value at quantile `at` (0..1) of a list, nearest rank; NaN for an empty list. */
export function quantile(values: readonly number[], at: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(at * sorted.length) - 1));
  return sorted[rank]!;
}

/** p50, p95, p99 and the mean of a list of milliseconds. */
export function summarize(values: readonly number[]): { p50: number; p95: number; p99: number; mean: number; count: number } {
  const mean = values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length);
  return { p50: quantile(values, 0.5), p95: quantile(values, 0.95), p99: quantile(values, 0.99), mean, count: values.length };
}

/** Milliseconds with one decimal. */
export function ms(value: number): string {
  return Number.isFinite(value) ? value.toFixed(1) : '-';
}

/** Mebibytes of a byte count. */
export function mib(bytes: number): string {
  return `${Math.round(bytes / 2 ** 20)} MiB`;
}
