import type { Principal } from "../../src/auth/principal.ts";
import { validateAttributeValue } from "../../src/modules/attributes/index.ts";
import { MAX_SEARCH_PAGE_SIZE, MAX_SEARCH_WINDOW, type SearchTarget } from "../../src/modules/search/index.ts";
import type { LuceneNode } from "../../src/search/lucene/ast.ts";
import type { SearchHit } from "../../src/search/search-index.ts";
import type { Services } from "../../src/services.ts";
import { mispException } from "./misp-errors.ts";
import type { RestSearchFilters, TimeRange, ValueList } from "./rest-search-contract.ts";

/**
 * MISP's restSearch filters compiled to Lucene ASTs for the search layer the native search routes
 * use (services.search: the svc-events and svc-attributes indices, OpenSearch or PostgreSQL, with
 * their access filter). An attribute document does not carry its event's tags, title, date or
 * publication, nor an event document its attributes: a filter on the other kind is first run on
 * the other index and enters the query as the set of event uuids it found (at most
 * `MAX_EVENT_SET` uuids for all such sets of a request together: OpenSearch refuses a query of more
 * than 1,024 clauses; beyond, MISP's 400 asks to narrow the filters).
 */
export const MAX_EVENT_SET = 500;
const NIL_UUID = "00000000-0000-0000-0000-000000000000";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

type Node = LuceneNode;
const term = (field: string, value: string): Node => ({ kind: "term", field, value, wildcard: false });
const all = (must: Node[]): Node => (must.length === 1 ? must[0]! : must.length ? { kind: "bool", must, should: [], mustNot: [] } : { kind: "matchAll" });
const any = (should: Node[]): Node => (should.length === 1 ? should[0]! : { kind: "bool", must: [], should, mustNot: [] });
const range = (field: string, r: TimeRange | { from?: string; to?: string }): Node => ({
  kind: "range", field, lower: r.from === undefined ? null : String(r.from), upper: r.to === undefined ? null : String(r.to), includeLower: r.from !== undefined, includeUpper: r.to !== undefined,
});

/** MISP's LIKE: `%` any text (here a wildcard on the exact value), anything else literal. */
export function like(field: string, value: string): Node {
  if (!value.includes("%")) return term(field, value);
  if (/^%+$/.test(value)) return { kind: "exists", field };
  const pattern = value.replace(/[\\*?]/g, (c) => `\\${c}`).replace(/%+/g, "*");
  return { kind: "term", field, value, wildcard: true, pattern };
}

/**
 * The attribute documents' field for MISP's value match (`src/search/fields.ts`): each attribute's
 * value, value1 and value2, lower-cased, so that one exact term finds a value whatever its case
 * and whichever half of a composite it is (one posting list on either backend).
 */
const VALUE_FIELD = "expanded.value";

/** A LIKE pattern's parts: `%` any text, `_` one character, or a literal character. */
type LikePart = "%" | "_" | { char: string };

/**
 * MISP's value filter (Event::set_filter_value, AppModel::generic_add_filter): value1 or value2
 * equal to the value, on a case-insensitive collation; a value that starts or ends with `%` is a
 * LIKE pattern instead (a `%` elsewhere is a literal character); an IPv6 address is compressed
 * first. A whole composite value (`evil.example|192.0.2.1`) is found too, which MISP does not
 * (its issue #8527, a confirmed bug it answered with separate value1/value2 filters).
 */
function valueParts(given: string): LikePart[] {
  const v = compressedIpv6(given).toLowerCase();
  return v.startsWith("%") || v.endsWith("%") ? likeParts(v) : Array.from(v, (char) => ({ char }));
}

/** MISP's compressIpv6 (inet_ntop of inet_pton) on a value that is one IPv6 address. */
function compressedIpv6(v: string): string {
  if (!v.includes(":") || !/^[0-9a-f:.]+$/i.test(v)) return v;
  const ip = validateAttributeValue("ip-src", v);
  return ip.ok ? ip.normalized : v;
}

/** A LIKE pattern as MySQL reads it: `\` takes the next character literally, a trailing `\` is itself. */
function likeParts(pattern: string): LikePart[] {
  const chars = Array.from(pattern);
  const parts: LikePart[] = [];
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    if (c === "%" || c === "_") parts.push(c);
    else parts.push({ char: c === "\\" && i + 1 < chars.length ? chars[++i]! : c });
  }
  return parts;
}

/** LIKE parts as a wildcard term on `field` (`%` alone: has a value; no wildcard: an exact term). */
function likeNode(field: string, parts: LikePart[]): Node {
  const literal = parts.map((p) => (typeof p === "string" ? "" : p.char)).join("");
  if (parts.every((p) => typeof p !== "string")) return term(field, literal);
  if (parts.every((p) => p === "%")) return { kind: "exists", field };
  const pattern = parts.map((p) => (p === "%" ? "*" : p === "_" ? "?" : /[*?\\]/.test(p.char) ? `\\${p.char}` : p.char)).join("");
  return { kind: "term", field, value: literal, wildcard: true, pattern };
}

/** The value match; `stale`: also on attribute documents an older indexer wrote. */
function valueMatch(given: string, stale: boolean): Node {
  const parts = valueParts(given);
  const current = likeNode(VALUE_FIELD, parts);
  return stale ? any([current, all([staleValueMatch(parts), { kind: "bool", must: [], should: [], mustNot: [{ kind: "exists", field: VALUE_FIELD }] }])]) : current;
}

/** OpenSearch's default index.max_regex_length. */
const MAX_REGEX_LENGTH = 1_000;

/**
 * The match on attribute documents an older indexer wrote, without `expanded.value`, while the
 * worker writes them again after an upgrade (`SearchService.hasStaleDocuments`): a regular
 * expression on `value.keyword` with a class of both cases per letter (`[eE][vV]...`), or a half
 * as a phrase of the analysed value among attributes of a composite type. Slower; gone with them.
 */
function staleValueMatch(parts: LikePart[]): Node {
  const field = "value.keyword";
  if (parts.every((p) => p === "%")) return { kind: "exists", field };
  const pattern = parts
    .map((p) => {
      if (p === "%") return ".*";
      if (p === "_") return ".";
      const [lower, upper] = [p.char.toLowerCase(), p.char.toUpperCase()];
      if (lower !== upper && Array.from(lower).length === 1 && Array.from(upper).length === 1) return `[${lower}${upper}]`;
      return /[\p{L}\p{N}]/u.test(p.char) ? p.char : `\\${p.char}`;
    })
    .join("");
  // A longer one: the value as written.
  const exact: Node = pattern.length <= MAX_REGEX_LENGTH ? { kind: "regex", field, pattern } : likeNode(field, parts);
  const literal = parts.every((p) => typeof p !== "string") ? parts.map((p) => (typeof p === "string" ? "" : p.char)).join("") : null;
  if (literal === null || literal.includes("|") || !/[\p{L}\p{N}]/u.test(literal)) return exact;
  return any([exact, all([{ kind: "phrase", field: "value", value: literal, slop: 0 }, { kind: "term", field: "type.keyword", value: "*|*", wildcard: true, pattern: "*|*" }])]);
}

/** A value list as MISP's generic_add_filter: every AND, one of the ORs, none of the NOTs. */
function listNode(list: ValueList | undefined, leaf: (v: string) => Node): Node | null {
  if (!list) return null;
  const must = list.AND.map(leaf);
  if (list.OR.length) must.push(any(list.OR.map(leaf)));
  const mustNot = list.NOT.map(leaf);
  return must.length || mustNot.length ? { kind: "bool", must, should: [], mustNot } : null;
}

const uuidIn = (field: string, uuids: Iterable<string>): Node => {
  const list = [...uuids];
  return list.length ? any(list.map((u) => term(field, u))) : term(field, NIL_UUID);
};

const bool = (v: boolean) => (v ? "true" : "false");
const tooMany = (what: string) => mispException(400, `${what} matches too many events (${MAX_EVENT_SET} for all such filters of a request): narrow it (tags, dates, eventid) or search the other controller`);

/** The event uuids a request's sets may still hold. */
interface Budget {
  left: number;
}

export interface SearchRun {
  target: SearchTarget;
  query: Node;
  includeDeleted: boolean;
  excludeWarninglisted: boolean;
  sortOrder: "asc" | "desc";
  /**
   * Events: the query is only "one of these events" (attribute filters alone), which the events'
   * own read can answer without the events search (rest-search.ts `eventsOfSet`).
   */
  eventSet?: string[];
}

/** Pages of hits of a query through services.search, from `offset`, at most `count` of them. */
export async function searchWindow(services: Services, p: Principal, run: SearchRun, offset: number, count: number): Promise<SearchHit[]> {
  if (offset + count > MAX_SEARCH_WINDOW) throw mispException(400, `page × limit must not exceed ${MAX_SEARCH_WINDOW}; narrow the filters instead`);
  // MISP's pages (offset a multiple of the limit) of up to 100 are one search; others walk pages of 100.
  const size = count <= MAX_SEARCH_PAGE_SIZE && offset % count === 0 ? count : MAX_SEARCH_PAGE_SIZE;
  const hits: SearchHit[] = [];
  for (let page = Math.floor(offset / size) + 1; (page - 1) * size < offset + count; page++) {
    const result = await services.search.searchParsed(p, run.target, run.query, {
      page, size, sortBy: "@timestamp", sortOrder: run.sortOrder, includeDeleted: run.includeDeleted, excludeWarninglisted: run.excludeWarninglisted,
      // Events are read again through their service; the documents' counts are never answered.
      ownersCounts: false,
    });
    hits.push(...result.hits);
    if (result.hits.length < size) break;
  }
  const start = offset - Math.floor(offset / size) * size;
  return hits.slice(start, start + count);
}

/** Searches one event set may take (pages, then rounds that leave out the events already found). */
const MAX_SET_ROUNDS = 200;

/**
 * The uuids of the events a query's hits belong to, within the request's budget. Attribute hits repeat
 * their events: when a page brings no new one, the walk starts over without the events found.
 */
async function eventSet(services: Services, p: Principal, budget: Budget, run: SearchRun, what: string): Promise<Set<string>> {
  const field = run.target === "events" ? "uuid" : "event_uuid";
  const pick = (h: SearchHit) => String(run.target === "events" ? h.id : h.source.event_uuid);
  const found = new Set<string>();
  let query = run.query;
  let page = 1;
  for (let round = 0; round < MAX_SET_ROUNDS; round++) {
    const hits = await searchWindow(services, p, { ...run, query }, (page - 1) * MAX_SEARCH_PAGE_SIZE, MAX_SEARCH_PAGE_SIZE);
    const before = found.size;
    for (const h of hits) found.add(pick(h));
    if (found.size > budget.left) throw tooMany(what);
    if (hits.length < MAX_SEARCH_PAGE_SIZE) {
      budget.left -= found.size;
      return found;
    }
    if (found.size === before || page * MAX_SEARCH_PAGE_SIZE >= MAX_SEARCH_WINDOW) {
      query = all([run.query, { kind: "bool", must: [], should: [], mustNot: [uuidIn(field, found)] }]);
      page = 1;
    } else page++;
  }
  throw tooMany(what);
}

const eventRun = (query: Node): SearchRun => ({ target: "events", query, includeDeleted: false, excludeWarninglisted: false, sortOrder: "desc" });

/** Whether a value match must also read attribute documents without `expanded.value` (after an upgrade). */
const staleAttributes = async (services: Services, f: RestSearchFilters) =>
  (f.value !== undefined || f.searchall !== undefined) && (await services.search.hasStaleDocuments("attributes"));

/** Filters on what attribute documents hold (their own fields, event uuid and creator id). */
function attributeLevel(f: RestSearchFilters, stale: boolean): Node[] {
  return [
    listNode(f.value, (v) => valueMatch(v, stale)),
    listNode(f.type, (v) => like("type.keyword", v)),
    listNode(f.category, (v) => like("category.keyword", v)),
    f.to_ids === undefined ? null : term("to_ids", bool(f.to_ids)),
    f.deleted === "deleted" ? term("deleted", "true") : null,
  ].filter((n): n is Node => n !== null);
}

/** Filters on what event documents hold. */
function eventLevel(f: RestSearchFilters): Node[] {
  return [
    f.eventinfo === undefined ? null : like("info.keyword", f.eventinfo),
    f.from === undefined && f.to === undefined ? null : range("date", { from: f.from, to: f.to }),
    f.last ? range("publish_timestamp", f.last) : null,
    f.publish_timestamp ? range("publish_timestamp", f.publish_timestamp) : null,
    f.event_timestamp ? range("timestamp", f.event_timestamp) : null,
    f.published === undefined ? null : term("published", bool(f.published)),
    listNode(f.event_tags, (t) => like("tags.name.keyword", t)),
  ].filter((n): n is Node => n !== null);
}

const hasEventLevel = (f: RestSearchFilters) =>
  [f.eventinfo, f.from, f.to, f.last, f.publish_timestamp, f.event_timestamp, f.published, f.event_tags].some((v) => v !== undefined);

/** eventid: numeric ids to uuids (an id the caller cannot see names no event). */
async function eventIds(services: Services, p: Principal, list: ValueList | undefined): Promise<ValueList | undefined> {
  if (!list) return undefined;
  const resolve = (refs: string[]) =>
    Promise.all(refs.map(async (r) => (UUID.test(r) ? r.toLowerCase() : /^\d{1,10}$/.test(r) ? ((await services.events.uuidOf(p, Number(r)).catch(() => null)) ?? NIL_UUID) : NIL_UUID)));
  return { OR: await resolve(list.OR), AND: await resolve(list.AND), NOT: await resolve(list.NOT) };
}

/** An organisation named by id, uuid or name, as its numeric id; a name or uuid no readable event has is -1, as MISP. */
async function orgIds(services: Services, p: Principal, list: ValueList | undefined): Promise<ValueList | undefined> {
  if (!list) return undefined;
  const resolve = (refs: string[]) =>
    Promise.all(
      refs.map(async (r) => {
        if (/^\d{1,10}$/.test(r)) return r;
        const hit = await searchWindow(services, p, eventRun(UUID.test(r) ? term("orgc.uuid", r.toLowerCase()) : term("orgc.name.keyword", r)), 0, 1);
        return hit.length ? String(hit[0]!.source.orgc_id) : "-1";
      }),
    );
  return { OR: await resolve(list.OR), AND: await resolve(list.AND), NOT: await resolve(list.NOT) };
}

/**
 * MISP's `order` ("Attribute.value desc", "timestamp", ...): a field of the controller's model and a
 * direction, ascending unless `desc` as MISP's findOrder reads it. The timestamp is the search
 * layer's own sort; the other fields, each a field of the search documents, sort every match in
 * the request (up to the controller's cap). Without `order`, newest change first.
 */
const ORDER_FIELDS = {
  events: { timestamp: null, uuid: "uuid", info: "info", date: "date", publish_timestamp: "publish_timestamp", threat_level_id: "threat_level", analysis: "analysis", distribution: "distribution" },
  attributes: { timestamp: null, uuid: "uuid", value: "value", type: "type", category: "category", object_relation: "object_relation", to_ids: "to_ids", distribution: "distribution" },
} as const;

export interface Order {
  sortOrder: "asc" | "desc";
  /** The document field to sort the matches by; null: the search's timestamp order. */
  field: string | null;
}

export function orderOf(order: string | undefined, target: "events" | "attributes"): Order {
  if (order === undefined) return { sortOrder: "desc", field: null };
  const model = target === "events" ? "Event" : "Attribute";
  const m = /^\s*(?:(\w+)\.)?(\w+)(?:\s+(asc|desc))?\s*$/i.exec(order);
  const fields: Record<string, string | null> = ORDER_FIELDS[target];
  const name = m?.[2]?.toLowerCase();
  if (!m || (m[1] !== undefined && m[1].toLowerCase() !== model.toLowerCase()) || name === undefined || !(name in fields)) {
    throw mispException(400, `order must be "<field> [asc|desc]" with a field of ${model}: ${Object.keys(fields).join(", ")}`);
  }
  return { sortOrder: m[3]?.toLowerCase() === "desc" ? "desc" : "asc", field: fields[name]! };
}

/** events/restSearch: the events query. */
export async function eventsQuery(services: Services, p: Principal, f: RestSearchFilters): Promise<SearchRun> {
  const budget: Budget = { left: MAX_EVENT_SET };
  const must = eventLevel(f);
  const ids = listNode(await eventIds(services, p, f.eventid), (u) => term("uuid", u));
  const uuids = listNode(f.uuid, (u) => term("uuid", u.toLowerCase()));
  const orgs = listNode(await orgIds(services, p, f.org), (id) => term("orgc_id", id));
  must.push(...[ids, uuids, orgs].filter((n): n is Node => n !== null));
  if (f.timestamp) must.push(range("timestamp", f.timestamp));
  const attributeRun = (query: Node): SearchRun => ({ target: "attributes", query, includeDeleted: f.deleted === "deleted" || f.deleted === "both", excludeWarninglisted: f.enforceWarninglist === true, sortOrder: "desc" });
  const stale = await staleAttributes(services, f);
  const attributes = attributeLevel(f, stale);
  const onlyAttributes = must.length === 0 && attributes.length > 0 && !f.tags && f.searchall === undefined;
  const set = attributes.length ? await eventSet(services, p, budget, attributeRun(all(attributes)), "The attribute filter") : null;
  if (set) must.push(uuidIn("uuid", set));
  if (f.tags) {
    // An event's tag, or one of its attributes'.
    const tagged = async (t: string) => any([like("tags.name.keyword", t), uuidIn("uuid", await eventSet(services, p, budget, attributeRun(like("tags.name.keyword", t)), `The tag ${t}`))]);
    must.push(await asyncList(f.tags, tagged));
  }
  if (f.searchall !== undefined) {
    const contains = `%${f.searchall.replace(/^%+|%+$/g, "")}%`;
    const inAttributes = await eventSet(services, p, budget, attributeRun(any([valueMatch(contains, stale), like("comment.keyword", contains)])), "searchall");
    must.push(any([like("info.keyword", contains), uuidIn("uuid", inAttributes)]));
  }
  return {
    target: "events", query: all(must), includeDeleted: false, excludeWarninglisted: false, sortOrder: orderOf(f.order, "events").sortOrder,
    ...(onlyAttributes && set ? { eventSet: [...set] } : {}),
  };
}

/** attributes/restSearch: the attributes query. */
export async function attributesQuery(services: Services, p: Principal, f: RestSearchFilters): Promise<SearchRun> {
  const budget: Budget = { left: MAX_EVENT_SET };
  const stale = await staleAttributes(services, f);
  const must = attributeLevel(f, stale);
  const ids = listNode(await eventIds(services, p, f.eventid), (u) => term("event_uuid", u));
  const uuids = listNode(f.uuid, (u) => any([term("uuid", u.toLowerCase()), term("event_uuid", u.toLowerCase())]));
  const orgs = listNode(await orgIds(services, p, f.org), (id) => term("event_orgc_id", id));
  must.push(...[ids, uuids, orgs].filter((n): n is Node => n !== null));
  if (f.timestamp) must.push(range("timestamp", f.timestamp));
  if (hasEventLevel(f)) must.push(uuidIn("event_uuid", await eventSet(services, p, budget, eventRun(all(eventLevel(f))), "The event filter")));
  if (f.tags) {
    // Its own tag, or its event's.
    const tagged = async (t: string) => any([like("tags.name.keyword", t), uuidIn("event_uuid", await eventSet(services, p, budget, eventRun(like("tags.name.keyword", t)), `The tag ${t}`))]);
    must.push(await asyncList(f.tags, tagged));
  }
  if (f.searchall !== undefined) {
    const contains = `%${f.searchall.replace(/^%+|%+$/g, "")}%`;
    must.push(any([valueMatch(contains, stale), like("comment.keyword", contains)]));
  }
  return { target: "attributes", query: all(must), includeDeleted: f.deleted === "deleted" || f.deleted === "both", excludeWarninglisted: f.enforceWarninglist === true, sortOrder: orderOf(f.order, "attributes").sortOrder };
}

/** listNode with leaves that need a search of their own (one per distinct term). */
async function asyncList(list: ValueList, leaf: (v: string) => Promise<Node>): Promise<Node> {
  const nodes = new Map<string, Node>();
  for (const v of new Set([...list.OR, ...list.AND, ...list.NOT])) nodes.set(v, await leaf(v));
  return listNode(list, (v) => nodes.get(v)!) ?? { kind: "matchAll" };
}

