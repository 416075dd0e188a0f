/**
 * One line redrawn in place on a terminal: a bar, the share done, the counts, the rate and the time
 * left. Redrawn at most every 200 ms; `done` leaves the line as it ends.
 */
export class ProgressBar {
  private last = 0;
  private readonly started = Date.now();

  constructor(
    private readonly out: NodeJS.WriteStream,
    private readonly label: string,
    private readonly startedAt = 0,
  ) {}

  update(done: number, total: number, force = false): void {
    const now = Date.now();
    if (!force && now - this.last < 200) return;
    this.last = now;
    const share = total > 0 ? Math.min(done / total, 1) : 1;
    const width = Math.max(10, Math.min(40, (this.out.columns ?? 80) - 70));
    const filled = Math.round(share * width);
    const rate = (done - this.startedAt) / Math.max((now - this.started) / 1000, 0.001);
    const left = rate > 0 ? Math.max(total - done, 0) / rate : 0;
    const line = `${this.label} [${"#".repeat(filled)}${"-".repeat(width - filled)}] ${(share * 100).toFixed(1)}% ${done.toLocaleString("en")}/${total.toLocaleString("en")} ${Math.round(rate).toLocaleString("en")}/s ${clock(left)} left`;
    this.out.write(`\r${line}\x1b[K`);
  }

  done(done: number, total: number): void {
    this.update(done, total, true);
    this.out.write("\n");
  }
}

function clock(seconds: number): string {
  const s = Math.round(seconds);
  return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
}
