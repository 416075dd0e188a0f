import { z } from "zod";
import type { Principal } from "../../src/auth/principal.ts";
import { isCalendarDate, type EventFilter } from "../../src/modules/events/index.ts";
import { errors } from "../../src/platform/errors.ts";
import type { PageRequest } from "../../src/platform/pagination.ts";
import type { Services } from "../../src/services.ts";
import { eventUuidOf, mispBool, mispRef } from "./misp-route.ts";
import { timeRange } from "./rest-search-contract.ts";
import { tagNameOf } from "./tags.ts";

/** MISP's index has no page size limit; ours answers at most this many events per request. */
export const MAX_INDEX_LIMIT = 1000;

const NIL_UUID = "00000000-0000-0000-0000-000000000000";
const text = z.string().max(1000);
const name = z.union([text, z.number().int()]).transform(String);
/** A value list MISP accepts: one value, a list, or `{"OR": [...], "AND": [...], "NOT": [...]}`; `!x` is NOT x. */
const valueList = z.union([
  name.transform((v) => ({ OR: [v], AND: [] as string[], NOT: [] as string[] })),
  z.array(name).max(100).transform((v) => ({ OR: v, AND: [] as string[], NOT: [] as string[] })),
  z
    .object({ OR: z.array(name).max(100).optional(), AND: z.array(name).max(100).optional(), NOT: z.array(name).max(100).optional() })
    .strict()
    .transform((v) => ({ OR: v.OR ?? [], AND: v.AND ?? [], NOT: v.NOT ?? [] })),
]);

/** A day: YYYY-MM-DD, or epoch seconds (PyMISP sends dates as the timestamp of their last second), as the UTC day. */
const day = z.union([z.string().max(40), z.number()]).transform((v, ctx) => {
  const s = String(v).trim();
  if (/^\d{4}-\d{2}-\d{2}$/.test(s) && isCalendarDate(s)) return s;
  const n = Number(s);
  if (s !== "" && Number.isFinite(n) && n >= 0 && n <= 253_402_300_799) return new Date(n * 1000).toISOString().slice(0, 10);
  ctx.addIssue({ code: "custom", message: "must be a date YYYY-MM-DD or epoch seconds" });
  return z.NEVER;
});

const filterSchema = z
  .object({
    eventinfo: text.optional(),
    published: mispBool.optional(),
    tags: valueList.optional(),
    tag: valueList.optional(),
    org: valueList.optional(),
    datefrom: day.optional(),
    dateuntil: day.optional(),
    // MISP's resolveTimeDelta forms, as restSearch takes them: from then on, or [from, to].
    timestamp: timeRange.optional(),
    publish_timestamp: timeRange.optional(),
    publishtimestamp: timeRange.optional(),
    eventid: z.union([z.string(), z.number()]).transform(String).pipe(mispRef).optional(),
    limit: z.coerce.number().int().min(1).max(MAX_INDEX_LIMIT).optional(),
    page: z.coerce.number().int().min(1).max(1_000_000).optional(),
    // Ordering is always the newest change first; MISP's sort keys are accepted and not applied.
    sort: text.optional(),
    direction: z.enum(["asc", "desc"]).optional(),
  })
  .strict();

/** Tag references as MISP's index reads them: a number is a tag's id (its name here; null: no tag has it), anything else a name. */
const tagNames = (services: Services, p: Principal | null, refs: string[]) =>
  Promise.all(refs.map((r) => (!/^\d+$/.test(r) ? r : r.length <= 10 && Number(r) <= 2_147_483_647 ? tagNameOf(services, p, r) : null)));

/** The %-wildcards MISP's LIKE filters take: our info filter is a substring match already. */
const unwrapLike = (s: string) => s.replace(/^%+|%+$/g, "");
const negated = (v: string) => v.startsWith("!");

/**
 * PyMISP's search_index filters as the events list's filter. A filter MISP knows that is not
 * supported here (attribute, threatlevel, ...) is a 400 naming it: ignoring it would
 * answer events it was meant to leave out.
 */
export async function mispIndexFilter(services: Services, p: Principal | null, input: Record<string, unknown>): Promise<{ filter: EventFilter; page: PageRequest }> {
  const parsed = filterSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue.code === "unrecognized_keys" ? issue.keys[0] : issue.path.join(".");
    throw errors.badRequest(issue.code === "unrecognized_keys" ? `The filter ${field} is not supported` : `${field}: ${issue.message}`);
  }
  const f = parsed.data;
  const filter: EventFilter = {};
  if (f.eventinfo) filter.info = unwrapLike(f.eventinfo);
  if (f.published !== undefined) filter.published = f.published;
  const tags = f.tags ?? f.tag;
  let nothing = false;
  if (tags) {
    const names = (refs: string[]) => tagNames(services, p, refs);
    const [or, and, not] = await Promise.all([names(tags.OR.filter((t) => !negated(t))), names(tags.AND), names([...tags.NOT, ...tags.OR.filter(negated).map((t) => t.slice(1))])]);
    // As MISP's index: an id no tag has finds nothing when asked for, and is no condition when left out.
    const known = (list: (string | null)[]) => list.filter((n): n is string => n !== null);
    nothing = (or.length > 0 && known(or).length === 0) || and.includes(null);
    filter.anyTags = or.length ? known(or) : undefined;
    filter.tags = and.length ? known(and) : undefined;
    filter.noTags = known(not).length ? known(not) : undefined;
  }
  if (f.org) {
    if (f.org.OR.length + f.org.AND.length !== 1 || f.org.NOT.length) throw errors.badRequest("org: exactly one organisation (id, uuid or name) is supported");
    filter.orgc = [...f.org.OR, ...f.org.AND][0];
  }
  if (f.datefrom) filter.dateFrom = f.datefrom;
  if (f.dateuntil) filter.dateUntil = f.dateuntil;
  if (f.timestamp) filter.timestamp = f.timestamp;
  const published = f.publish_timestamp ?? f.publishtimestamp;
  if (published) filter.publishTimestamp = published;
  // An id no event has matches nothing (the nil uuid is no event's).
  if (f.eventid) filter.uuid = await eventUuidOf(services, p, f.eventid).catch(() => NIL_UUID);
  if (nothing) filter.uuid = NIL_UUID;
  filter.deleted = false;
  return { filter, page: { page: f.page ?? 1, size: f.limit ?? MAX_INDEX_LIMIT } };
}
