import { z } from "zod";
import { isCalendarDate } from "./misp-parse.ts";

/**
 * The input contracts of event writes, in the service's vocabulary: the REST shim derives its
 * snake_case bodies from them (`wireContract`), GraphQL checks EventInput with them (`contractInput`).
 */
const uuid = z.guid().transform((u) => u.toLowerCase());

export const calendarDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, "must be a date YYYY-MM-DD")
  .refine(isCalendarDate, "must be a date that exists, years 1 to 9999");

const info = z.string().trim().min(1).max(65_535).describe("The event's title (MISP info), 1 to 65,535 characters");

const eventFields = {
  date: calendarDate.optional().describe("The event's date, YYYY-MM-DD (default today)"),
  threatLevel: z.number().int().min(1).max(4).optional().describe("MISP threat level: 1 high, 2 medium, 3 low, 4 undefined (default 4)"),
  analysis: z.number().int().min(0).max(2).optional().describe("MISP analysis: 0 initial, 1 ongoing, 2 complete (default 0)"),
  distribution: z.number().int().min(0).max(4).optional().describe("MISP distribution 0-4; 4: the sharing group sharingGroupId names"),
  sharingGroupId: z.number().int().min(1).max(2_147_483_647).nullable().optional().describe("The sharing group (distribution 4), one your organisation belongs to; null: none"),
  published: z.boolean().optional(),
  locked: z.boolean().optional(),
  protected: z.boolean().optional(),
  disableCorrelation: z.boolean().optional(),
  extendsUuid: uuid.nullable().optional().describe("The event this one extends; null: none"),
};

export const eventCreateContract = z
  .object({ info, uuid: uuid.optional().describe("Its UUID; absent: a new one"), ...eventFields, deleted: z.literal(false).optional() })
  .strict();

export const eventUpdateContract = z
  .object({ info: info.optional(), ...eventFields, deleted: z.boolean().optional().describe("false restores a soft-deleted event, true soft-deletes it (both need events:delete)") })
  .strict();

export type EventCreate = z.output<typeof eventCreateContract>;
export type EventFields = z.output<typeof eventUpdateContract>;

/** How many tags a list of events may be filtered by (each must be carried). */
export const MAX_TAG_FILTERS = 10;
