/** A one-line progress indicator. */
export interface Progress {
  update(records: number): void;
  done(records: number): void;
}

/** Least time between two redraws, so a fast import is not slowed by its own indicator. */
const REDRAW_MS = 100;

/**
 * A records counter redrawn in place on stderr, or null when stderr is not a terminal (a pipe or
 * a log file gets no carriage-return noise).
 */
export function createProgress(stream: NodeJS.WriteStream, label: string): Progress | null {
  if (!stream.isTTY) return null;
  let last = 0;
  const draw = (records: number) =>
    stream.write(`\r${label}: ${records.toLocaleString('en-US')} records`);
  return {
    update(records) {
      const now = Date.now();
      if (now - last < REDRAW_MS) return;
      last = now;
      draw(records);
    },
    done(records) {
      draw(records);
      stream.write('\n');
    },
  };
}
