import { hasScope, type Principal } from "../../src/auth/principal.ts";
import type { EventHead, EventView } from "../../src/modules/events/index.ts";
import type { SearchHit } from "../../src/search/search-index.ts";
import type { Services } from "../../src/services.ts";
import { mispAttribute, mispEventIndexItem, mispTagOfView } from "./misp-shapes.ts";
import type { RestSearchFilters } from "./rest-search-contract.ts";
import { likeMatches, searchWindow, type LikePart } from "./rest-search-query.ts";

/**
 * What restSearch answers for a page of hits: the events and attributes loaded again through their
 * services (authorization included) in MISP's shapes, and MISP's csv and text exports of them.
 */
type Json = Record<string, unknown>;
const SIGHTING_TYPES: Record<string, string> = { sighting: "0", "false-positive": "1", expiration: "2" };

/** The csv columns MISP adds for an attribute's object and, with includeContext, its event. */
export type CsvExtra = Record<string, unknown>;
export interface LoadedAttribute {
  json: Json;
  csv: CsvExtra;
}

const keepDeleted = (f: RestSearchFilters) => (deleted: boolean) => (f.deleted === "both" ? true : f.deleted === "deleted" ? deleted : !deleted);

/**
 * attributes/restSearch: each hit as MISP's Attribute, with what the include* options add; for csv
 * (`csv`) also its object's and event's columns. What the caller's scopes do not cover (objects,
 * sightings, correlations) is left out rather than refusing the search. The object's columns come
 * with the attribute's read: who may read an attribute may read its object (the object's level is
 * part of the attribute's rule).
 */
export async function loadAttributes(services: Services, p: Principal, hits: SearchHit[], f: RestSearchFilters, csv: boolean): Promise<LoadedAttribute[]> {
  const needEvent = Boolean(f.includeEventTags || f.includeContext);
  const needObject = csv && hasScope(p, "objects:read");
  const withSightings = f.includeSightings && hasScope(p, "sightings:read");
  const views = await services.attributes.getMany(p, hits.map((h) => h.id));
  const uuids = views.map((a) => a.uuid);
  // One set-based read each, side by side.
  const [eventViews, correlations, sightings] = await Promise.all([
    needEvent ? services.events.getMany(p, [...new Set(views.map((a) => a.eventUuid))], { attributeCount: "all" }) : null,
    f.includeCorrelations ? services.correlations.ofAttributes(p, uuids) : null,
    withSightings ? services.sightings.ofAttributes(p, uuids, 100) : null,
  ]);
  const events = eventViews ? new Map(eventViews.map((e) => [e.uuid, e])) : null;
  return views.map((a) => {
    const json: Json = mispAttribute(a);
    const event = events?.get(a.eventUuid) ?? null;
    if (f.includeEventUuid) json.event_uuid = a.eventUuid;
    if (f.includeEventTags && event) json.Tag = [...(json.Tag as Json[]), ...event.tags.map((t) => ({ ...mispTagOfView(t), inherited: 1 }))];
    if (f.includeContext && event) json.Event = mispEventIndexItem(event);
    if (correlations) {
      json.RelatedAttribute = (correlations.get(a.uuid) ?? []).map(({ _source: s }) => ({
        uuid: s.target_attribute_uuid, type: s.target_attribute_type, value: s.target_attribute_value, event_uuid: s.target_event_uuid,
      }));
    }
    if (sightings) {
      json.Sighting = (sightings.get(a.uuid) ?? []).map(({ _source: s }) => ({
        uuid: s.uuid, attribute_id: a.id, event_id: String(a.eventId), attribute_uuid: a.uuid, type: SIGHTING_TYPES[s.type] ?? "0", source: s.observer.source,
        date_sighting: String(s.timestamp), ...(s.observer.organisation ? { Organisation: { name: s.observer.organisation } } : {}),
      }));
    }
    const columns: CsvExtra = {
      ...(a.objectUuid ? { object_uuid: a.objectUuid } : {}),
      ...(needObject && a.objectUuid ? { object_name: a.objectName, "object_meta-category": a.objectMetaCategory } : {}),
      ...(event && f.includeContext ? eventContext(event) : {}),
    };
    return { json, csv: columns };
  });
}

function eventContext(e: EventView): CsvExtra {
  return {
    event_info: e.info, event_member_org: e.org.name, event_source_org: e.orgc.name, event_distribution: String(e.distribution), event_threat_level_id: String(e.threatLevel),
    event_analysis: String(e.analysis), event_date: e.date, event_tag: e.tags.map((t) => t.name).join(","), event_timestamp: String(e.timestamp),
  };
}

/** Events already read through the events service: their views, or for full answers the events and their export (of these or more). */
export type ReadEvents = { views: EventView[]; exported: null } | { views: EventHead[]; exported: { Event: Json }[] };

/**
 * events/restSearch: these events as MISP's Event (metadata only, or without what enforceWarninglist,
 * deleted and the blocked tags leave out); `read`: the same events already read through the events
 * service; `blocked`: tags NOT (rest-search-query.ts SearchRun.blockedTags), matched on the tags the
 * export shows the caller.
 */
export async function loadEvents(services: Services, p: Principal, uuids: string[], f: RestSearchFilters, options: { read?: ReadEvents; blocked?: LikePart[][] } = {}): Promise<Json[]> {
  const { read, blocked = [] } = options;
  const warned = f.enforceWarninglist && !f.metadata ? await warninglisted(services, p, uuids) : new Set<string>();
  const keep = keepDeleted(f);
  const isBlocked = (a: Json) => ((a.Tag as { name: string }[] | undefined) ?? []).some((t) => blocked.some((parts) => likeMatches(parts, t.name)));
  const wanted = (a: unknown) => keep(Boolean((a as Json).deleted)) && !warned.has(String((a as Json).uuid)) && !(blocked.length && isBlocked(a as Json));
  if (f.metadata) {
    // The event's own fields: what MISP's metadata answer holds, without reading what the event holds.
    return (read && !read.exported ? read.views : await services.events.getMany(p, uuids, { badges: false, attributeCount: "all" })).map((e) => {
      const { EventTag: _t, ...fields } = mispEventIndexItem(e);
      return { Event: { ...fields, Tag: e.tags.map(mispTagOfView) } };
    });
  }
  const exported = read?.exported ? inOrder(read.exported, uuids) : await services.events.exportMispMany(p, uuids, { ids: true });
  return exported.map(({ Event: e }) => {
    const objects = (e.Object as Json[] | undefined)?.map((o) => ({ ...o, Attribute: (o.Attribute as unknown[] | undefined)?.filter(wanted) ?? [] }));
    return { Event: { ...e, Attribute: (e.Attribute as unknown[] | undefined)?.filter(wanted) ?? [], Object: objects ?? [] } };
  });
}

/** The exported events of these uuids, in their order. */
function inOrder(exported: { Event: Json }[], uuids: string[]): { Event: Json }[] {
  const byUuid = new Map(exported.map((e) => [String(e.Event.uuid), e]));
  return uuids.map((u) => byUuid.get(u)).filter((e): e is { Event: Json } => e !== undefined);
}

/** The attributes of these events on an enabled warninglist (the search layer's excludeWarninglisted, inverted). */
async function warninglisted(services: Services, p: Principal, eventUuids: string[]): Promise<Set<string>> {
  if (!eventUuids.length) return new Set();
  const query = {
    kind: "bool" as const,
    must: [{ kind: "bool" as const, must: [], should: eventUuids.map((u) => ({ kind: "term" as const, field: "event_uuid", value: u, wildcard: false as const })), mustNot: [] }, { kind: "exists" as const, field: "warnings.name" }],
    should: [],
    mustNot: [],
  };
  const hits = await searchWindow(services, p, { target: "attributes", query, includeDeleted: true, excludeWarninglisted: false, sortOrder: "desc" }, 0, 10_000);
  return new Set(hits.map((h) => h.id));
}

/** The attributes of MISP Events as csv records: their own, then their objects' (with the object's columns). */
export function eventAttributes(events: Json[]): LoadedAttribute[] {
  return events.flatMap(({ Event: e }) => {
    const ev = e as Json;
    const own = ((ev.Attribute as Json[] | undefined) ?? []).map((json) => ({ json, csv: {} }));
    const inObjects = ((ev.Object as Json[] | undefined) ?? []).flatMap((o) =>
      ((o.Attribute as Json[] | undefined) ?? []).map((json) => ({ json, csv: { object_uuid: o.uuid, object_name: o.name, "object_meta-category": o["meta-category"] } })),
    );
    return [...own, ...inObjects];
  });
}

export const CSV_FIELDS = ["uuid", "event_id", "category", "type", "value", "comment", "to_ids", "timestamp", "object_relation", "attribute_tag"];
export const CSV_OBJECT_FIELDS = ["object_uuid", "object_name", "object_meta-category"];
export const CSV_CONTEXT_FIELDS = ["event_info", "event_member_org", "event_source_org", "event_distribution", "event_threat_level_id", "event_analysis", "event_date", "event_tag", "event_timestamp"];

/** PHP's is_numeric, which decides whether MISP quotes a csv field. */
const NUMERIC = /^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

function csvField(v: unknown): string {
  if (v === null || v === undefined) return '""';
  if (typeof v === "boolean") return v ? "1" : "0";
  const s = String(v);
  return NUMERIC.test(s) ? s : `"${s.replace(/"/g, '""')}"`;
}

/** MISP's CsvExport: the requested columns (default, object's, event context), a header unless headerless, a line per attribute. */
export function toCsv(records: LoadedAttribute[], f: RestSearchFilters): string {
  const fields = [...(f.requested_attributes ?? CSV_FIELDS), ...(f.requested_attributes ? [] : CSV_OBJECT_FIELDS), ...(f.includeContext ? CSV_CONTEXT_FIELDS : [])];
  const header = fields.map((h) => (h === "timestamp" ? "date" : h.replace(/-/g, "_"))).join(",");
  const lines = records.map(({ json, csv }) => {
    const tags = (json.Tag as { name: string; inherited?: number }[] | undefined)?.filter((t) => !t.inherited).map((t) => t.name) ?? [];
    const row: Json = { ...json, ...(tags.length ? { attribute_tag: tags.join(",") } : {}), ...csv };
    // Own fields only: a requested column named after an inherited member (constructor) is no field.
    return fields.map((name) => csvField(Object.hasOwn(row, name) ? row[name] : undefined)).join(",");
  });
  return `${f.headerless ? "" : `${header}\n`}${lines.map((l) => `${l}\n`).join("")}\n`;
}

/** MISP's TextExport: each value once, one per line. */
export function toText(records: LoadedAttribute[]): string {
  return `${[...new Set(records.map(({ json }) => String(json.value)))].join("\n")}\n`;
}
