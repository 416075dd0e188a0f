import type { Sql } from "../../platform/db/transaction.ts";
import { nextRun, type CronField, type Schedule } from "../tasks/index.ts";
import { wakeTicker } from "../tasks/index.ts";
import { deleteScheduledTask, insertScheduledTask, updateScheduledTask } from "../tasks/index.ts";
import { setHuntSchedule, type HuntRow } from "./hunt-store.ts";

/**
 * A hunt's own schedule control: hourly, daily or weekly, kept as a `run_hunt` scheduled task owned
 * by the hunt's owner (so it shows in /tasks/scheduled, and pauses, runs and fails like any task).
 * A schedule changed through /tasks to anything else reads as `custom`.
 */
export const HUNT_FREQUENCIES = {
  hourly: { type: "interval", every: 1, period: "hours" },
  daily: { type: "interval", every: 1, period: "days" },
  weekly: { type: "interval", every: 1, period: "weeks" },
} as const satisfies Record<string, Schedule>;

export type HuntFrequency = keyof typeof HUNT_FREQUENCIES;
export const HUNT_FREQUENCY_NAMES = Object.keys(HUNT_FREQUENCIES) as HuntFrequency[];

const SECONDS: Record<number, HuntFrequency> = { 3600: "hourly", 86_400: "daily", 604_800: "weekly" };

export function frequencyOf(h: Pick<HuntRow, "scheduledTaskId" | "scheduleSeconds">): HuntFrequency | "custom" | null {
  if (!h.scheduledTaskId) return null;
  return (h.scheduleSeconds !== null && SECONDS[h.scheduleSeconds]) || "custom";
}

export const RUN_HUNT_TASK = "run_hunt";

/** A custom schedule of the hunt's own control: cron fields read in UTC (it reads as `custom`). */
export type HuntCron = Record<CronField, string>;

/** Sets (or with null removes) the hunt's schedule, a frequency or cron fields, in the caller's transaction. */
export async function setHuntFrequency(sql: Sql, hunt: Pick<HuntRow, "id" | "userId" | "name" | "scheduledTaskId" | "scheduleSeconds">, frequency: HuntFrequency | HuntCron | null, grantScopes: string[]): Promise<void> {
  if (frequency === null) {
    if (hunt.scheduledTaskId) await deleteScheduledTask(sql, hunt.scheduledTaskId);
    await setHuntSchedule(sql, hunt.id, null);
    return;
  }
  if (typeof frequency === "string" && frequencyOf(hunt) === frequency) return;
  const schedule: Schedule = typeof frequency === "string" ? { ...HUNT_FREQUENCIES[frequency] } : { type: "crontab", ...frequency, timezone: null };
  const fields = { name: `Hunt ${hunt.id}: ${hunt.name}`.slice(0, 255), args: [], kwargs: { hunt_id: hunt.id }, schedule, enabled: true, nextRunAt: nextRun(schedule, new Date()) };
  if (hunt.scheduledTaskId) {
    await updateScheduledTask(sql, hunt.scheduledTaskId, fields);
  } else {
    const task = await insertScheduledTask(sql, { ...fields, task: RUN_HUNT_TASK, ownerId: hunt.userId, grantScopes });
    await setHuntSchedule(sql, hunt.id, task.id);
  }
  await wakeTicker(sql);
}
