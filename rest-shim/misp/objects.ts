import crypto from "node:crypto";
import { z } from "zod";
import type { Principal } from "../../src/auth/principal.ts";
import { mispObject } from "../../src/modules/events/index.ts";
import type { ObjectCreate, ObjectPatch, ObjectView, ReferenceCreate } from "../../src/modules/objects/index.ts";
import { InputError, errors, parseInput } from "../../src/platform/errors.ts";
import type { Services } from "../../src/services.ts";
import { named } from "../contract.ts";
import { seenTime } from "../schemas.ts";
import { parseMispAttribute, parseMispAttributeChange } from "./attributes.ts";
import { mispException, mispFieldErrors, mispSaveFailed } from "./misp-errors.ts";
import { defineMispRoute, eventUuidOf, mispBool, mispRef, namedParams, uuidOfRef, type MispRef } from "./misp-route.ts";
import { MispSavedSchema, mispAttribute, mispSaved } from "./misp-shapes.ts";

const level = z.union([z.number().int(), z.string().regex(/^\d{1,10}$/).transform(Number)]);
const MAX_ATTRIBUTES = 5000;
const MAX_REFERENCES = 1000;

const mispReferenceInput = z
  .object({
    uuid: z.string().max(64).optional(),
    object_uuid: z.string().max(64).nullable().optional(),
    source_uuid: z.string().max(64).nullable().optional(),
    referenced_uuid: z.string().max(64),
    referenced_type: level.nullable().optional(),
    relationship_type: z.string().max(255),
    comment: z.string().max(65_535).nullable().optional(),
  })
  .loose();

/** A MISP object as PyMISP's MISPObject sends it; what MISP's server sets (id, event_id, timestamp) is ignored. */
const mispObjectInput = z
  .object({
    name: z.string().max(255),
    "meta-category": z.string().max(255).nullable().optional(),
    description: z.string().max(65_535).nullable().optional(),
    template_uuid: z.string().max(64).nullable().optional(),
    template_version: level.nullable().optional(),
    uuid: z.string().max(64).optional(),
    distribution: level.optional(),
    sharing_group_id: level.transform((n) => (n === 0 ? null : n)).nullable().optional(),
    comment: z.string().max(65_535).nullable().optional(),
    first_seen: seenTime.optional(),
    last_seen: seenTime.optional(),
    Attribute: z.array(z.unknown()).max(MAX_ATTRIBUTES).optional(),
    ObjectReference: z.array(mispReferenceInput).max(MAX_REFERENCES).optional(),
  })
  .loose();

/** `{"Object": {...}}` or the object itself; MISP also takes the attributes beside the object (`{"Object": {...}, "Attribute": [...]}`). */
function objectBody(body: unknown): unknown {
  if (!body || typeof body !== "object" || Array.isArray(body) || !("Object" in body)) return body;
  const { Object: inner, Attribute: beside } = body as { Object: unknown; Attribute?: unknown };
  if (!inner || typeof inner !== "object" || Array.isArray(inner)) return inner;
  return beside !== undefined && !("Attribute" in inner) ? { ...inner, Attribute: beside } : inner;
}

const reference = (r: z.output<typeof mispReferenceInput>): ReferenceCreate => ({
  referencedUuid: r.referenced_uuid,
  relationshipType: r.relationship_type,
  ...(r.uuid ? { uuid: r.uuid.toLowerCase() } : {}),
  ...(r.object_uuid ? { objectUuid: r.object_uuid } : {}),
  ...(r.source_uuid ? { sourceUuid: r.source_uuid } : {}),
  ...(r.referenced_type != null ? { referencedType: r.referenced_type } : {}),
  ...(r.comment != null ? { comment: r.comment } : {}),
});

/** The object in the service's vocabulary, with each attribute's tags; MISP's refusal when an attribute is invalid. */
function objectCreate(body: unknown, eventUuid: string): { input: ObjectCreate; tags: Map<string, string[]> } {
  const o = parseInput(mispObjectInput, objectBody(body) ?? {});
  const attributes = o.Attribute ?? [];
  if (attributes.length === 0) throw mispSaveFailed("add Object", "Could not save the object as no attributes were set.");
  const tags = new Map<string, string[]>();
  const parsed = attributes.map((item) => {
    try {
      const { input, tags: names } = parseMispAttribute(item);
      // Every attribute gets its uuid here, so its tags can follow it once it is stored.
      const uuid = input.uuid ?? crypto.randomUUID();
      if (names.length) tags.set(uuid, names);
      return { ...input, uuid };
    } catch (err) {
      if (!(err instanceof InputError)) throw err;
      const relation = item && typeof item === "object" ? (item as { object_relation?: unknown }).object_relation : undefined;
      throw mispSaveFailed("add Object", `Could not save object as at least one attribute has failed validation (${typeof relation === "string" ? relation : "No object_relation"}). ${JSON.stringify(mispFieldErrors(err.issues))}`);
    }
  });
  const input: ObjectCreate = {
    name: o.name,
    eventUuid,
    attributes: parsed,
    references: (o.ObjectReference ?? []).map(reference),
    ...(o.uuid ? { uuid: o.uuid.toLowerCase() } : {}),
    ...(o["meta-category"] != null ? { metaCategory: o["meta-category"] } : {}),
    ...(o.description != null ? { description: o.description } : {}),
    ...(o.template_uuid ? { templateUuid: o.template_uuid } : {}),
    ...(o.template_version != null ? { templateVersion: o.template_version } : {}),
    ...(o.distribution !== undefined ? { distribution: o.distribution } : {}),
    ...(o.sharing_group_id !== undefined ? { sharingGroupId: o.sharing_group_id } : {}),
    ...(o.comment != null ? { comment: o.comment } : {}),
    ...(o.first_seen !== undefined ? { firstSeen: o.first_seen } : {}),
    ...(o.last_seen !== undefined ? { lastSeen: o.last_seen } : {}),
  };
  return { input, tags };
}

/** What objects/edit reads of an object (MispObject::deltaMerge); name, template and uuid stay as they are. */
const mispObjectEditInput = z
  .object({
    comment: z.string().max(65_535).nullable().optional(),
    template_version: level.nullable().optional(),
    distribution: level.optional(),
    sharing_group_id: level.transform((n) => (n === 0 ? null : n)).nullable().optional(),
    first_seen: seenTime.optional(),
    last_seen: seenTime.optional(),
    deleted: mispBool.optional(),
    Attribute: z.array(z.unknown()).max(MAX_ATTRIBUTES).optional(),
  })
  .loose();

/**
 * objects/edit as MISP merges it: an attribute named by one of the object's uuids is changed, any
 * other is added, and when attributes are given the object's live ones left out are soft-deleted;
 * `deleted` soft-deletes the object. An invalid attribute refuses the whole edit.
 */
function objectEdit(body: unknown, current: ObjectView): { patch: ObjectPatch; tags: Map<string, string[]> } {
  // No body is no change; a body that is no object (null, a list, a string) is refused.
  const o = parseInput(mispObjectEditInput, body === undefined ? {} : objectBody(body));
  const own = new Set(current.attributes.map((a) => a.uuid));
  const tags = new Map<string, string[]>();
  const mentioned = new Set<string>();
  const newAttributes: NonNullable<ObjectPatch["newAttributes"]> = [];
  const updateAttributes: NonNullable<ObjectPatch["updateAttributes"]> = [];
  for (const [i, item] of (o.Attribute ?? []).entries()) {
    try {
      const change = parseMispAttributeChange(item);
      if (change.uuid && own.has(change.uuid)) {
        if (mentioned.has(change.uuid)) throw errors.invalidInput(["Attribute", i, "uuid"], "uuid given twice in the request", change.uuid);
        mentioned.add(change.uuid);
        updateAttributes.push({ ...change.patch, uuid: change.uuid });
        if (change.tags.length) tags.set(change.uuid, change.tags);
        continue;
      }
      const { input, tags: names } = parseMispAttribute(item);
      const uuid = input.uuid ?? crypto.randomUUID();
      if (names.length) tags.set(uuid, names);
      newAttributes.push({ ...input, uuid });
    } catch (err) {
      if (!(err instanceof InputError)) throw err;
      throw mispSaveFailed("edit Object", { [`attribute_${i}`]: mispFieldErrors(err.issues) });
    }
  }
  const deleteAttributes = o.Attribute?.length ? current.attributes.filter((a) => !a.deleted && !mentioned.has(a.uuid)).map((a) => a.uuid) : [];
  const patch: ObjectPatch = {
    ...(o.comment !== undefined ? { comment: o.comment ?? "" } : {}),
    ...(o.template_version !== undefined ? { templateVersion: o.template_version } : {}),
    ...(o.distribution !== undefined ? { distribution: o.distribution } : {}),
    ...(o.sharing_group_id !== undefined ? { sharingGroupId: o.sharing_group_id } : {}),
    ...(o.first_seen !== undefined ? { firstSeen: o.first_seen } : {}),
    ...(o.last_seen !== undefined ? { lastSeen: o.last_seen } : {}),
    ...(o.deleted ? { deleted: true } : {}),
    ...(newAttributes.length ? { newAttributes } : {}),
    ...(updateAttributes.length ? { updateAttributes } : {}),
    ...(deleteAttributes.length ? { deleteAttributes } : {}),
  };
  return { patch, tags };
}

/** An object as MISP answers objects/add and objects/view: its ids, its attributes (with theirs) and references. */
export function mispObjectOf(o: ObjectView) {
  const row = {
    uuid: o.uuid,
    name: o.name,
    meta_category: o.metaCategory,
    description: o.description,
    template_uuid: o.templateUuid,
    template_version: o.templateVersion,
    timestamp: o.timestamp,
    distribution: o.distribution,
    sharing_group_id: o.sharingGroupId,
    comment: o.comment,
    deleted: o.deleted,
    first_seen: o.firstSeen,
    last_seen: o.lastSeen,
  };
  const references = o.references.map((r) => ({
    uuid: r.uuid,
    object_uuid: r.objectUuid,
    source_uuid: r.objectUuid,
    referenced_uuid: r.referencedUuid,
    ...(r.referencedType !== null ? { referenced_type: String(r.referencedType) } : {}),
    relationship_type: r.relationshipType,
    comment: r.comment,
    timestamp: String(r.timestamp),
    deleted: r.deleted,
  }));
  return { id: String(o.id), event_id: String(o.eventId), ...mispObject(row, o.attributes.map(mispAttribute), references) };
}

const MispObjectBodySchema = named(
  "MispObjectBody",
  z.object({ Object: z.object({ id: z.string(), event_id: z.string(), uuid: z.uuid(), name: z.string(), Attribute: z.array(z.unknown()), ObjectReference: z.array(z.unknown()) }).loose() }),
  "An object as MISP answers it: its fields, numeric ids, Attribute and ObjectReference",
);

const objectUuidOf = (services: Services, p: Principal | null, ref: MispRef) => uuidOfRef(ref, (id) => services.objects.uuidOf(p, id), "Object");
const objectParam = z.object({ object_id: mispRef }).strict();

const MispObjectReferenceSchema = named(
  "MispObjectReferenceBody",
  z.object({ ObjectReference: z.object({ uuid: z.uuid(), object_id: z.string(), event_id: z.string(), object_uuid: z.uuid(), referenced_uuid: z.string(), relationship_type: z.string() }).loose() }),
  "A reference as MISP answers objectReferences/add",
);

/** objectReferences/add: the object by the path, or by `object_uuid` in the body (MISP's two forms). */
const referenceRoute = (params: z.ZodObject | undefined) =>
  defineMispRoute({
    method: "POST", path: params ? "/misp/objectReferences/add/{object_id}" : "/misp/objectReferences/add", operationId: params ? "mispAddObjectReferenceTo" : "mispAddObjectReference",
    summary: "MISP objectReferences/add: a reference from a live object (by the path, or object_uuid in the body) to an attribute or object (referenced_uuid, relationship_type, comment), as PyMISP's add_object_reference sends it",
    scopes: ["objects:update"], params, status: 200, response: MispObjectReferenceSchema, body: z.unknown(),
    misp: { notFound: "Invalid object.", forbidden: "You do not have permission to do that.", saveFailed: "add ObjectReference" },
    handler: async ({ principal, params: p, body, services }) => {
      const given = body && typeof body === "object" && !Array.isArray(body) && "ObjectReference" in body ? (body as { ObjectReference: unknown }).ObjectReference : body;
      const r = parseInput(mispReferenceInput, given ?? {});
      const fromPath = (p as { object_id?: MispRef } | undefined)?.object_id;
      const ref = fromPath ?? (r.object_uuid ? mispRef.safeParse(r.object_uuid).data : undefined);
      if (!ref) throw mispException(404, fromPath === undefined && !r.object_uuid ? "No object defined." : "Invalid object.");
      const uuid = await objectUuidOf(services, principal, ref);
      // The path names the object; the body's object_uuid does only without one.
      const added = await services.objects.addReference(principal, uuid, { ...reference(r), objectUuid: undefined, sourceUuid: undefined });
      const o = await services.objects.get(principal, uuid);
      return {
        ObjectReference: {
          uuid: added.uuid, object_id: String(o.id), event_id: String(o.eventId), object_uuid: o.uuid, source_uuid: o.uuid, referenced_uuid: added.referencedUuid,
          ...(added.referencedType !== null ? { referenced_type: String(added.referencedType) } : {}),
          relationship_type: added.relationshipType, comment: added.comment, timestamp: String(added.timestamp), deleted: added.deleted,
        },
      };
    },
  });

export const mispObjectRoutes = [
  referenceRoute(undefined),
  referenceRoute(z.object({ object_id: mispRef }).strict()),
  defineMispRoute({
    method: "POST", path: "/misp/objects/add/{event_id}", operationId: "mispAddObject",
    summary: "MISP objects/add: an object with its attributes (tags included) and ObjectReference, in one transaction (an invalid attribute: MISP's 403 \"Could not add Object\", nothing written); /breakOnDuplicate:1 is accepted and not applied",
    scopes: ["objects:create"], params: z.object({ event_id: mispRef }).strict(), status: 200, response: MispObjectBodySchema, body: z.unknown(),
    query: namedParams({ breakOnDuplicate: mispBool.optional() }),
    misp: { notFound: "Invalid event.", forbidden: "You do not have permission to do that.", saveFailed: "add Object" },
    handler: async ({ principal, params, body, services }) => {
      const eventUuid = await eventUuidOf(services, principal, params.event_id);
      if ((await services.events.get(principal, eventUuid)).deleted) throw errors.notFound("Event");
      const { input, tags } = objectCreate(body, eventUuid);
      let created = await services.objects.create(principal, input);
      for (const [uuid, names] of tags) for (const name of names) await services.attributes.tag(principal, uuid, name);
      if (tags.size) created = await services.objects.get(principal, created.uuid);
      return { Object: mispObjectOf(created) };
    },
  }),
  defineMispRoute({
    method: "POST", path: "/misp/objects/edit/{object_id}", operationId: "mispEditObject",
    summary: "MISP objects/edit (PyMISP's update_object): comment, template_version, distribution, sharing_group_id, first_seen, last_seen and deleted of the object; its attributes merged as MISP does (one of its uuids: changed; any other: added; its live attributes left out of a given Attribute list: soft-deleted), in one transaction (an invalid attribute: MISP's 403 \"Could not edit Object\", nothing written)",
    scopes: ["objects:update"], params: objectParam, status: 200, response: MispObjectBodySchema, body: z.unknown(),
    misp: { notFound: "Invalid object.", forbidden: "Insufficient permissions to edit this object.", saveFailed: "edit Object" },
    handler: async ({ principal, params, body, services }) => {
      const uuid = await objectUuidOf(services, principal, params.object_id);
      const current = await services.objects.get(principal, uuid);
      // MISP edits live objects only.
      if (current.deleted) throw errors.notFound("Object");
      const { patch, tags } = objectEdit(body, current);
      // Nothing to change is the service's refusal, after its rights check (MISP would only move the timestamp).
      let saved = await services.objects.update(principal, uuid, patch);
      for (const [attribute, names] of tags) for (const name of names) await services.attributes.tag(principal, attribute, name);
      if (tags.size) saved = await services.objects.get(principal, uuid);
      return { Object: mispObjectOf(saved) };
    },
  }),
  defineMispRoute({
    method: "GET", path: "/misp/objects/view/{object_id}", operationId: "mispViewObject", summary: "MISP objects/view: an object by numeric id or uuid with its attributes and references (HEAD: 200 or 404)",
    scopes: ["objects:read"], params: objectParam, status: 200, response: MispObjectBodySchema, misp: { notFound: "Invalid object." },
    handler: async ({ principal, params, services }) => {
      const o = await services.objects.get(principal, await objectUuidOf(services, principal, params.object_id));
      // MISP's objects/view does not show soft-deleted objects.
      if (o.deleted) throw errors.notFound("Object");
      return { Object: mispObjectOf(o) };
    },
  }),
  ...(["POST", "DELETE"] as const).map((method) =>
    defineMispRoute({
      method, path: "/misp/objects/delete/{object_id}", operationId: method === "POST" ? "mispDeleteObject" : "mispDeleteObjectByDelete",
      summary: "MISP objects/delete: soft-delete an object with its attributes and references; hard (/1, /hard:1 or {\"hard\": 1}) deletes it for good",
      scopes: ["objects:delete"], params: objectParam, status: 200, response: MispSavedSchema, body: z.unknown(),
      query: namedParams({ hard: mispBool.optional() }),
      misp: { notFound: "Invalid object.", forbidden: "You do not have permission to do that.", positional: ["hard"] },
      handler: async ({ principal, params, query, body, services }) => {
        const uuid = await objectUuidOf(services, principal, params.object_id);
        const hard = query.hard ?? parseInput(namedParams({ hard: mispBool.optional() }), body ?? {}).hard ?? false;
        const o = await services.objects.get(principal, uuid);
        // MISP soft-deletes live objects only: a deleted one is not found.
        if (!hard && o.deleted) throw errors.notFound("Object");
        await services.objects.delete(principal, uuid, { force: hard });
        return mispSaved("Object deleted", `/objects/delete/${o.eventId}`, String(o.eventId));
      },
    }),
  ),
];
