import { z } from "zod";
import type { Principal } from "../../src/auth/principal.ts";
import { stixBundle } from "../../src/modules/exports/index.ts";
import { errors, fromZodError } from "../../src/platform/errors.ts";
import type { EventHead } from "../../src/modules/events/index.ts";
import type { SearchHit } from "../../src/search/search-index.ts";
import type { Services } from "../../src/services.ts";
import { mispException } from "./misp-errors.ts";
import { defineMispRoute } from "./misp-route.ts";
import { MAX_REST_SEARCH_RESULTS, RETURN_FORMATS, restSearchContract, withoutNulls, type RestSearchFilters, type ReturnFormat } from "./rest-search-contract.ts";
import { eventAttributes, loadAttributes, loadEvents, toCsv, toText, type ReadEvents } from "./rest-search-output.ts";
import { attributesQuery, eventsQuery, orderOf, searchWindow, taggedWithAny, type LikePart, type SearchRun } from "./rest-search-query.ts";

type Controller = "events" | "attributes";
const MEDIA: Record<ReturnFormat, string> = { json: "application/json", csv: "text/csv", text: "text/plain", stix2: "application/json" };

/** The filters from the body and PyMISP's `/key:value` segments (the body wins), checked by the one contract. */
function filtersOf(query: Record<string, unknown>, body: unknown): RestSearchFilters & { returnFormat: ReturnFormat } {
  if (body !== undefined && (body === null || typeof body !== "object" || Array.isArray(body))) throw errors.invalidField(["body"], "must be a JSON object of filters");
  const parsed = restSearchContract.safeParse({ ...withoutNulls(query), ...withoutNulls(body) });
  if (!parsed.success) throw fromZodError(parsed.error, "body");
  // MISP's `download` is json as a file.
  const format = parsed.data.returnFormat === undefined || parsed.data.returnFormat === "download" ? "json" : parsed.data.returnFormat;
  if (!(RETURN_FORMATS as readonly string[]).includes(format)) throw mispException(404, "Invalid output format.");
  return { ...parsed.data, returnFormat: format as ReturnFormat };
}

/** The page asked for (limit, page), or every hit up to the controller's cap (MISP's unlimited answer). */
async function hitsOf(services: Services, p: Principal, run: SearchRun, f: RestSearchFilters, controller: Controller): Promise<SearchHit[]> {
  const cap = MAX_REST_SEARCH_RESULTS[controller];
  if (f.limit && f.limit > cap) throw mispException(400, `limit must not exceed ${cap} for ${controller}/restSearch`);
  const order = orderOf(f.order, controller);
  const offset = f.limit ? ((f.page ?? 1) - 1) * f.limit : 0;
  if (f.limit && order.field === null) return searchWindow(services, p, run, offset, f.limit);
  const hits = await searchWindow(services, p, run, 0, cap + 1);
  if (hits.length > cap) {
    throw mispException(400, order.field === null ? `More than ${cap} ${controller} match: ask for them page by page with limit and page` : `More than ${cap} ${controller} match: order by ${f.order} sorts every match, narrow the filters`);
  }
  if (order.field !== null) sortHits(hits, order.field, order.sortOrder);
  return f.limit ? hits.slice(offset, offset + f.limit) : hits;
}

/** Sorts by a document field as MISP's case-insensitive collation does (numbers as numbers); ties keep the search's order. */
function sortHits(hits: SearchHit[], field: string, direction: "asc" | "desc"): void {
  const key = (h: SearchHit) => {
    const v = h.source[field];
    return typeof v === "number" || typeof v === "boolean" ? Number(v) : v === null || v === undefined ? "" : String(v).toLowerCase();
  };
  const sign = direction === "asc" ? 1 : -1;
  hits.sort((a, b) => {
    const [x, y] = [key(a), key(b)];
    return x < y ? -sign : x > y ? sign : 0;
  });
}

/** STIX 2.1 from the search documents themselves (the exports area's bundle writer): events with their attributes (but those carrying a blocked tag), or attributes. */
async function stix(services: Services, p: Principal, controller: Controller, hits: SearchHit[], blocked: LikePart[][]): Promise<string> {
  let inputs = hits;
  if (controller === "events" && hits.length) {
    const tagged = taggedWithAny(blocked);
    const ofEvents = { kind: "bool" as const, must: [], should: hits.map((h) => ({ kind: "term" as const, field: "event_uuid", value: h.id, wildcard: false as const })), mustNot: [] };
    const query = tagged ? { kind: "bool" as const, must: [ofEvents], should: [], mustNot: [tagged] } : ofEvents;
    inputs = [...hits, ...(await searchWindow(services, p, { target: "attributes", query, includeDeleted: false, excludeWarninglisted: false, sortOrder: "desc" }, 0, MAX_REST_SEARCH_RESULTS.attributes))];
  }
  const loadEvent = async (uuid: string) => {
    const [hit] = await searchWindow(services, p, { target: "events", query: { kind: "term", field: "uuid", value: uuid, wildcard: false }, includeDeleted: false, excludeWarninglisted: false, sortOrder: "desc" }, 0, 1);
    return hit?.source ?? null;
  };
  let out = "";
  for await (const chunk of stixBundle(inputs, { loadEvent })) out += chunk;
  return out;
}

/**
 * events/restSearch with filters on attributes only, when its answer is every event they found (no
 * later page, no order by a document field): those events read through the events service (which
 * decides who may read them), live ones, in the events search's order (timestamp, then uuid),
 * without that search. Full events are exported from the read that orders them (the set is the
 * answer; a soft-deleted one is dropped). Null: the answer is the events search's.
 */
async function eventsOfSet(services: Services, p: Principal, run: SearchRun, f: RestSearchFilters): Promise<ReadEvents | null> {
  const set = run.eventSet;
  if (!set || orderOf(f.order, "events").field !== null || (f.limit && (f.page ?? 1) !== 1) || set.length > (f.limit || MAX_REST_SEARCH_RESULTS.events)) return null;
  // Oldest first is newest first reversed, ties included (the search backends' order).
  const sign = run.sortOrder === "asc" ? -1 : 1;
  const live = <E extends EventHead>(views: E[]) => views.filter((e) => !e.deleted).sort((a, b) => sign * (b.timestamp - a.timestamp || (a.uuid < b.uuid ? -1 : a.uuid > b.uuid ? 1 : 0)));
  if (f.metadata) return { views: live(await services.events.getMany(p, set, { badges: false, attributeCount: "all" })), exported: null };
  const { views, exported } = await services.events.readMispMany(p, set, { ids: true });
  return { views: live(views), exported };
}

async function restSearch(services: Services, p: Principal, controller: Controller, f: RestSearchFilters & { returnFormat: ReturnFormat }): Promise<{ body: unknown; count: number }> {
  return services.search.limited(p, async () => {
    const run = controller === "events" ? await eventsQuery(services, p, f) : await attributesQuery(services, p, f);
    const read = controller === "events" && f.returnFormat !== "stix2" ? await eventsOfSet(services, p, run, f) : null;
    const hits = read ? [] : await hitsOf(services, p, run, f, controller);
    if (f.returnFormat === "stix2") return { body: await stix(services, p, controller, hits, run.blockedTags ?? []), count: hits.length };
    if (controller === "events") {
      const blocked = run.blockedTags ?? [];
      const events = read ? await loadEvents(services, p, read.views.map((e) => e.uuid), f, { read, blocked }) : await loadEvents(services, p, hits.map((h) => h.id), f, { blocked });
      if (f.returnFormat === "json") return { body: { response: events }, count: events.length };
      const records = eventAttributes(events);
      return { body: f.returnFormat === "csv" ? toCsv(records, f) : toText(records), count: records.length };
    }
    const records = await loadAttributes(services, p, hits, f, f.returnFormat === "csv");
    if (f.returnFormat === "json") return { body: { response: { Attribute: records.map((r) => r.json) } }, count: records.length };
    return { body: f.returnFormat === "csv" ? toCsv(records, f) : toText(records), count: records.length };
  });
}

const FILTERS_DOC = "value, value1, value2, type, category, comment, eventinfo, org, tags (or tag) and event_tags (OR/AND/NOT, !x, a&&b; MISP's LIKE rules), eventid, uuid, searchall, from, to, last, timestamp, event_timestamp, publish_timestamp, published, to_ids, deleted, enforceWarninglist, includeEventUuid, includeEventTags, includeContext, includeCorrelations, includeSightings, metadata, headerless, requested_attributes, limit, page, order";

export const mispRestSearchRoutes = (["events", "attributes"] as const).flatMap((controller) =>
  (["POST", "GET"] as const).map((method) =>
    defineMispRoute({
      method, path: `/misp/${controller}/restSearch`, operationId: `misp${controller === "events" ? "Events" : "Attributes"}RestSearch${method === "GET" ? "ByPath" : ""}`,
      summary: `MISP ${controller}/restSearch: ${controller === "events" ? "events ({\"response\": [{\"Event\": ...}]})" : "attributes ({\"response\": {\"Attribute\": [...]}})"} matching MISP's filters (${FILTERS_DOC}), run on the same search indices and access rules as the native search; returnFormat json, csv, text or stix2; without limit at most ${MAX_REST_SEARCH_RESULTS[controller]} results (more: MISP's 400, ask page by page)`,
      scopes: controller === "events" ? ["events:read"] : ["attributes:read", "events:read"], status: 200, query: z.record(z.string(), z.unknown()), ...(method === "POST" ? { body: restSearchContract.optional() } : {}),
      download: { mediaTypes: [...new Set(Object.values(MEDIA))] },
      misp: { notFound: "Invalid input" },
      handler: async ({ principal, query, request, reply, services }) => {
        if (method === "GET" && Object.keys(withoutNulls(query)).length === 0) {
          throw mispException(400, "Restsearch queries using GET and no parameters are not allowed. If you have passed parameters via a JSON body, make sure you use POST requests.");
        }
        // The raw body: the contract runs once, on the body and the path's filters together.
        const f = filtersOf(query, request.body);
        const { body, count } = await restSearch(services, principal!, controller, f);
        void reply.header("X-Result-Count", String(count)).type(MEDIA[f.returnFormat]);
        return body;
      },
    }),
  ),
);
