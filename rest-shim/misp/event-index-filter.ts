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
// PostgreSQL refuses a NUL character in a text parameter.
const text = z.string().max(1000).refine((s) => !s.includes("\u0000"), "must not hold a NUL character");
const name = z.union([text, z.number().int()]).transform(String);
/** MISP's index pieces: those without `!` (`any`) and, without their `!`, those with it (`none`). */
function byNegation(pieces: string[]): { any: string[]; none: string[] } {
  return { any: pieces.filter((p) => !p.startsWith("!")), none: pieces.filter((p) => p.startsWith("!")).map((p) => p.slice(1)) };
}
interface Pieces {
  OR: string[];
  AND: string[];
  NOT: string[];
}
/**
 * MISP's index reads a tag list as `a|b` (OR) or, one piece holding `&`, `a&b` (AND), a `!x` piece
 * being NOT x (EventsController::__setIndexFilterConditions); a list is its pieces as they are.
 */
function tagPieces(pieces: string[]): Pieces {
  const anded = pieces.length === 1 && pieces[0]!.includes("&") ? pieces[0]!.split("&") : null;
  const { any, none } = byNegation(anded ?? pieces);
  return { OR: anded && anded.length > 1 ? [] : any, AND: anded && anded.length > 1 ? any : [], NOT: none };
}
/** A value list MISP accepts: one value (`|`-separated), a list, or `{"OR": [...], "AND": [...], "NOT": [...]}`; `!x` is NOT x. */
const valueList = z.union([
  name.transform((v) => tagPieces(v.split("|"))),
  z.array(name).max(100).transform(tagPieces),
  z
    .object({ OR: z.array(name).max(100).optional(), AND: z.array(name).max(100).optional(), NOT: z.array(name).max(100).optional() })
    .strict()
    .transform((v): Pieces => {
      const or = byNegation(v.OR ?? []);
      return { OR: or.any, AND: v.AND ?? [], NOT: [...(v.NOT ?? []), ...or.none] };
    }),
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

/** MISP's index org: `|`-separated pieces or a list (or `{"OR", "NOT"}`); `!x` leaves out x. */
const orgList = z.union([
  name.transform((v) => v.split("|")),
  z.array(name).max(100),
  z
    .object({ OR: z.array(name).max(100).optional(), NOT: z.array(name).max(100).optional() })
    .strict()
    .transform((v) => [...(v.OR ?? []), ...(v.NOT ?? []).map((n) => `!${n}`)]),
]).transform(byNegation);

const filterSchema = z
  .object({
    eventinfo: name.optional(),
    published: mispBool.optional(),
    tags: valueList.optional(),
    tag: valueList.optional(),
    org: orgList.optional(),
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

/**
 * Of the `a&b` tag names, those a live event the caller may read carries. MISP leaves out a name no
 * tag has (Tag lookup empty: `continue`) and ANDs the others; here a name no readable event carries
 * is left out the same way, so that the answer hangs on readable events only: a tag only another
 * organisation's private events carry is then the same as no tag at all (MISP, whose lookup reads
 * the whole tags table, would find nothing).
 */
async function carriedByReadable(services: Services, p: Principal | null, names: string[]): Promise<string[]> {
  const unique = [...new Set(names)];
  const carried = await Promise.all(unique.map(async (name) => (await services.events.list(p, { anyTags: [name], deleted: false }, { page: 1, size: 1 })).items.length > 0));
  return unique.filter((_, i) => carried[i]);
}

/**
 * MISP's index eventinfo: `|`-separated pieces, each `lower(Event.info) LIKE '%piece%'` lower-cased
 * (its `%` and `_` wildcards, `\` escaping), one of them; a `!piece` NOT LIKE, each.
 */
function infoLike(given: string): { any: string[]; none: string[] } {
  const { any, none } = byNegation(given.split("|"));
  const like = (p: string) => `%${p.toLowerCase()}%`;
  return { any: any.map(like), none: none.map(like) };
}

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
  if (f.eventinfo) filter.infoLike = infoLike(f.eventinfo);
  if (f.published !== undefined) filter.published = f.published;
  const tags = f.tags ?? f.tag;
  let nothing = false;
  if (tags) {
    const names = (refs: string[]) => tagNames(services, p, refs);
    const [or, and, not] = await Promise.all([names(tags.OR), names(tags.AND), names(tags.NOT)]);
    // As MISP's index: a tag (id or name) it does not know is left out of `|` and `&` pieces alike,
    // none known among those asked for finds nothing, and one left out (`!`) is no condition.
    const known = (list: (string | null)[]) => list.filter((n): n is string => n !== null);
    const anded = await carriedByReadable(services, p, known(and));
    nothing = (or.length > 0 && known(or).length === 0) || (and.length > 0 && anded.length === 0);
    filter.anyTags = or.length ? known(or) : undefined;
    filter.tags = anded.length ? anded : undefined;
    filter.noTags = known(not).length ? known(not) : undefined;
  }
  if (f.org) {
    if (f.org.any.length) filter.orgc = f.org.any;
    if (f.org.none.length) filter.notOrgc = f.org.none;
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
