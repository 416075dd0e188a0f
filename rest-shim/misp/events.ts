import crypto from "node:crypto";
import { z } from "zod";
import { hasScope, isAdmin, type Principal } from "../../src/auth/principal.ts";
import { errors, parseInput, type ValidationIssue } from "../../src/platform/errors.ts";
import type { Services } from "../../src/services.ts";
import { IMPORT_BODY_LIMIT } from "../routes/events.ts";
import { mispException, mispFieldErrors, mispSaveFailed } from "./misp-errors.ts";
import { MISP_PREFIX, defineMispRoute, eventUuidOf, mispBool, mispRef, namedParams } from "./misp-route.ts";
import { MispEventIndexSchema, MispEventSchema, MispSavedSchema, mispEventIndexItem, mispSaved } from "./misp-shapes.ts";
import { mispIndexFilter } from "./event-index-filter.ts";

const eventParam = z.object({ event_id: mispRef }).strict();
const MESSAGES = { notFound: "Invalid event", forbidden: "You are not authorised to do that." };
const now = () => Math.floor(Date.now() / 1000);

/** `/metadata:1`: the event without its attributes, objects and reports. */
const metadataParam = namedParams({ metadata: mispBool.optional() });
/** MISP's `deleted`: 0 (default) the live elements, 1 both, a list of 0 and 1 those states (`[1]`: the soft-deleted only). */
const deletedParam = z.union([mispBool, z.array(z.union([z.literal(0), z.literal(1), z.enum(["0", "1"])])).min(1).max(2)]).transform((d): Set<boolean> => {
  if (typeof d === "boolean") return new Set(d ? [false, true] : [false]);
  return new Set(d.map((v) => v === 1 || v === "1"));
});
const viewParams = namedParams({ metadata: mispBool.optional(), deleted: deletedParam.optional(), extended: mispBool.optional() });
/** What PyMISP's get_event posts to events/view. */
const viewBody = namedParams({ metadata: mispBool.optional(), deleted: deletedParam.optional(), extended: mispBool.optional() });

type Json = Record<string, unknown>;

/**
 * The event's attributes, objects (and theirs) and reports in the states `deleted` asks for, as
 * MISP's fetchEvent: soft-deleted ones only to the event's organisation, sync users and
 * administrators; others get the live ones whatever they ask.
 */
function inStates(event: Json, states: Set<boolean>, seesDeleted: boolean): Json {
  const wanted = seesDeleted ? states : new Set([false].filter((s) => states.has(s)));
  const keep = (list: unknown) => (Array.isArray(list) ? (list as Json[]).filter((x) => wanted.has(x.deleted === true || x.deleted === "1" || x.deleted === 1)) : list);
  const objects = keep(event.Object);
  return {
    ...event,
    ...(event.Attribute !== undefined ? { Attribute: keep(event.Attribute) } : {}),
    ...(Array.isArray(objects) ? { Object: (objects as Json[]).map((o) => ({ ...o, Attribute: keep(o.Attribute) })) } : {}),
    ...(event.EventReport !== undefined ? { EventReport: keep(event.EventReport) } : {}),
  };
}

/** Events an extended view merges in at most (MISP sets no bound). */
const MAX_EXTENSIONS = 100;

const seesDeletedOf = (p: Principal | null, orgId: number) => p !== null && (isAdmin(p) || hasScope(p, "events:sync") || p.orgId === orgId);
const listOf = (v: unknown): Json[] => (Array.isArray(v) ? (v as Json[]) : []);

/**
 * MISP's extended view (Event::__mergeExtensions): the live events extending this one that the
 * caller may read (one consistent read: EventsService.exportMispExtensions), their attributes,
 * objects, reports and galaxies appended, their tags the event lacks added, and each named in
 * `extensionEvents` by id.
 */
async function withExtensions(services: Services, p: Principal | null, event: Json, deleted: Set<boolean>): Promise<Json> {
  const extending = await services.events.exportMispExtensions(p, String(event.uuid), { ids: true, max: MAX_EXTENSIONS });
  if (extending.length === 0) return event;
  const merged: Json = { ...event, Attribute: listOf(event.Attribute), Object: listOf(event.Object), EventReport: listOf(event.EventReport), Galaxy: listOf(event.Galaxy), Tag: listOf(event.Tag) };
  const extensionEvents: Record<string, Json> = {};
  for (const exported of extending) {
    const ext = inStates(exported.Event, deleted, seesDeletedOf(p, Number(exported.Event.org_id)));
    const orgc = (ext.Orgc ?? {}) as Json;
    extensionEvents[String(ext.id)] = { id: ext.id, info: ext.info, orgc_id: ext.orgc_id, user_id: ext.user_id ?? "0", Orgc: { id: orgc.id, name: orgc.name, uuid: orgc.uuid } };
    for (const key of ["Attribute", "Object", "EventReport", "Galaxy"] as const) merged[key] = [...listOf(merged[key]), ...listOf(ext[key])];
    const have = new Set(listOf(merged.Tag).map((t) => String(t.name).toLowerCase()));
    merged.Tag = [...listOf(merged.Tag), ...listOf(ext.Tag).filter((t) => !have.has(String(t.name).toLowerCase()))];
  }
  return { ...merged, extensionEvents };
}

/** The event as MISP answers it: its MISP JSON with the numeric ids; `errors` names the attributes left out. */
async function answer(services: Services, p: Principal | null, uuid: string, metadata: boolean | undefined, skipped: ValidationIssue[] = [], view?: { deleted: Set<boolean>; orgId: number; extended?: boolean }) {
  const out = await services.events.exportMisp(p, uuid, { ids: true });
  if (view) out.Event = inStates(out.Event, view.deleted, seesDeletedOf(p, view.orgId));
  if (view?.extended) out.Event = await withExtensions(services, p, out.Event, view.deleted);
  if (metadata) {
    const { Attribute: _a, Object: _o, EventReport: _r, ...meta } = out.Event;
    out.Event = meta;
  }
  return skipped.length ? { ...out, errors: mispFieldErrors(skipped) } : out;
}

/** The `Event` object of a MISP JSON body (`{"Event": {...}}` or the event itself), or null. */
function eventObject(body: unknown): Record<string, unknown> | null {
  if (!body || typeof body !== "object" || Array.isArray(body)) return null;
  const inner = (body as { Event?: unknown }).Event;
  if (inner === undefined) return body as Record<string, unknown>;
  return inner && typeof inner === "object" && !Array.isArray(inner) ? (inner as Record<string, unknown>) : null;
}

/**
 * The uuids MISP gives what arrives without one: the event, its attributes and objects (and theirs).
 * PyMISP's `malware_filename` (the file name part of a malware-sample's value, which it adds when
 * loading one) goes: MISP derives it, the import knows no such field.
 */
function withUuids(event: Record<string, unknown>): Record<string, unknown> {
  const give = (items: unknown, nested?: string): unknown =>
    Array.isArray(items)
      ? items.map((i) => {
          if (!i || typeof i !== "object" || Array.isArray(i)) return i;
          const { malware_filename: _derived, ...item } = i as Record<string, unknown>;
          return { ...item, uuid: item.uuid ?? crypto.randomUUID(), ...(nested && nested in item ? { [nested]: give(item[nested]) } : {}) };
        })
      : items;
  return { ...event, uuid: event.uuid ?? crypto.randomUUID(), Attribute: give(event.Attribute), Object: give(event.Object, "Attribute") };
}

/** MISP's answer to an edit whose event timestamp is not newer than the stored one (Event::_edit). */
export const NOT_NEWER = "Event could not be saved: Event in the request not newer than the local copy.";

/** The timestamp the client gave (null when it gave none); a malformed one is the parser's 4xx. */
function givenTimestamp(event: Record<string, unknown>): number | null {
  const v = event.timestamp;
  if (v === undefined || v === null || v === "") return null;
  const n = typeof v === "number" ? v : typeof v === "string" && /^\d{1,12}$/.test(v.trim()) ? Number(v) : NaN;
  if (!Number.isSafeInteger(n) || n < 0) throw errors.invalidField(["body", "Event", "timestamp"], "Must be a UNIX timestamp in seconds");
  return n;
}

/**
 * An edit as an import of the event (MISP's edit also adds and updates the attributes and objects
 * it carries, by uuid, and removes nothing). As in MISP's Event::_edit, a given event timestamp is
 * kept (a pushing server sends its own) and must be newer than the stored one, else the edit is
 * refused rather than dropped; without one the event is stamped now, newer than what is stored so
 * the import takes it, and so are the attributes and objects the client left unstamped (PyMISP
 * drops the timestamps of what it edited). Given attribute and object timestamps are kept: the
 * import takes those newer than what it stores, as MISP's editAttribute does.
 */
function asEdit(event: Record<string, unknown>, uuid: string, stored: { id: number; timestamp: number }): Record<string, unknown> {
  const given = givenTimestamp(event);
  if (given !== null && given <= stored.timestamp) throw mispSaveFailed("edit Event", NOT_NEWER, String(stored.id));
  const ts = String(Math.max(now(), stored.timestamp + 1));
  const stamp = (items: unknown) =>
    Array.isArray(items) ? items.map((i) => (i && typeof i === "object" && !Array.isArray(i) && (i as { timestamp?: unknown }).timestamp == null ? { ...i, timestamp: ts } : i)) : items;
  const objects = Array.isArray(event.Object)
    ? event.Object.map((o) => (o && typeof o === "object" && !Array.isArray(o) ? { ...(stamp([o]) as object[])[0], Attribute: stamp((o as { Attribute?: unknown }).Attribute) } : o))
    : event.Object;
  return { Event: withUuids({ ...event, uuid, timestamp: given === null ? ts : String(given), Attribute: stamp(event.Attribute), Object: objects }) };
}

export const mispEventRoutes = [
  defineMispRoute({
    method: "POST", path: "/misp/events/add", operationId: "mispAddEvent", summary: "MISP events/add: create an event from MISP JSON ({\"Event\": {...}}) through the MISP import (invalid attributes left out and listed in errors); /metadata:1 answers without attributes; an existing uuid is MISP's 404 with a Location",
    scopes: ["events:create"], status: 200, response: MispEventSchema, bodyLimit: IMPORT_BODY_LIMIT,
    query: metadataParam, body: z.unknown(),
    misp: { ...MESSAGES, saveFailed: "add Event" },
    handler: async ({ principal, query, body, services }) => {
      const event = eventObject(body);
      if (!event) throw errors.invalidField(["body", "Event"], "must be an event object");
      const declared = event.uuid;
      if (typeof declared === "string") {
        const existing = await services.events.get(principal, declared.toLowerCase()).catch(() => null);
        if (existing) {
          throw mispException(404, "Event already exists, if you would like to edit it, use the url in the location header.", { Location: `${MISP_PREFIX}/events/view/${existing.id}` });
        }
      }
      // Beside the event, the body is the import's to judge, as on POST /events/import.
      const wrapped = body && typeof body === "object" && "Event" in body ? { ...body, Event: withUuids(event) } : withUuids(event);
      const imported = await services.events.importMisp(principal, wrapped, { skipInvalidAttributes: true });
      return answer(services, principal, imported.event.uuid, query.metadata, imported.skipped);
    },
  }),
  ...(["GET", "POST"] as const).map((method) =>
    defineMispRoute({
      method, path: "/misp/events/view/{event_id}", operationId: method === "GET" ? "mispViewEvent" : "mispViewEventByPost",
      summary: method === "GET"
        ? `MISP events/view: an event by numeric id or uuid, in MISP JSON with its ids (HEAD: 200 or 404); /metadata:1 without attributes; its live attributes, objects and reports, or as /deleted:1 (both) asks; /extended:1 merges in the events extending it that the caller may read (at most ${MAX_EXTENSIONS}), as MISP`
        : `MISP events/view by POST, as PyMISP's get_event sends it: deleted 0 (default: live attributes, objects and reports), 1 or [0, 1] (soft-deleted ones too, with deleted true), [1] (the soft-deleted only); soft-deleted ones only to the event's organisation, sync users and administrators, as MISP; extended 1 merges in the live events whose extends_uuid is this event's uuid and that the caller may read (at most ${MAX_EXTENSIONS}): their attributes, objects, reports and galaxies appended, their tags the event lacks added, each listed in extensionEvents`,
      scopes: ["events:read"], params: eventParam, query: viewParams, status: 200, response: MispEventSchema, misp: MESSAGES,
      ...(method === "POST" ? { body: z.unknown() } : {}),
      handler: async ({ principal, params, query, body, services }) => {
        const fromBody = method === "POST" ? parseInput(viewBody, body ?? {}) : {};
        const uuid = await eventUuidOf(services, principal, params.event_id);
        const event = await services.events.get(principal, uuid);
        // MISP has no soft-deleted events: one deleted through our own API is gone for MISP clients.
        if (event.deleted) throw errors.notFound("Event");
        const deleted = fromBody.deleted ?? query.deleted ?? new Set([false]);
        return answer(services, principal, uuid, query.metadata ?? fromBody.metadata, [], { deleted, orgId: event.orgId, extended: query.extended ?? fromBody.extended });
      },
    }),
  ),
  defineMispRoute({
    method: "POST", path: "/misp/events/edit/{event_id}", operationId: "mispEditEvent", summary: "MISP events/edit: update an event from MISP JSON (its fields; the attributes and objects it carries are added or updated by uuid, none removed); a given event timestamp is kept and must be newer than the stored one (else MISP's 403 \"Event in the request not newer than the local copy.\"), none given stamps it now",
    scopes: ["events:update"], params: eventParam, query: metadataParam, status: 200, response: MispEventSchema, bodyLimit: IMPORT_BODY_LIMIT, body: z.unknown(),
    misp: { ...MESSAGES, saveFailed: "edit Event" },
    handler: async ({ principal, params, query, body, services }) => {
      const uuid = await eventUuidOf(services, principal, params.event_id);
      const stored = await services.events.get(principal, uuid);
      if (stored.deleted) throw errors.notFound("Event");
      const event = eventObject(body);
      if (!event) throw errors.invalidField(["body", "Event"], "must be an event object");
      const { skipped } = await services.events.importMisp(principal, asEdit(event, uuid, stored), { skipInvalidAttributes: true, edit: true });
      return answer(services, principal, uuid, query.metadata, skipped);
    },
  }),
  ...(["POST", "DELETE"] as const).map((method) =>
    defineMispRoute({
      method, path: "/misp/events/delete/{event_id}", operationId: method === "POST" ? "mispDeleteEvent" : "mispDeleteEventByDelete", summary: "MISP events/delete: delete an event for good, with its attributes, objects and sightings",
      scopes: ["events:delete"], params: eventParam, status: 200, response: MispSavedSchema, misp: MESSAGES,
      handler: async ({ principal, params, services, request }) => {
        const uuid = await eventUuidOf(services, principal, params.event_id);
        await services.events.delete(principal, uuid, { force: true });
        const given = String((request.params as { event_id: string }).event_id);
        return mispSaved("Event deleted.", `/events/delete/${given}`, given);
      },
    }),
  ),
  ...([true, false] as const).map((published) =>
    defineMispRoute({
      method: "POST", path: `/misp/events/${published ? "publish" : "unpublish"}/{event_id}`, operationId: published ? "mispPublishEvent" : "mispUnpublishEvent",
      summary: published ? "MISP events/publish: publish an event (no alert e-mails)" : "MISP events/unpublish: unpublish an event",
      scopes: ["events:publish"], params: eventParam, status: 200, response: MispSavedSchema,
      misp: { ...MESSAGES, saveFailed: `${published ? "publish" : "unpublish"} Event` },
      handler: async ({ principal, params, services }) => {
        const uuid = await eventUuidOf(services, principal, params.event_id);
        const e = await services.events.setPublished(principal, uuid, published);
        const action = published ? "publish" : "unpublish";
        return mispSaved(published ? "Event published without alerts" : "Event unpublished.", `/events/${action}/${e.id}`, String(e.id));
      },
    }),
  ),
  ...(["GET", "POST"] as const).map((method) =>
    defineMispRoute({
      method, path: "/misp/events/index", operationId: method === "GET" ? "mispEventIndex" : "mispSearchEventIndex",
      summary: "MISP events/index: events' metadata, newest change first, filtered as PyMISP's search_index sends and MISP's index parses (eventinfo: |-separated LIKE pieces on the title in any case, !piece for NOT; published; tags: a|b, a&b, !x, names with their case; org: a list or |-separated ids, uuids or names, !x for NOT; datefrom/dateuntil, timestamp and publish_timestamp (epoch seconds, a date or a 1d/12h delta: from then on; or [from, to]), eventid, limit, page; in the body or as /key:value)",
      scopes: ["events:read"], status: 200, response: MispEventIndexSchema, query: z.record(z.string(), z.unknown()), ...(method === "POST" ? { body: z.unknown() } : {}),
      misp: { notFound: "Invalid event" },
      handler: async ({ principal, query, body, services }) => {
        const { filter, page } = await mispIndexFilter(services, principal, { ...query, ...(body && typeof body === "object" && !Array.isArray(body) ? body : {}) });
        const list = await services.events.list(principal, filter, page, { attributeCount: "all" });
        return list.items.map(mispEventIndexItem);
      },
    }),
  ),
];
