/** A one-line progress bar on stderr, drawn only when stderr is a terminal. */
export class ProgressBar {
  private readonly started = performance.now();
  private lastDraw = 0;
  private readonly enabled = process.stderr.isTTY === true;

  constructor(
    private readonly label: string,
    private readonly total: number,
  ) {}

  /** Redraws at most ten times a second. */
  update(done: number): void {
    if (!this.enabled) return;
    const now = performance.now();
    if (now - this.lastDraw < 100 && done < this.total) return;
    this.lastDraw = now;
    const share = this.total === 0 ? 1 : done / this.total;
    const width = 30;
    const filled = Math.round(share * width);
    const seconds = (now - this.started) / 1000;
    const rate = seconds > 0 ? done / seconds : 0;
    const eta = rate > 0 ? (this.total - done) / rate : 0;
    process.stderr.write(
      `\r${this.label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${(share * 100).toFixed(0)}% ` +
        `${done}/${this.total} ${Math.round(rate)}/s ETA ${Math.round(eta)}s   `,
    );
  }

  /** Clears the line. */
  done(): void {
    if (this.enabled) process.stderr.write(`\r${' '.repeat(100)}\r`);
  }
}
