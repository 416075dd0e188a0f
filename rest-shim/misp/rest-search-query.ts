import type { Principal } from "../../src/auth/principal.ts";
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
 * MISP matches a value against value1 and value2, ignoring case: an exact value, or one half of a
 * composite (`evil.example|192.0.2.1` is found by either). The halves are found as a phrase of the analysed
 * value among attributes of a composite type (their names hold `|`), not by a leading wildcard on
 * every value.
 */
function valueMatch(v: string): Node {
  const exact = likeAnyCase("value.keyword", v);
  if (v.includes("%") || v.includes("|") || !/[\p{L}\p{N}]/u.test(v)) return exact;
  // A half: the phrase is of the analysed value, lower-cased as MISP's comparison.
  const half = all([{ kind: "phrase", field: "value", value: v, slop: 0 }, { kind: "term", field: "type.keyword", value: "*|*", wildcard: true, pattern: "*|*" }]);
  return any([exact, half]);
}

/** OpenSearch's default index.max_regex_length: a longer value is matched as written. */
const MAX_ANY_CASE_PATTERN = 1_000;

/**
 * `like`, ignoring case as MISP's value columns do (utf8_unicode_ci): a value with letters becomes
 * a regular expression on the exact field, each letter a class of its two cases (`[eE][vV]...`),
 * which both search backends match against the term dictionary.
 */
function likeAnyCase(field: string, value: string): Node {
  if (/^%+$/.test(value)) return { kind: "exists", field };
  let cased = false;
  const pattern = Array.from(value.replace(/%+/g, "%"), (c) => {
    if (c === "%") return ".*";
    const [lower, upper] = [c.toLowerCase(), c.toUpperCase()];
    if (lower !== upper && Array.from(lower).length === 1 && Array.from(upper).length === 1) {
      cased = true;
      return `[${lower}${upper}]`;
    }
    return /[\p{L}\p{N}]/u.test(c) ? c : `\\${c}`;
  }).join("");
  return cased && pattern.length <= MAX_ANY_CASE_PATTERN ? { kind: "regex", field, pattern } : like(field, value);
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

/** Filters on what attribute documents hold (their own fields, event uuid and creator id). */
function attributeLevel(f: RestSearchFilters): Node[] {
  return [
    listNode(f.value, valueMatch),
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
  const attributes = attributeLevel(f);
  if (attributes.length) must.push(uuidIn("uuid", await eventSet(services, p, budget, attributeRun(all(attributes)), "The attribute filter")));
  if (f.tags) {
    // An event's tag, or one of its attributes'.
    const tagged = async (t: string) => any([like("tags.name.keyword", t), uuidIn("uuid", await eventSet(services, p, budget, attributeRun(like("tags.name.keyword", t)), `The tag ${t}`))]);
    must.push(await asyncList(f.tags, tagged));
  }
  if (f.searchall !== undefined) {
    const contains = `%${f.searchall.replace(/^%+|%+$/g, "")}%`;
    const inAttributes = await eventSet(services, p, budget, attributeRun(any([likeAnyCase("value.keyword", contains), like("comment.keyword", contains)])), "searchall");
    must.push(any([like("info.keyword", contains), uuidIn("uuid", inAttributes)]));
  }
  return { target: "events", query: all(must), includeDeleted: false, excludeWarninglisted: false, sortOrder: orderOf(f.order, "events").sortOrder };
}

/** attributes/restSearch: the attributes query. */
export async function attributesQuery(services: Services, p: Principal, f: RestSearchFilters): Promise<SearchRun> {
  const budget: Budget = { left: MAX_EVENT_SET };
  const must = attributeLevel(f);
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
    must.push(any([likeAnyCase("value.keyword", contains), like("comment.keyword", contains)]));
  }
  return { target: "attributes", query: all(must), includeDeleted: f.deleted === "deleted" || f.deleted === "both", excludeWarninglisted: f.enforceWarninglist === true, sortOrder: orderOf(f.order, "attributes").sortOrder };
}

/** listNode with leaves that need a search of their own (one per distinct term). */
async function asyncList(list: ValueList, leaf: (v: string) => Promise<Node>): Promise<Node> {
  const nodes = new Map<string, Node>();
  for (const v of new Set([...list.OR, ...list.AND, ...list.NOT])) nodes.set(v, await leaf(v));
  return listNode(list, (v) => nodes.get(v)!) ?? { kind: "matchAll" };
}

