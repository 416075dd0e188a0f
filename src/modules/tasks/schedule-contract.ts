import { z } from "zod";
import { InputError, parseInput } from "../../platform/errors.ts";
import { CRON_FIELDS, PERIOD_SECONDS, intervalSeconds, scheduleIssues, type CronField, type Period, type Schedule } from "./schedule.ts";
import { CRON_DOC, SCHEDULE_DOC } from "./tasks.docs.ts";

/**
 * A schedule as services take it (scheduled tasks, exports): `{type: "interval", every, period}` or
 * `{type: "crontab", minute, hour, day_of_week, day_of_month, month_of_year, timezone}`, each cron
 * field defaulting to `*`. Its rules (a positive interval of at most ten years, valid cron fields,
 * a known time zone, a crontab that fires) are `scheduleIssues`, reported at the field.
 */
const periods = Object.keys(PERIOD_SECONDS) as [Period, ...Period[]];
const cronField = (f: CronField) => z.string().max(100).default("*").describe(CRON_DOC[f]);
export const cronFields = Object.fromEntries(CRON_FIELDS.map((f) => [f, cronField(f)])) as Record<CronField, ReturnType<typeof cronField>>;
export const timezone = z.string().min(1).max(64).nullable().optional().describe(SCHEDULE_DOC.timezone);

const intervalFields = {
  every: z.int().describe(SCHEDULE_DOC.every),
  period: z.enum(periods).default("seconds").describe(`${SCHEDULE_DOC.period} (default seconds)`),
};
const crontabFields = { ...cronFields, timezone };

/** Adds a schedule's rule breaches to a zod check, each at its field. */
function checkSchedule(s: Schedule, ctx: z.RefinementCtx): void {
  for (const issue of scheduleIssues(s)) ctx.addIssue({ code: "custom", path: issue.loc, message: issue.msg, input: issue.input });
}
const asInterval = (s: { every: number; period: Period }): Schedule => ({ type: "interval", every: s.every, period: s.period });
const asCrontab = (s: Record<CronField, string> & { timezone?: string | null }): Schedule => ({ type: "crontab", ...pickCron(s), timezone: s.timezone ?? null });

/** The interval's fields and the crontab's without their `type` (the REST spec's `interval` and `crontab` objects), checked by the same rules. */
export const intervalScheduleFields = z.object(intervalFields).strict().superRefine((s, ctx) => checkSchedule(asInterval(s), ctx));
export const crontabScheduleFields = z.object(crontabFields).strict().superRefine((s, ctx) => checkSchedule(asCrontab(s), ctx));

export const scheduleContract = z
  .discriminatedUnion("type", [
    z.object({ type: z.literal("interval").describe(SCHEDULE_DOC.type), ...intervalFields }).strict().superRefine((s, ctx) => checkSchedule(asInterval(s), ctx)),
    z.object({ type: z.literal("crontab").describe(SCHEDULE_DOC.type), ...crontabFields }).strict().superRefine((s, ctx) => checkSchedule(asCrontab(s), ctx)),
  ])
  .transform((s): Schedule => (s.type === "interval" ? asInterval(s) : asCrontab(s)));

/**
 * The peer's `schedule` object: `{type: "interval", every: <seconds>}` or `{type: "crontab", minute,
 * hour, day_of_week, day_of_month, month_of_year, timezone}`, type defaulting to interval.
 */
export const peerSchedule = z
  .object({ type: z.enum(["interval", "crontab"]).default("interval").describe(SCHEDULE_DOC.type), every: z.int().optional().describe("Interval schedules: seconds between runs"), ...cronFields, timezone })
  .strict();
export type PeerSchedule = z.infer<typeof peerSchedule>;

export const pickCron = (c: Record<CronField, string>) => Object.fromEntries(CRON_FIELDS.map((f) => [f, c[f]])) as Record<CronField, string>;

/** The schedule a peer object describes (`every` required for an interval, refused for a crontab), not yet checked. */
export const peerScheduleShape = peerSchedule.transform((s, ctx): z.input<typeof scheduleContract> => {
  if (s.type === "interval") {
    if (s.every === undefined) ctx.addIssue({ code: "custom", path: ["every"], message: "Field required when type is interval", input: s });
    return { type: "interval", every: s.every ?? 0, period: "seconds" };
  }
  if (s.every !== undefined) ctx.addIssue({ code: "custom", path: ["every"], message: "Not allowed when type is crontab", input: s.every });
  return { type: "crontab", ...pickCron(s), timezone: s.timezone ?? null };
});

/** The peer's object as a checked schedule: adapters that take the peer's form parse it with this. */
export const peerScheduleInput = peerScheduleShape.pipe(scheduleContract);

/**
 * A peer schedule given as JSON (GraphQL's `schedule` arguments): undefined stays undefined (not
 * given), null is null (none); anything else is checked, errors under `schedule`.
 */
export function peerScheduleValue(value: unknown): Schedule | null | undefined {
  if (value === undefined || value === null) return value;
  try {
    return parseInput(peerScheduleInput, value);
  } catch (err) {
    throw err instanceof InputError ? err.within(["schedule"]) : err;
  }
}

/** A schedule as answers show it (the peer's object, plus the period the interval was given in). */
export function scheduleOut(s: Schedule) {
  return s.type === "interval"
    ? { type: "interval", every: intervalSeconds(s), period_every: s.every, period: s.period }
    : { type: "crontab", ...pickCron(s), timezone: s.timezone ?? "UTC" };
}
