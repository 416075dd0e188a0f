import { Cron } from "croner";
import { InputError, type ValidationIssue } from "../../platform/errors.ts";

export const PERIOD_SECONDS = { seconds: 1, minutes: 60, hours: 3600, days: 86_400, weeks: 604_800 } as const;
export type Period = keyof typeof PERIOD_SECONDS;
export const CRON_FIELDS = ["minute", "hour", "day_of_week", "day_of_month", "month_of_year"] as const;
export type CronField = (typeof CRON_FIELDS)[number];

/** The longest interval accepted: ten years. */
const MAX_INTERVAL_SECONDS = 10 * 366 * 86_400;

export type Schedule =
  | { type: "interval"; every: number; period: Period }
  | ({ type: "crontab"; timezone: string | null } & Record<CronField, string>);

export function intervalSeconds(s: { every: number; period: Period }): number {
  return s.every * PERIOD_SECONDS[s.period];
}

/**
 * What is wrong with a schedule, each issue at its field relative to the schedule (`every`, a cron
 * field, `timezone`). Cron fields are checked one at a time, each in its place of an otherwise `*`
 * expression, so the issue names it.
 */
export function scheduleIssues(s: Schedule): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  if (s.type === "interval") {
    if (!Number.isInteger(s.every) || s.every < 1) {
      issues.push({ type: "value_error", loc: ["every"], msg: "must be a positive integer", input: s.every });
    } else if (intervalSeconds(s) > MAX_INTERVAL_SECONDS) {
      issues.push({ type: "value_error", loc: ["every"], msg: "the interval may be at most ten years", input: s.every });
    }
    return issues;
  }
  for (const field of CRON_FIELDS) {
    const problem = cronFieldProblem(field, s[field]);
    if (problem) issues.push({ type: "value_error", loc: [field], msg: problem, input: s[field] });
  }
  if (s.timezone !== null && !isTimezone(s.timezone)) {
    issues.push({ type: "value_error", loc: ["timezone"], msg: "not an IANA time zone", input: s.timezone });
  }
  if (issues.length === 0 && nextRun(s, new Date()) === null) {
    issues.push({ type: "value_error", loc: ["day_of_month"], msg: "the crontab never fires", input: s.day_of_month });
  }
  return issues;
}

/** Why one cron field (in its place of an otherwise `*` expression) is not valid, or null. */
export function cronFieldProblem(field: CronField, value: string): string | null {
  try {
    compile({ ...STAR, [field]: value }, null);
    return null;
  } catch (err) {
    return `not a valid cron field: ${(err as Error).message}`;
  }
}

/** A service's check of a schedule at `at` in its input (`["schedule"]`): an InputError naming the field. */
export function validateSchedule(s: Schedule, at: (string | number)[]): void {
  const issues = scheduleIssues(s);
  if (issues.length) throw new InputError(issues.map((i) => ({ ...i, loc: [...at, ...i.loc] })));
}

/**
 * The first time after `from` the schedule fires. Intervals count from `from` (a missed run after a
 * downtime is run once, then the schedule continues from then). Crontabs match all five fields
 * (day of month AND day of week, as Celery does, not Vixie cron's OR); null if it never fires.
 */
export function nextRun(s: Schedule, from: Date): Date | null {
  if (s.type === "interval") return new Date(from.getTime() + intervalSeconds(s) * 1000);
  return compile(s, s.timezone).nextRun(from);
}

/**
 * When a schedule that was due at `due` fires next, seen at `now`: intervals keep their cadence
 * (due + k·interval) but skip the runs a downtime missed, so a missed tick runs once, not once per
 * missed tick; crontabs fire at their next match after now.
 */
export function nextRunAfter(s: Schedule, due: Date | null, now: Date): Date | null {
  if (s.type !== "interval" || due === null) return nextRun(s, now);
  const step = intervalSeconds(s) * 1000;
  const behind = Math.max(0, now.getTime() - due.getTime());
  return new Date(due.getTime() + (Math.floor(behind / step) + 1) * step);
}

/** The schedule as one line, e.g. `every 1 hours` or `cron 0 2 * * * (UTC)`. */
export function describeSchedule(s: Schedule): string {
  if (s.type === "interval") return `every ${s.every} ${s.period}`;
  return `cron ${s.minute} ${s.hour} ${s.day_of_month} ${s.month_of_year} ${s.day_of_week} (${s.timezone ?? "UTC"})`;
}

const STAR: Record<CronField, string> = { minute: "*", hour: "*", day_of_week: "*", day_of_month: "*", month_of_year: "*" };
const FIELD_PATTERN = /^[A-Za-z0-9*,/\-]{1,100}$/;

function compile(f: Record<CronField, string>, timezone: string | null): Cron {
  for (const field of CRON_FIELDS) {
    // croner also reads seconds, `?`, `L` and `#`; a Celery-style field is simpler, and spaces would shift fields.
    if (!FIELD_PATTERN.test(f[field])) throw new Error("use digits, names, *, ranges (-), lists (,) and steps (/)");
  }
  const pattern = `${f.minute} ${f.hour} ${f.day_of_month} ${f.month_of_year} ${f.day_of_week}`;
  return new Cron(pattern, { paused: true, timezone: timezone ?? "UTC", legacyMode: false });
}

export function isTimezone(tz: string): boolean {
  if (tz.length > 64) return false;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}
