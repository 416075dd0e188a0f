import { z } from "zod";
import { HUNT_STATUSES, HUNT_TYPE_ALIASES, HUNT_TYPES, INDEX_TARGETS, MAX_QUERY_LENGTH } from "./hunt-definition.ts";
import { HUNT_FREQUENCY_NAMES } from "./hunt-schedule.ts";
import { containsFilter } from "../../platform/contract-fields.ts";
import { crontabScheduleFields, type CronField } from "../tasks/index.ts";

/**
 * The input contracts of hunt writes, in the service's vocabulary: the service checks its input
 * with them (so every caller gets the same rules), REST derives its bodies, GraphQL its checks.
 * What needs the stored hunt (the query's syntax for its type, the target a type allows) stays in
 * the service.
 */
/** A cron line's fields in the order it is written. */
const CRON_ORDER = ["minute", "hour", "day_of_month", "month_of_year", "day_of_week"] as const satisfies readonly CronField[];

/** A cron line's fields by name; null when it does not hold five fields. */
export function cronFieldsOf(line: string): Record<CronField, string> | null {
  const parts = line.trim().split(/\s+/).filter(Boolean);
  return parts.length === 5 ? (Object.fromEntries(CRON_ORDER.map((f, i) => [f, parts[i]])) as Record<CronField, string>) : null;
}

/**
 * A custom schedule written as one cron line, `minute hour day-of-month month day-of-week` in UTC,
 * checked by the scheduled tasks' own rules (ranges, lists, steps; a line that never fires). It stays
 * a string (contracts are parsed again by the service); cronFieldsOf splits it.
 */
const cronLine = z
  .string()
  .trim()
  .max(255)
  .superRefine((line, ctx) => {
    const fields = cronFieldsOf(line);
    if (!fields) {
      ctx.addIssue({ code: "custom", message: "Give five cron fields: minute hour day-of-month month day-of-week (for example 30 6 * * 1-5)" });
      return;
    }
    const checked = crontabScheduleFields.safeParse(fields);
    if (!checked.success) for (const issue of checked.error.issues) ctx.addIssue({ code: "custom", message: `${issue.path.join(".") || "cron"}: ${issue.message}` });
  });

const huntTypeNames = [...HUNT_TYPES, ...Object.keys(HUNT_TYPE_ALIASES)] as [string, ...string[]];

export const huntCreateContract = z
  .object({
    name: z.string().trim().min(1).max(255),
    description: z.string().max(10_000).nullable().optional(),
    // Kept verbatim (Explore's "save as hunt" stores the query with its time clause as written).
    query: z.string().min(1).max(MAX_QUERY_LENGTH),
    huntType: z.enum(huntTypeNames).optional(),
    indexTarget: z.enum(INDEX_TARGETS).nullable().optional(),
    status: z.enum(HUNT_STATUSES).optional(),
    schedule: z.enum(HUNT_FREQUENCY_NAMES as [(typeof HUNT_FREQUENCY_NAMES)[number], ...(typeof HUNT_FREQUENCY_NAMES)[number][]]).nullable().optional(),
    // Instead of a frequency (giving both is refused); null removes the schedule as schedule: null does.
    cron: cronLine.nullable().optional(),
  })
  .strict();

export const huntPatchContract = huntCreateContract.partial();

export type HuntInput = z.output<typeof huntCreateContract>;
export type HuntPatch = z.output<typeof huntPatchContract>;

/** `GET /hunts/` and GraphQL `hunts`: P1 paging (size 1 to 100, default 50) and the filters; only administrators may ask for others' hunts (the service's policy). */
export const huntListContract = z
  .object({
    page: z.number().int().min(1).max(1_000_000).default(1).describe("Page number, from 1"),
    size: z.number().int().min(1).max(100).default(50).describe("Items per page, 1 to 100 (default 50)"),
    filter: containsFilter("name"),
    all: z.boolean().optional().describe("Administrators: everyone's hunts"),
    userId: z.number().int().min(1).max(2_147_483_647).optional().describe("Administrators: one user's hunts"),
  })
  .strict();

export type HuntListQuery = z.input<typeof huntListContract>;
