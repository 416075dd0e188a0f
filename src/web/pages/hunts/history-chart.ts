/** What the history chart draws and says, from runs newest first (as huntHistory pages them). */
export interface ChartRun {
  runAt: string;
  matchCount: number | null | undefined;
  newHitCount: number | null | undefined;
}

export interface ChartData {
  /** Seconds since the epoch, oldest first. */
  x: number[];
  counts: (number | null)[];
  /** The count again where the run found new hits, else null: drawn as markers only. */
  newHits: (number | null)[];
  summary: string;
}

export function chartData(runsNewestFirst: readonly ChartRun[]): ChartData {
  const runs = [...runsNewestFirst].reverse();
  const x = runs.map((r) => Math.floor(new Date(r.runAt).getTime() / 1000));
  const counts = runs.map((r) => r.matchCount ?? null);
  const newHits = runs.map((r) => ((r.newHitCount ?? 0) > 0 ? (r.matchCount ?? null) : null));
  return { x, counts, newHits, summary: summarize(runs) };
}

function summarize(runs: ChartRun[]): string {
  if (runs.length === 0) return "No runs yet";
  const ok = runs.filter((r) => r.matchCount !== null && r.matchCount !== undefined);
  const failed = runs.length - ok.length;
  const withNew = runs.filter((r) => (r.newHitCount ?? 0) > 0).length;
  const parts = [`Match counts of ${runs.length} run${runs.length === 1 ? "" : "s"}`];
  if (ok.length) {
    const counts = ok.map((r) => r.matchCount as number);
    parts.push(`latest ${counts[counts.length - 1]}, lowest ${Math.min(...counts)}, highest ${Math.max(...counts)}`);
  }
  parts.push(`${withNew} run${withNew === 1 ? "" : "s"} with new hits`);
  if (failed) parts.push(`${failed} failed`);
  return parts.join("; ");
}
