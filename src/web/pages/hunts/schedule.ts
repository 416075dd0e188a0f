import type { HuntFrequency } from "../../gql/graphql.ts";

/**
 * The schedule control's logic: hourly, daily, weekly, a custom cron line (minute hour day-of-month
 * month day-of-week, UTC) or none, all written through the hunt (updateHunt's schedule or cron).
 */
export type ScheduleChoice = "none" | "hourly" | "daily" | "weekly" | "custom";

export const SCHEDULE_CHOICES: { value: ScheduleChoice; label: string }[] = [
  { value: "none", label: "Not scheduled" },
  { value: "hourly", label: "Hourly" },
  { value: "daily", label: "Daily" },
  { value: "weekly", label: "Weekly" },
  { value: "custom", label: "Custom (cron)" },
];

const FREQUENCIES: Record<"hourly" | "daily" | "weekly", HuntFrequency> = { hourly: "HOURLY", daily: "DAILY", weekly: "WEEKLY" };

export interface CronFields {
  minute: string;
  hour: string;
  dayOfMonth: string;
  monthOfYear: string;
  dayOfWeek: string;
}

/** What updateHunt is given for a change of schedule. */
export type ScheduleWrite = { schedule: HuntFrequency | null } | { cron: string };

/** The hunt's `schedule` field (hourly, daily, weekly, custom or null) as a choice. */
export function choiceOf(schedule: string | null | undefined): ScheduleChoice {
  return schedule === "hourly" || schedule === "daily" || schedule === "weekly" || schedule === "custom" ? schedule : "none";
}

const NAMES = ["minute", "hour", "day of month", "month", "day of week"] as const;
const FIELD = /^(\*|\d{1,2}(-\d{1,2})?)(\/\d{1,2})?(,(\*|\d{1,2}(-\d{1,2})?)(\/\d{1,2})?)*$/;
const RANGES: [number, number][] = [
  [0, 59],
  [0, 23],
  [1, 31],
  [1, 12],
  [0, 6],
];

/** Five cron fields (minute hour day-of-month month day-of-week) or why the text is not that. */
export function parseCron(text: string): CronFields | { error: string } {
  const fields = text.trim().split(/\s+/).filter(Boolean);
  if (fields.length !== 5) return { error: "Give five fields: minute hour day-of-month month day-of-week (for example 30 6 * * 1-5)." };
  for (let i = 0; i < 5; i++) {
    if (!FIELD.test(fields[i])) return { error: `The ${NAMES[i]} field "${fields[i]}" is not a number, range, list or step.` };
    const [low, high] = RANGES[i];
    const numbers = fields[i].split(/[,\-/]/).filter((n) => n !== "*");
    const steps = [...fields[i].matchAll(/\/(\d+)/g)].map((m) => m[1]);
    if (numbers.some((n) => !steps.includes(n) && (Number(n) < low || Number(n) > high))) return { error: `The ${NAMES[i]} field takes ${low} to ${high}.` };
  }
  const [minute, hour, dayOfMonth, monthOfYear, dayOfWeek] = fields;
  return { minute, hour, dayOfMonth, monthOfYear, dayOfWeek };
}

export function formatCron(c: CronFields): string {
  return [c.minute, c.hour, c.dayOfMonth, c.monthOfYear, c.dayOfWeek].join(" ");
}

/** The write that takes a hunt from its current schedule to the chosen one; null when nothing changes. */
export function scheduleWrite(current: { choice: ScheduleChoice; cron: string | null }, next: ScheduleChoice, cron?: CronFields): ScheduleWrite | null {
  if (next === "custom") {
    if (!cron) throw new Error("a custom schedule needs its cron fields");
    const line = formatCron(cron);
    return current.choice === "custom" && current.cron === line ? null : { cron: line };
  }
  if (next === current.choice) return null;
  return { schedule: next === "none" ? null : FREQUENCIES[next] };
}
