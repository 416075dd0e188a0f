import type { Principal } from "../../src/auth/principal.ts";
import { validateAttributeValue } from "../../src/modules/attributes/index.ts";
import { MAX_SEARCH_PAGE_SIZE, MAX_SEARCH_WINDOW, type SearchTarget } from "../../src/modules/search/index.ts";
import type { LuceneNode } from "../../src/search/lucene/ast.ts";
import type { SearchHit } from "../../src/search/search-index.ts";
import type { Services } from "../../src/services.ts";
import { mispException } from "./misp-errors.ts";
import { tagNameOf } from "./tags.ts";
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
/** No document (every index's documents have a uuid, none the nil one). */
const NOTHING = term("uuid", NIL_UUID);
const all = (must: Node[]): Node => (must.length === 1 ? must[0]! : must.length ? { kind: "bool", must, should: [], mustNot: [] } : { kind: "matchAll" });
const any = (should: Node[]): Node => (should.length === 1 ? should[0]! : { kind: "bool", must: [], should, mustNot: [] });
const range = (field: string, r: TimeRange | { from?: string; to?: string }): Node => ({
  kind: "range", field, lower: r.from === undefined ? null : String(r.from), upper: r.to === undefined ? null : String(r.to), includeLower: r.from !== undefined, includeUpper: r.to !== undefined,
});

/**
 * The attribute documents' field for MISP's value match (`src/search/fields.ts`): each attribute's
 * value, value1 and value2, lower-cased, so that one exact term finds a value whatever its case
 * and whichever half of a composite it is (one posting list on either backend).
 */
const VALUE_FIELD = "expanded.value";

/** A LIKE pattern's parts: `%` any text, `_` one character, or a literal character. */
export type LikePart = "%" | "_" | { char: string };

/**
 * A term of a filter as MISP's generic_add_filter (app/Model/AppModel.php) reads it: a LIKE pattern
 * when it starts or ends with `%` (then `%` and `_` are wildcards), otherwise an exact value (a `%`
 * or `_` inside is a literal character).
 */
function filterParts(given: string): LikePart[] {
  return given.startsWith("%") || given.endsWith("%") ? likeParts(given) : Array.from(given, (char) => ({ char }));
}

/**
 * MISP's value filter (Event::set_filter_value, AppModel::generic_add_filter): value1 or value2
 * equal to the value, on a case-insensitive collation; a value that starts or ends with `%` is a
 * LIKE pattern instead (a `%` elsewhere is a literal character); an IPv6 address is compressed
 * first. A whole composite value (`evil.example|192.0.2.1`) is found too, which MISP does not
 * (its issue #8527, a confirmed bug it answered with separate value1/value2 filters).
 */
function valueParts(given: string): LikePart[] {
  return filterParts(compressedIpv6(given).toLowerCase());
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

/** The longest pattern OpenSearch takes (Lucene refuses a longer automaton: "input automaton is too large"). */
const MAX_PATTERN = 1_000;

/** LIKE parts as a wildcard term on `field` (`%` alone: has a value; no wildcard: an exact term). */
function likeNode(field: string, parts: LikePart[]): Node {
  const literal = parts.map((p) => (typeof p === "string" ? "" : p.char)).join("");
  if (parts.every((p) => typeof p !== "string")) return term(field, literal);
  if (parts.every((p) => p === "%")) return { kind: "exists", field };
  if (parts.length > MAX_PATTERN) throw mispException(400, `A LIKE pattern (a term that starts or ends with %, or a tag) may hold at most ${MAX_PATTERN} characters`);
  const pattern = parts.map((p) => (p === "%" ? "*" : p === "_" ? "?" : /[*?\\]/.test(p.char) ? `\\${p.char}` : p.char)).join("");
  return { kind: "term", field, value: literal, wildcard: true, pattern };
}

/**
 * Whether a name matches LIKE parts, with its case (MISP's tags.name is utf8mb3_bin): the
 * wildcard walk that backs up to the last `%` only, O(name × pattern) at worst (a regular
 * expression of many `%` backtracks exponentially on a hostile pattern).
 */
export function likeMatches(parts: LikePart[], name: string): boolean {
  const chars = Array.from(name);
  let [i, j, star, mark] = [0, 0, -1, 0];
  while (i < chars.length) {
    const p = parts[j];
    if (p !== undefined && p !== "%" && (p === "_" || p.char === chars[i])) {
      i++;
      j++;
    } else if (p === "%") {
      star = j++;
      mark = i;
    } else if (star >= 0) {
      j = star + 1;
      i = ++mark;
    } else return false;
  }
  while (parts[j] === "%") j++;
  return j === parts.length;
}

/** The attributes carrying one of these tags themselves, as a search node (STIX answers, read from the search documents). */
export const taggedWithAny = (blocked: LikePart[][]): Node | null => (blocked.length ? any(blocked.map((parts) => likeNode(TAG_FIELD, parts))) : null);

/** The value match of LIKE parts (lower-cased); `stale`: also on attribute documents an older indexer wrote. */
function valueMatch(parts: LikePart[], stale: boolean): Node {
  const current = likeNode(VALUE_FIELD, parts);
  return stale ? any([current, all([staleValueMatch(parts), { kind: "bool", must: [], should: [], mustNot: [{ kind: "exists", field: VALUE_FIELD }] }])]) : current;
}

/** OpenSearch's default index.max_regex_length. */
const MAX_REGEX_LENGTH = 1_000;

/**
 * LIKE parts on a keyword field as a column of a case-insensitive collation compares them: a
 * regular expression with a class of both cases per letter (`[eE][vV]...`). Without a letter that
 * has two cases, or longer than OpenSearch takes, the parts as written.
 */
function caseFree(field: string, parts: LikePart[]): Node {
  if (parts.every((p) => p === "%")) return { kind: "exists", field };
  let cased = false;
  const pattern = parts
    .map((p) => {
      if (p === "%") return ".*";
      if (p === "_") return ".";
      const [lower, upper] = [p.char.toLowerCase(), p.char.toUpperCase()];
      if (lower !== upper && Array.from(lower).length === 1 && Array.from(upper).length === 1) {
        cased = true;
        return `[${lower}${upper}]`;
      }
      return /[\p{L}\p{N}]/u.test(p.char) ? p.char : `\\${p.char}`;
    })
    .join("");
  return cased && pattern.length <= MAX_REGEX_LENGTH ? { kind: "regex", field, pattern } : likeNode(field, parts);
}

/**
 * The match on attribute documents an older indexer wrote, without `expanded.value`, while the
 * worker writes them again after an upgrade (`SearchService.hasStaleDocuments`): `value.keyword`
 * ignoring case, or a half as a phrase of the analysed value among attributes of a composite type.
 * Slower; gone with them.
 */
function staleValueMatch(parts: LikePart[]): Node {
  const exact = caseFree("value.keyword", parts);
  const literal = parts.every((p) => typeof p !== "string") ? parts.map((p) => (typeof p === "string" ? "" : p.char)).join("") : null;
  if (literal === null || literal.includes("|") || !/[\p{L}\p{N}]/u.test(literal)) return exact;
  return any([exact, all([{ kind: "phrase", field: "value", value: literal, slop: 0 }, COMPOSITE])]);
}

/** Attributes of a composite type (`domain|ip`, `filename|md5`, ...: the types whose name holds `|`). */
const COMPOSITE: Node = { kind: "term", field: "type.keyword", value: "*|*", wildcard: true, pattern: "*|*" };
const not = (n: Node): Node => ({ kind: "bool", must: [], should: [], mustNot: [n] });

/**
 * MISP's value1 / value2 filters (attributes/restSearch: MispAttribute::buildFilterConditions,
 * set_filter_simple_attribute on Attribute.value1 / value2, case-insensitive). Of an attribute of
 * another type, value1 is its value and value2 empty; of a composite one, the value is
 * `value1|value2`: the half is the value's start before a `|` (value1) or its end after one
 * (value2) ignoring case, and among its halves (`expanded.value`), which settles a value with more
 * than one `|`.
 */
function halfMatch(half: 1 | 2, given: string, stale: boolean): Node {
  const parts = filterParts(given);
  const lower = filterParts(given.toLowerCase());
  const pipe = { char: "|" };
  // A longer half is found among the halves alone, either of them.
  const side = parts.length + 2 > MAX_PATTERN ? [] : [caseFree("value.keyword", half === 1 ? [...parts, pipe, "%"] : ["%", pipe, ...parts])];
  const ofComposite = all([COMPOSITE, valueMatch(lower, stale), ...side]);
  // value2 of another type is empty: only a pattern of nothing but `%` matches it.
  if (half === 2) return parts.every((p) => p === "%") ? any([ofComposite, not(COMPOSITE)]) : ofComposite;
  return any([ofComposite, all([not(COMPOSITE), valueMatch(lower, stale)])]);
}

/**
 * MISP's set_filter_type: when email-src or email-dst is asked for (or left out) and email is not,
 * email is too.
 */
function withEmail(list: ValueList | undefined): ValueList | undefined {
  if (!list) return undefined;
  const add = (xs: string[]) => (xs.some((t) => t === "email-src" || t === "email-dst") && !xs.includes("email") ? [...xs, "email"] : xs);
  return { OR: add(list.OR), AND: list.AND, NOT: add(list.NOT) };
}

/** A value list as MISP's generic_add_filter: every AND, one of the ORs, none of the NOTs. */
function listNode(list: ValueList | undefined, leaf: (v: string) => Node, notLeaf = leaf): Node | null {
  if (!list) return null;
  const must = list.AND.map(leaf);
  if (list.OR.length) must.push(any(list.OR.map(leaf)));
  const mustNot = list.NOT.map(notLeaf);
  return must.length || mustNot.length ? { kind: "bool", must, should: [], mustNot } : null;
}

const uuidIn = (field: string, uuids: Iterable<string>): Node => {
  const list = [...uuids];
  return list.length ? any(list.map((u) => term(field, u))) : term(field, NIL_UUID);
};

/**
 * A match, or a document of one of these events: the match alone when no event was found, since
 * the PostgreSQL backend answers `tag OR uuid:<nil>` from every candidate document's JSON instead
 * of from the tag's postings (a page of 50 events with a tag and a date range: 26.8 ms instead of
 * 8.9 + 2.9 at 100,000 attributes).
 */
const orOfEvents = (match: Node[], field: string, uuids: Set<string>): Node => any(uuids.size ? [...match, uuidIn(field, uuids)] : match);

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
  /**
   * Events: the tags (LIKE parts) whose attributes the answer leaves out: MISP's events/restSearch
   * hands its `tags` NOT to fetchEvent as blockedAttributeTags, which drops from each event the
   * attributes carrying one of them themselves (its objects' included), whatever the event carries.
   */
  blockedTags?: LikePart[][];
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
  [f.value, f.value1, f.value2, f.searchall].some((v) => v !== undefined) && (await services.search.hasStaleDocuments("attributes"));

/**
 * Filters on what attribute documents hold (their own fields, event uuid and creator id), each
 * column compared as MISP's schema collates it (db_schema.json): type, value1, value2 and comment
 * ignoring case (utf8mb3_unicode_ci), category exactly (utf8mb3_bin).
 */
function attributeLevel(f: RestSearchFilters, stale: boolean): Node[] {
  return [
    listNode(f.value, (v) => valueMatch(valueParts(v), stale)),
    listNode(f.value1, (v) => halfMatch(1, v, stale)),
    listNode(f.value2, (v) => halfMatch(2, v, stale)),
    listNode(withEmail(f.type), (v) => caseFree("type.keyword", filterParts(v))),
    listNode(f.category, (v) => likeNode("category.keyword", filterParts(v))),
    listNode(f.comment, (v) => caseFree("comment.keyword", filterParts(v))),
    f.to_ids === undefined ? null : term("to_ids", bool(f.to_ids)),
    f.deleted === "deleted" ? term("deleted", "true") : null,
  ].filter((n): n is Node => n !== null);
}

/** Filters on what event documents hold (the title exactly, as MISP's events.info is utf8mb3_bin). */
function eventLevel(f: RestSearchFilters, tags: TagPatterns): Node[] {
  return [
    listNode(f.eventinfo, (v) => likeNode("info.keyword", filterParts(v))),
    f.from === undefined && f.to === undefined ? null : range("date", { from: f.from, to: f.to }),
    f.last ? range("publish_timestamp", f.last) : null,
    f.publish_timestamp ? range("publish_timestamp", f.publish_timestamp) : null,
    f.event_timestamp ? range("timestamp", f.event_timestamp) : null,
    f.published === undefined ? null : term("published", bool(f.published)),
    listNode(f.event_tags, (t) => tagMatch(tags, t)),
  ].filter((n): n is Node => n !== null);
}

const hasEventLevel = (f: RestSearchFilters) =>
  [f.eventinfo, f.from, f.to, f.last, f.publish_timestamp, f.event_timestamp, f.published, f.event_tags].some((v) => v !== undefined);

/**
 * Tag terms as MISP's Tag::findTagIdsByTagNames reads them: a number is a tag's id, anything else
 * a LIKE pattern on the name (`%` and `_` wherever they are), which MISP's tags.name
 * (utf8mb3_bin) compares with its case. Null: no tag has that id.
 */
type TagPatterns = Map<string, LikePart[] | null>;
const TAG_FIELD = "tags.name.keyword";
const MAX_ID = 2_147_483_647;

async function tagPatterns(services: Services, p: Principal, lists: (ValueList | undefined)[]): Promise<TagPatterns> {
  const out: TagPatterns = new Map();
  for (const ref of new Set(lists.flatMap((l) => (l ? [...l.OR, ...l.AND, ...l.NOT] : [])))) {
    if (!/^\d+$/.test(ref)) out.set(ref, likeParts(ref));
    else {
      const name = Number(ref) <= MAX_ID ? await tagNameOf(services, p, ref) : null;
      out.set(ref, name === null ? null : Array.from(name, (char) => ({ char })));
    }
  }
  return out;
}

const tagMatch = (tags: TagPatterns, ref: string): Node => {
  const parts = tags.get(ref);
  return parts ? likeNode(TAG_FIELD, parts) : NOTHING;
};

/**
 * MISP's searchall (restSearchFilterMassage's `wildcard`, Event::set_filter_wildcard and
 * set_filter_wildcard_attributes): one LIKE pattern as given, `%` for a substring, on the event's
 * title, value1, value2 and comment, and the tags of the event and of its attributes. Empty, or
 * nothing but `%` (every event): no filter.
 */
function wildcardOf(f: RestSearchFilters): { parts: LikePart[]; lower: LikePart[] } | null {
  const w = f.searchall;
  if (w === undefined || /^%*$/.test(w)) return null;
  return { parts: likeParts(w), lower: likeParts(w.toLowerCase()) };
}

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
  if (!m || (m[1] !== undefined && m[1].toLowerCase() !== model.toLowerCase()) || name === undefined || !Object.hasOwn(fields, name)) {
    throw mispException(400, `order must be "<field> [asc|desc]" with a field of ${model}: ${Object.keys(fields).join(", ")}`);
  }
  return { sortOrder: m[3]?.toLowerCase() === "desc" ? "desc" : "asc", field: fields[name]! };
}

/** MISP's uuid on events (Event::set_filter_uuid): the event's uuid, or the uuid of one of its attributes. */
async function eventsByUuid(services: Services, p: Principal, list: ValueList | undefined, run: (q: Node) => SearchRun): Promise<Node | null> {
  if (!list) return null;
  const asked = [...new Set([...list.OR, ...list.AND, ...list.NOT].map((u) => u.toLowerCase()))];
  const hits = asked.length ? await searchWindow(services, p, run(any(asked.map((u) => term("uuid", u)))), 0, asked.length) : [];
  const holder = new Map(hits.map((h) => [h.id, String(h.source.event_uuid)]));
  return listNode(list, (u) => {
    const event = holder.get(u.toLowerCase());
    return event ? any([term("uuid", u.toLowerCase()), term("uuid", event)]) : term("uuid", u.toLowerCase());
  });
}

/** events/restSearch: the events query. */
export async function eventsQuery(services: Services, p: Principal, f: RestSearchFilters): Promise<SearchRun> {
  const budget: Budget = { left: MAX_EVENT_SET };
  const tagList = f.tags ?? f.tag;
  const tags = await tagPatterns(services, p, [tagList, f.event_tags]);
  const must = eventLevel(f, tags);
  const ids = listNode(await eventIds(services, p, f.eventid), (u) => term("uuid", u));
  const attributeRun = (query: Node): SearchRun => ({ target: "attributes", query, includeDeleted: f.deleted === "deleted" || f.deleted === "both", excludeWarninglisted: f.enforceWarninglist === true, sortOrder: "desc" });
  const uuids = await eventsByUuid(services, p, f.uuid, attributeRun);
  const orgs = listNode(await orgIds(services, p, f.org), (id) => term("orgc_id", id));
  must.push(...[ids, uuids, orgs].filter((n): n is Node => n !== null));
  if (f.timestamp) must.push(range("timestamp", f.timestamp));
  const stale = await staleAttributes(services, f);
  const attributes = attributeLevel(f, stale);
  const wildcard = wildcardOf(f);
  const onlyAttributes = must.length === 0 && attributes.length > 0 && !tagList && !wildcard;
  const set = attributes.length ? await eventSet(services, p, budget, attributeRun(all(attributes)), "The attribute filter") : null;
  if (set) must.push(uuidIn("uuid", set));
  if (tagList) {
    // An event's tag, or one of its attributes'; NOT: the event's own (MISP's Event scope of set_filter_tags).
    const tagged = async (t: string) => orOfEvents([tagMatch(tags, t)], "uuid", await eventSet(services, p, budget, attributeRun(tagMatch(tags, t)), `The tag ${t}`));
    must.push(await asyncList(tagList, tagged, (t) => tagMatch(tags, t)));
  }
  if (wildcard) {
    const inAttributes = await eventSet(services, p, budget, attributeRun(any([valueMatch(wildcard.lower, stale), caseFree("comment.keyword", wildcard.parts), likeNode(TAG_FIELD, wildcard.parts)])), "searchall");
    must.push(orOfEvents([likeNode("info.keyword", wildcard.parts), likeNode(TAG_FIELD, wildcard.parts)], "uuid", inAttributes));
  }
  return {
    target: "events", query: all(must), includeDeleted: false, excludeWarninglisted: false, sortOrder: orderOf(f.order, "events").sortOrder,
    ...(onlyAttributes && set ? { eventSet: [...set] } : {}),
    // A NOT term that names no tag (an unknown id) blocks nothing, as MISP's -1.
    blockedTags: (tagList?.NOT ?? []).map((t) => tags.get(t)).filter((parts): parts is LikePart[] => Boolean(parts)),
  };
}

/** attributes/restSearch: the attributes query. */
export async function attributesQuery(services: Services, p: Principal, f: RestSearchFilters): Promise<SearchRun> {
  const budget: Budget = { left: MAX_EVENT_SET };
  const stale = await staleAttributes(services, f);
  const tagList = f.tags ?? f.tag;
  const tags = await tagPatterns(services, p, [tagList, f.event_tags]);
  const must = attributeLevel(f, stale);
  const ids = listNode(await eventIds(services, p, f.eventid), (u) => term("event_uuid", u));
  const uuids = listNode(f.uuid, (u) => any([term("uuid", u.toLowerCase()), term("event_uuid", u.toLowerCase())]));
  const orgs = listNode(await orgIds(services, p, f.org), (id) => term("event_orgc_id", id));
  must.push(...[ids, uuids, orgs].filter((n): n is Node => n !== null));
  if (f.timestamp) must.push(range("timestamp", f.timestamp));
  if (hasEventLevel(f)) must.push(uuidIn("event_uuid", await eventSet(services, p, budget, eventRun(all(eventLevel(f, tags))), "The event filter")));
  if (tagList) {
    // Its own tag, or its event's; NOT: neither (MISP's Attribute, then Event, scope of set_filter_tags).
    const tagged = async (t: string) => orOfEvents([tagMatch(tags, t)], "event_uuid", await eventSet(services, p, budget, eventRun(tagMatch(tags, t)), `The tag ${t}`));
    must.push(await asyncList(tagList, tagged));
  }
  const wildcard = wildcardOf(f);
  if (wildcard) {
    const inEvents = await eventSet(services, p, budget, eventRun(any([likeNode("info.keyword", wildcard.parts), likeNode(TAG_FIELD, wildcard.parts)])), "searchall");
    must.push(orOfEvents([valueMatch(wildcard.lower, stale), caseFree("comment.keyword", wildcard.parts), likeNode(TAG_FIELD, wildcard.parts)], "event_uuid", inEvents));
  }
  return { target: "attributes", query: all(must), includeDeleted: f.deleted === "deleted" || f.deleted === "both", excludeWarninglisted: f.enforceWarninglist === true, sortOrder: orderOf(f.order, "attributes").sortOrder };
}

/** listNode with leaves that need a search of their own (one per distinct term; NOT's own leaf when given). */
async function asyncList(list: ValueList, leaf: (v: string) => Promise<Node>, notLeaf?: (v: string) => Node): Promise<Node> {
  const nodes = new Map<string, Node>();
  for (const v of new Set([...list.OR, ...list.AND, ...(notLeaf ? [] : list.NOT)])) nodes.set(v, await leaf(v));
  const built = (v: string) => nodes.get(v)!;
  return listNode(list, built, notLeaf ?? built) ?? { kind: "matchAll" };
}

