import { z } from "zod";
import { errors, parseInput } from "../../src/platform/errors.ts";
import type { SightingInput } from "../../src/modules/sightings/index.ts";
import { named } from "../contract.ts";
import type { Principal } from "../../src/auth/principal.ts";
import type { Services } from "../../src/services.ts";
import { attributeUuidOf, defineMispRoute, eventUuidOf, mispRef, namedParams, type MispRef } from "./misp-route.ts";
import { MispSavedSchema, mispSaved, mispSighting } from "./misp-shapes.ts";

const MAX_VALUES = 1000;
const text = z.union([z.string(), z.number()]).transform(String);

/** A sighting as MISP clients send it (`{"Sighting": {...}}` or bare): the attribute by uuid or id, or values to look for. */
const mispSightingInput = z
  .object({
    uuid: z.string().max(64).optional(),
    id: text.optional(),
    value: text.optional(),
    values: z.array(text).max(MAX_VALUES).optional(),
    source: z.string().optional(),
    type: z.union([z.string().max(64), z.number().int()]).optional(),
    timestamp: z.union([z.number(), z.string().regex(/^\d{1,12}(\.\d+)?$/).transform(Number)]).optional(),
  })
  .loose();

const MispSightingBodySchema = named(
  "MispSightingBody",
  z.object({ Sighting: z.object({ id: z.string(), attribute_id: z.string(), event_id: z.string(), org_id: z.string(), uuid: z.uuid(), type: z.string() }).loose() }),
  "The first sighting stored, as MISP answers sightings/add",
);

/** The route's attribute, or the body's `uuid` / `id`; null: the values' attributes. */
function attributeRef(path: MispRef | undefined, body: z.output<typeof mispSightingInput>): MispRef | null {
  if (path) return path;
  const given = body.uuid ?? body.id;
  if (given === undefined) return null;
  const r = mispRef.safeParse(given);
  if (!r.success) throw errors.notFound("Attribute");
  return r.data;
}

/** Sightings one listing answers at most. */
const MAX_LISTED = 10_000;
const LIST_PAGE = 100;

type MispSightingOut = { Sighting: Record<string, unknown> };

/** The readable sightings (of one attribute, or all), as MISP lists them, newest first. */
async function listed(services: Services, p: Principal | null, attributeUuid: string | undefined): Promise<MispSightingOut[]> {
  const out: MispSightingOut[] = [];
  for (let page = 1; out.length < MAX_LISTED; page++) {
    const batch = await services.sightings.page(p, { page, size: LIST_PAGE, ...(attributeUuid ? { attributeUuid } : {}) });
    for (const s of batch.items) {
      out.push({ Sighting: { id: String(s.id), attribute_id: String(s.attributeId), event_id: String(s.eventId), org_id: String(s.orgId ?? 0), date_sighting: String(s.dateSighting), uuid: s.uuid, source: s.source, type: String(s.type) } });
    }
    if (page >= batch.pages) break;
  }
  return out;
}

/** The sightings of an event's readable attributes, from its MISP export (which carries them with their ids). */
async function ofEvent(services: Services, p: Principal | null, ref: MispRef): Promise<MispSightingOut[]> {
  const uuid = await eventUuidOf(services, p, ref);
  const { Event: e } = await services.events.exportMisp(p, uuid, { ids: true });
  type Attr = { Sighting?: Record<string, unknown>[] };
  const attributes = [...((e.Attribute as Attr[]) ?? []), ...((e.Object as { Attribute?: Attr[] }[]) ?? []).flatMap((o) => o.Attribute ?? [])];
  return attributes.flatMap((a) => (a.Sighting ?? []).map((s) => ({ Sighting: s })));
}

const byOrg = (list: MispSightingOut[], org: string | undefined) => (org === undefined ? list : list.filter((s) => s.Sighting.org_id === org));

const MispSightingListSchema = named("MispSightingList", z.array(z.object({ Sighting: z.record(z.string(), z.unknown()) })), "Sightings as MISP lists them, each under Sighting");
const listBody = namedParams({ id: z.union([z.string(), z.number()]).transform(String).optional(), context: z.enum(["attribute", "event"]).optional(), org_id: z.union([z.string().regex(/^\d{1,10}$/), z.number().int()]).transform(String).optional() });

const mispSightingListRoutes = [
  defineMispRoute({
    method: "POST", path: "/misp/sightings/delete/{sighting_id}", operationId: "mispDeleteSighting",
    summary: "MISP sightings/delete: delete a sighting by numeric id or uuid (the administrator any, others their organisation's; any other is MISP's 404 \"Invalid sighting.\")",
    scopes: ["sightings:delete"], params: z.object({ sighting_id: mispRef }).strict(), status: 200, response: MispSavedSchema,
    misp: { notFound: "Invalid sighting." },
    handler: async ({ principal, params, services, request }) => {
      await services.sightings.delete(principal, params.sighting_id);
      const given = String((request.params as { sighting_id: string }).sighting_id);
      return mispSaved("Sighting successfully deleted.", `/sightings/delete/${given}`, given);
    },
  }),
  defineMispRoute({
    method: "POST", path: "/misp/sightings/listSightings", operationId: "mispListSightings",
    summary: `MISP sightings/listSightings: the sightings of an attribute (context attribute, the default) or of an event's readable attributes (context event), by numeric id or uuid; org_id keeps one organisation's; at most ${MAX_LISTED}`,
    scopes: ["sightings:read"], status: 200, response: MispSightingListSchema, body: z.unknown(), query: listBody,
    misp: { notFound: "Invalid attribute", positional: ["id", "context", "org_id"] },
    handler: async ({ principal, query, body, services }) => {
      const q = { ...query, ...parseInput(listBody, body ?? {}) };
      const ref = mispRef.safeParse(q.id ?? "");
      if (!ref.success) throw errors.notFound(q.context === "event" ? "Event" : "Attribute");
      if (q.context === "event") return byOrg(await ofEvent(services, principal, ref.data), q.org_id);
      // An attribute the caller may not read is not found, as one that does not exist.
      const attribute = await services.attributes.get(principal, await attributeUuidOf(services, principal, ref.data));
      const list = await listed(services, principal, attribute.uuid);
      return byOrg(list, q.org_id);
    },
  }),
  ...(["GET", "POST"] as const).map((method) =>
    defineMispRoute({
      method, path: "/misp/sightings/index", operationId: method === "GET" ? "mispSightingIndex" : "mispSearchSightingIndex",
      summary: `MISP sightings/index: the sightings of every readable attribute (/<event id or uuid>: of one event's), newest first; at most ${MAX_LISTED}`,
      scopes: ["sightings:read"], status: 200, response: MispSightingListSchema, query: namedParams({ event_id: mispRef.optional() }),
      ...(method === "POST" ? { body: z.unknown() } : {}),
      misp: { notFound: "Invalid event", positional: ["event_id"] },
      handler: async ({ principal, query, services }) => (query.event_id ? ofEvent(services, principal, query.event_id) : listed(services, principal, undefined)),
    }),
  ),
];

const mispSightingAddRoutes = [undefined, z.object({ attribute_id: mispRef }).strict()].map((params) =>
  defineMispRoute({
    method: "POST", path: params ? "/misp/sightings/add/{attribute_id}" : "/misp/sightings/add", operationId: params ? "mispAddSightingOfAttribute" : "mispAddSighting",
    summary: "MISP sightings/add: a sighting of an attribute (by the path, or uuid / id in the body) or of every readable attribute holding value / values; type 0 sighting, 1 false positive, 2 expiration",
    scopes: ["sightings:create"], params, status: 200, response: MispSightingBodySchema, body: z.unknown(),
    misp: { notFound: "Invalid attribute", saveFailed: "add Sighting" },
    handler: async ({ principal, params: p, body, services }) => {
      const given = body && typeof body === "object" && "Sighting" in body ? (body as { Sighting: unknown }).Sighting : body;
      const s = parseInput(mispSightingInput, given ?? {});
      const ref = attributeRef((p as { attribute_id?: MispRef } | undefined)?.attribute_id, s);
      const attributeUuid = ref ? await attributeUuidOf(services, principal, ref) : undefined;
      const values = s.values ?? (s.value !== undefined ? [s.value] : []);
      if (!attributeUuid && values.length === 0) throw errors.invalidInput(["value"], "No valid attributes found: give an attribute (uuid or id) or values");
      const base = { ...(s.type !== undefined ? { type: s.type } : {}), ...(s.source !== undefined ? { source: s.source } : {}), ...(s.timestamp !== undefined ? { timestamp: s.timestamp } : {}) };
      const items: SightingInput[] = values.length ? values.map((value) => ({ ...base, value, ...(attributeUuid ? { attributeUuid } : {}) })) : [{ ...base, attributeUuid }];
      const result = await services.sightings.create(principal, items, { skipEmpty: false });
      if (!result.stored.length) throw errors.notFound("Attribute");
      return { Sighting: mispSighting(result.stored[0]) };
    },
  }),
);

export const mispSightingRoutes = [...mispSightingAddRoutes, ...mispSightingListRoutes];
