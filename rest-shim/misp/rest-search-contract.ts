import { z } from "zod";
import { parseBound } from "../../src/modules/search/index.ts";
import { named } from "../contract.ts";
import { mispBool } from "./misp-route.ts";

/**
 * The filters of MISP's `events/restSearch` and `attributes/restSearch` (one contract for both),
 * in MISP's forms: a value list is one value (`"a&&!b"` is a OR, NOT b, as MISP's convert_filters
 * reads it), a list (`!x` is NOT x) or `{"OR": [...], "AND": [...], "NOT": [...]}`; booleans are
 * MISP's 0/1; times are epoch seconds, a date, or MISP's `1d`/`12h`/`30m`/`45s` back from now.
 * Filters MISP knows and this API does not (quickFilter, sharinggroup, decay scores...) are ignored,
 * as MISP ignores a filter it does not know.
 */
export const RETURN_FORMATS = ["json", "csv", "text", "stix2"] as const;
export type ReturnFormat = (typeof RETURN_FORMATS)[number];

/** Results one request may carry: MISP's unlimited answers stop here (use limit and page beyond). */
export const MAX_REST_SEARCH_RESULTS = { events: 1_000, attributes: 5_000 } as const;
/** Terms one value list may hold. */
export const MAX_LIST_TERMS = 100;
const MAX_EPOCH = 253_402_300_799;
const DELTA = { d: 86_400, h: 3_600, m: 60, s: 1 } as const;

export interface ValueList {
  OR: string[];
  AND: string[];
  NOT: string[];
}

const text = z.string().max(1024);
const scalar = z.union([text, z.number().finite(), z.boolean()]).transform(String);
const terms = z.union([scalar.transform((s) => [s]), z.array(scalar).max(MAX_LIST_TERMS)]);
const split = (items: string[]): ValueList => ({
  OR: items.filter((s) => !s.startsWith("!")),
  AND: [],
  NOT: items.filter((s) => s.startsWith("!")).map((s) => s.slice(1)),
});

export const valueList = named(
  "MispValueList",
  z.union([
    scalar.transform((s) => split(s.split("&&").filter((x) => x !== ""))),
    z.array(scalar).max(MAX_LIST_TERMS).transform(split),
    z
      .object({ OR: terms.optional(), AND: terms.optional(), NOT: terms.optional() })
      .strict()
      .transform((v): ValueList => ({ OR: v.OR ?? [], AND: v.AND ?? [], NOT: v.NOT ?? [] })),
  ]),
  "One value, a list (!x: NOT x), \"a&&!b\", or {\"OR\": [...], \"AND\": [...], \"NOT\": [...]}",
);

/** MISP's resolveTimeDelta: epoch seconds as they are, `<n>d|h|m|s` back from now, else a date or ISO time. */
export function resolveTime(given: string, end = false, now = Date.now()): number | null {
  const s = given.trim();
  if (/^\d{1,12}$/.test(s)) return Number(s) <= MAX_EPOCH ? Number(s) : null;
  const delta = /^(\d{1,9})([dhms])$/i.exec(s);
  if (delta) return Math.floor(now / 1000) - Number(delta[1]) * DELTA[delta[2]!.toLowerCase() as keyof typeof DELTA];
  const at = parseBound(s, end);
  return at === null ? null : Math.floor(at.getTime() / 1000);
}

const instant = (end: boolean) =>
  // PyMISP sends a datetime as float seconds; MISP's resolveTimeDelta casts them to int.
  z.union([text, z.number().finite().min(0).transform(Math.floor)]).transform((v, ctx) => {
    const t = resolveTime(String(v), end);
    if (t === null) {
      ctx.addIssue({ code: "custom", message: "must be epoch seconds, a date (YYYY-MM-DD), an ISO 8601 time or a delta such as 1d, 12h, 30m" });
      return z.NEVER;
    }
    return t;
  });

export interface TimeRange {
  from?: number;
  to?: number;
}

/** One time (from it on) or [from, to], as MISP's setTimestampConditions. */
export const timeRange = named(
  "MispTimeRange",
  z.union([instant(false).transform((from): TimeRange => ({ from })), z.tuple([instant(false), instant(true)]).transform(([from, to]): TimeRange => ({ from, to }))]),
  "Epoch seconds, a date or a delta (1d, 12h, 30m): from then on; or [from, to]",
);

/** An event date bound (`from`, `to`): MISP compares Event.date with the day. */
const day = (end: boolean) => instant(end).transform((t) => new Date(t * 1000).toISOString().slice(0, 10));

/** 0, 1, or both ([0, 1]: no filter). */
const tristate = z
  .union([mispBool, z.array(mispBool).min(1).max(2)])
  .transform((v) => (Array.isArray(v) ? (v.includes(true) && v.includes(false) ? undefined : v[0]) : v));

const count = (max: number) => z.union([z.number().int(), z.string().regex(/^-?\d{1,12}$/).transform(Number)]).pipe(z.number().int().min(0).max(max));

export const restSearchContract = named(
  "MispRestSearchFilters",
  z
    .object({
      returnFormat: z.string().max(40).optional().describe(`${RETURN_FORMATS.join(", ")} (default json)`),
      value: valueList.optional().describe("Attribute values (value1 or value2, ignoring case); one that starts or ends with % is a LIKE pattern (% any text, _ one character, \\ escapes)"),
      value1: valueList.optional().describe("The first half of a composite value (of another type, the value), ignoring case; LIKE as value"),
      value2: valueList.optional().describe("The second half of a composite value (of another type, empty), ignoring case; LIKE as value"),
      type: valueList.optional().describe("Attribute types, ignoring case (email-src or email-dst brings email); LIKE as value"),
      category: valueList.optional().describe("Attribute categories, with their case; LIKE as value"),
      comment: valueList.optional().describe("Attribute comments, ignoring case; LIKE as value"),
      org: valueList.optional().describe("The creator organisation: numeric id, uuid or name (with its case)"),
      tags: valueList.optional().describe("Tags: a number is a tag id, anything else a LIKE pattern on the name with its case (% and _ wherever they are). On events, the event's tags or its attributes' (NOT: the event's, and the attributes carrying it themselves are left out of the events answered); on attributes, theirs or their event's"),
      tag: valueList.optional().describe("tags, when tags is not given"),
      event_tags: valueList.optional().describe("Tags (as tags) of the event only"),
      eventid: valueList.optional().describe("Events by numeric id or uuid"),
      uuid: valueList.optional().describe("Uuids: the event's (events) or the attribute's or its event's (attributes)"),
      eventinfo: valueList.optional().describe("The event's title, with its case; LIKE as value"),
      searchall: text.optional().describe("One LIKE pattern as given (%text% for a substring): the event's title, an attribute's value1, value2 or comment, or a tag of the event or of its attributes"),
      from: day(false).optional().describe("Event date from (YYYY-MM-DD or epoch seconds)"),
      to: day(true).optional().describe("Event date until"),
      last: timeRange.optional().describe("Events published since (1d, 12h, 30m, or epoch seconds)"),
      timestamp: timeRange.optional().describe("The event's (events) or attribute's (attributes) last change"),
      event_timestamp: timeRange.optional().describe("The event's last change"),
      publish_timestamp: timeRange.optional().describe("The event's publication"),
      published: tristate.optional(),
      to_ids: tristate.optional(),
      deleted: z
        .union([mispBool, z.array(mispBool).min(1).max(2)])
        .transform((v) => (Array.isArray(v) ? (v.includes(true) && v.includes(false) ? "both" : v[0] ? "deleted" : "live") : v ? "deleted" : "live"))
        .optional()
        .describe("Attributes: 0 live (default), 1 soft-deleted, [0, 1] both"),
      enforceWarninglist: mispBool.optional().describe("Leave out attributes on an enabled warninglist"),
      includeEventUuid: mispBool.optional(),
      includeEventTags: mispBool.optional(),
      includeContext: mispBool.optional(),
      includeCorrelations: mispBool.optional(),
      includeSightings: mispBool.optional(),
      metadata: mispBool.optional().describe("Events without their attributes, objects and reports"),
      headerless: mispBool.optional().describe("csv without its header line"),
      requested_attributes: z.array(z.string().max(100)).max(50).optional().describe("csv columns, in order"),
      limit: count(MAX_REST_SEARCH_RESULTS.attributes).optional().describe("Results per page (0: all)"),
      page: count(1_000_000).pipe(z.number().min(1)).optional(),
      order: text.optional().describe("\"<field> [asc|desc]\" (MISP's \"Attribute.value desc\"): timestamp, uuid and, on attributes, value, type, category, object_relation, to_ids, distribution; on events info, date, publish_timestamp, threat_level_id, analysis, distribution. Ascending unless desc; without order, newest change first. A field other than timestamp sorts every match (up to the unlimited cap)"),
    })
    .loose(),
  "MISP restSearch filters (unknown ones are ignored; null means not given)",
);

export type RestSearchFilters = z.output<typeof restSearchContract>;

/** Drops what PyMISP sends as null (a filter not given). */
export function withoutNulls(input: unknown): Record<string, unknown> {
  if (!input || typeof input !== "object" || Array.isArray(input)) return {};
  return Object.fromEntries(Object.entries(input).filter(([, v]) => v !== null && v !== undefined));
}
