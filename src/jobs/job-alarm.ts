import type pg from "pg";
import type { Logger } from "../platform/logger.ts";

/** The longest single wait; a later job is looked up again then (setTimeout's limit is ~24.8 days). */
const MAX_WAIT_MS = 60 * 60 * 1000;
/** A failed attempt's new run_at is written after graphile-worker reports the failure: look after this. */
const RETRY_LOOKUP_DELAY_MS = 500;
/**
 * When the workers are woken again after a job of a named queue finished: graphile-worker stores
 * the completion (which frees the queue) without waiting for it, so a worker that looks for the
 * queue's next job at once may still find it locked and would then sleep until the safety poll.
 */
const QUEUE_RELEASE_WAKES_MS = [25, 250, 2000];

/**
 * Wakes this process's workers when a job queued for later (a `run_at`, a retry's backoff) becomes
 * due. graphile-worker hears of new jobs by NOTIFY but of due ones only by polling, each of its
 * workers every `pollInterval`: at one second that is four queries a second on an idle service.
 * With this alarm the workers poll rarely (a safety net) and a job due later still starts on time.
 *
 * Each look reads the earliest run_at later than the previous look's time, so every job wakes the
 * workers once: a due job they cannot take (its queue is busy, another process took it) never
 * makes the alarm spin.
 */
export class JobAlarm {
  private timer: NodeJS.Timeout | null = null;
  private since: Date | null = null;
  private looking = false;
  private lookAgain = false;
  private stopped = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly wake: () => void,
    private readonly log: Logger,
  ) {}

  /** Reads the next due time again (after a NOTIFY of new jobs, at start). One query at a time. */
  look(): void {
    if (this.stopped) return;
    if (this.looking) {
      this.lookAgain = true;
      return;
    }
    this.looking = true;
    this.pool
      .query<{ now: Date; wait_ms: number | null }>(
        `SELECT now() AS now, (EXTRACT(EPOCH FROM min(run_at) - now()) * 1000)::float8 AS wait_ms
           FROM graphile_worker._private_jobs WHERE is_available AND run_at > COALESCE($1, now())`,
        [this.since],
      )
      .then(
        ({ rows: [row] }) => {
          this.since = row.now;
          this.arm(row.wait_ms);
        },
        (err: unknown) => this.log.warn({ err }, "could not read when the next job is due"),
      )
      .finally(() => {
        this.looking = false;
        if (this.lookAgain) {
          this.lookAgain = false;
          this.look();
        }
      });
  }

  /** A job of a named queue ended: its queue's next job can start once the end is stored. */
  afterQueuedJob(): void {
    if (this.stopped) return;
    for (const ms of QUEUE_RELEASE_WAKES_MS) setTimeout(() => this.stopped || this.wake(), ms).unref();
  }

  /** A failed attempt is retried later: look once its new due time is stored. */
  afterFailure(): void {
    setTimeout(() => this.look(), RETRY_LOOKUP_DELAY_MS).unref();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private arm(waitMs: number | null): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (waitMs === null || this.stopped) return;
    if (waitMs <= 0) {
      this.wake();
      this.look();
      return;
    }
    const wait = Math.min(Math.ceil(waitMs), MAX_WAIT_MS);
    this.timer = setTimeout(() => {
      this.timer = null;
      if (wait === Math.ceil(waitMs)) {
        // The wake reaches every job due by now; the next look starts from now.
        this.since = null;
        this.wake();
      }
      this.look();
    }, wait);
    this.timer.unref();
  }
}
