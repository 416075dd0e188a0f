import { z } from "zod";
import { errors } from "../../platform/errors.ts";
import { CRON_FIELDS, intervalSeconds, type CronField, type Schedule } from "./schedule.ts";

/**
 * The peer's `schedule` object (scheduled tasks, exports): `{type: "interval", every: <seconds>}` or
 * `{type: "crontab", minute, hour, day_of_week, day_of_month, month_of_year, timezone}`, each cron
 * field defaulting to `*`. REST bodies and GraphQL arguments parse it with this one schema.
 */
const cronField = z.string().max(100).default("*");
export const cronFields = Object.fromEntries(CRON_FIELDS.map((f) => [f, cronField])) as Record<CronField, typeof cronField>;
export const timezone = z.string().min(1).max(64).nullable().optional();

export const peerSchedule = z
  .object({ type: z.enum(["interval", "crontab"]).default("interval"), every: z.number().int().optional(), ...cronFields, timezone })
  .strict();
export type PeerSchedule = z.infer<typeof peerSchedule>;

export const pickCron = (c: Record<CronField, string>) => Object.fromEntries(CRON_FIELDS.map((f) => [f, c[f]])) as Record<CronField, string>;

/** The schedule a peer object describes; 422 naming `where`'s `every` when it does not fit its type. */
export function fromPeer(s: PeerSchedule, where: (string | number)[] = ["body", "schedule"]): Schedule {
  if (s.type === "interval") {
    if (s.every === undefined) throw errors.invalidField([...where, "every"], "Field required when type is interval");
    return { type: "interval", every: s.every, period: "seconds" };
  }
  if (s.every !== undefined) throw errors.invalidField([...where, "every"], "Not allowed when type is crontab");
  return { type: "crontab", ...pickCron(s), timezone: s.timezone ?? null };
}

/** A schedule as answers show it (the peer's object, plus the period the interval was given in). */
export function scheduleOut(s: Schedule) {
  return s.type === "interval"
    ? { type: "interval", every: intervalSeconds(s), period_every: s.every, period: s.period }
    : { type: "crontab", ...pickCron(s), timezone: s.timezone ?? "UTC" };
}
