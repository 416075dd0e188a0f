import { z } from "zod";
import { AppError, InputError, errors, parseInput } from "../../src/platform/errors.ts";
import { isDuplicateOf, type AttributeCreate, type AttributePatch, type AttributeView } from "../../src/modules/attributes/index.ts";
import { named } from "../contract.ts";
import { seenTime } from "../schemas.ts";
import { mispFieldErrors, mispSaveFailed } from "./misp-errors.ts";
import { attributeUuidOf, defineMispRoute, eventUuidOf, mispBool, mispRef, namedParams } from "./misp-route.ts";
import { MispAttributeSchema, mispAttribute } from "./misp-shapes.ts";

const MESSAGES = { notFound: "Invalid attribute", forbidden: "You do not have permission to do that." };
/** Attributes one attributes/add request may carry. */
export const MAX_ATTRIBUTES_PER_ADD = 1000;

const level = z.union([z.number().int(), z.string().regex(/^\d{1,10}$/).transform(Number)]);
const groupId = level.transform((n) => (n === 0 ? null : n)).nullable();

/**
 * An attribute as MISP clients send it: MISP's field names, numbers as strings, 0/1 booleans. The
 * fields MISP's server sets (id, event_id, timestamp, value1, ...) and those this slice does not
 * take (Sighting, Galaxy, ShadowAttribute) are ignored, as MISP ignores what it does not know.
 */
const mispAttributeFields = {
  category: z.string().max(255).optional(),
  to_ids: mispBool.optional(),
  distribution: level.optional(),
  sharing_group_id: groupId.optional(),
  comment: z.string().max(65_535).optional(),
  disable_correlation: mispBool.optional(),
  first_seen: seenTime.optional(),
  last_seen: seenTime.optional(),
  object_relation: z.string().max(255).nullable().optional(),
};
const value = z.union([z.string(), z.number()]).transform(String);
const mispAttributeInput = z
  .object({
    type: z.string().max(100),
    value,
    uuid: z.string().max(64).optional(),
    ...mispAttributeFields,
    Tag: z.array(z.object({ name: z.string() }).loose()).max(100).optional(),
  })
  .loose();
/** A MISP attribute (attributes/add, an object's Attribute[]) in the service's vocabulary, with the tag names it carries. */
export function parseMispAttribute(item: unknown): { input: AttributeCreate; tags: string[] } {
  const a = parseInput(mispAttributeInput, item);
  return {
    input: { ...common(a), type: a.type, value: a.value, ...(a.uuid ? { uuid: a.uuid } : {}), ...(a.object_relation != null ? { objectRelation: a.object_relation } : {}) },
    tags: (a.Tag ?? []).map((t) => String(t.name)),
  };
}

/**
 * MISP's multi-value form: `{"type": "ip-dst", "value": ["a", "b"]}` is one attribute per value,
 * the other fields shared (each gets its own uuid).
 */
function expandValues(items: unknown[]): unknown[] {
  return items.flatMap((item) => {
    if (!item || typeof item !== "object" || Array.isArray(item)) return [item];
    const { value, uuid: _uuid, ...rest } = item as Record<string, unknown>;
    return Array.isArray(value) ? value.map((v) => ({ ...rest, value: v })) : [item];
  });
}

const mispAttributeEdit = z.object({ type: z.string().max(100).optional(), value: value.optional(), ...mispAttributeFields }).loose();

const common = (a: z.output<typeof mispAttributeEdit>): AttributePatch => ({
  ...(a.type !== undefined ? { type: a.type } : {}),
  ...(a.value !== undefined ? { value: a.value } : {}),
  ...(a.category !== undefined ? { category: a.category } : {}),
  ...(a.to_ids !== undefined ? { toIds: a.to_ids } : {}),
  ...(a.distribution !== undefined ? { distribution: a.distribution } : {}),
  ...(a.sharing_group_id !== undefined ? { sharingGroupId: a.sharing_group_id } : {}),
  ...(a.comment !== undefined ? { comment: a.comment } : {}),
  ...(a.disable_correlation !== undefined ? { disableCorrelation: a.disable_correlation } : {}),
  ...(a.first_seen !== undefined ? { firstSeen: a.first_seen } : {}),
  ...(a.last_seen !== undefined ? { lastSeen: a.last_seen } : {}),
});

/**
 * A changed attribute of an object as MISP's objects/edit reads it (MispObject::deltaMerge): by its
 * uuid, the fields category, value, to_ids, distribution, sharing_group_id, comment,
 * disable_correlation, first_seen and last_seen (never the type), with the tag names it carries.
 */
export function parseMispAttributeChange(item: unknown): { uuid: string | undefined; patch: AttributePatch; tags: string[] } {
  const a = parseInput(mispAttributeEdit.extend({ uuid: z.string().max(64).optional(), Tag: mispAttributeInput.shape.Tag }), item);
  const { type: _type, ...patch } = common(a);
  return { uuid: a.uuid?.toLowerCase(), patch, tags: (a.Tag ?? []).map((t) => String(t.name)) };
}

/** What an attribute given again changes of the stored one (breakOnDuplicate:0): its fields but type, value and uuid. */
function patchOf(input: AttributeCreate): AttributePatch {
  const { type: _type, value: _value, uuid: _uuid, eventUuid: _event, objectUuid: _object, ...rest } = input as AttributeCreate & { eventUuid?: string; objectUuid?: string };
  return rest as AttributePatch;
}

/** `{"Attribute": x}` or x itself. */
const unwrap = (body: unknown, key: string): unknown =>
  body && typeof body === "object" && !Array.isArray(body) && key in body ? (body as Record<string, unknown>)[key] : body;

const eventParam = z.object({ event_id: mispRef }).strict();
const attributeParam = z.object({ attribute_id: mispRef }).strict();

const MispAttributeAddSchema = named(
  "MispAttributeAdd",
  z.object({ Attribute: z.union([MispAttributeSchema, z.array(MispAttributeSchema)]), errors: z.record(z.string(), z.unknown()).optional() }),
  "The attributes created (one: an object; several: a list) and, by position (attribute_0, ...), why the others were refused",
);
const MispAttributeBodySchema = named("MispAttributeBody", z.object({ Attribute: MispAttributeSchema }), "One attribute as MISP answers it");

/** MISP's refusal of a second live standalone attribute with the same type, value (and category, when given) in an event. */
const DUPLICATE = "A similar attribute already exists for this event.";
/** Only refusals of the input stay per attribute; any other error (access, the event) is the request's. */
const isRefusal = (err: unknown) => err instanceof InputError || (err instanceof AppError && ["validation_error", "conflict", "bad_request"].includes(err.code));

export const mispAttributeRoutes = [
  defineMispRoute({
    method: "POST", path: "/misp/attributes/add/{event_id}", operationId: "mispAddAttribute",
    summary: `MISP attributes/add: one attribute, a list, or one with a list of values (one attribute each) (at most ${MAX_ATTRIBUTES_PER_ADD}), each created alone; the refused ones are listed in errors by position (attribute_0, ...); none created is MISP's 403 "Could not add Attribute". As MISP, a live standalone attribute of the event with the same type, value (and category, when given) is a duplicate: refused ("${DUPLICATE}"), or with /breakOnDuplicate:0 (PyMISP's break_on_duplicate=False) updated with the fields given. The check and the write are two steps, not one transaction`,
    scopes: ["attributes:create"], params: eventParam, status: 200, response: MispAttributeAddSchema, body: z.unknown(),
    query: namedParams({ breakOnDuplicate: mispBool.optional() }),
    misp: { notFound: "Invalid event", forbidden: "You do not have permission to do that.", saveFailed: "add Attribute" },
    handler: async ({ principal, params, query, body, services }) => {
      const eventUuid = await eventUuidOf(services, principal, params.event_id);
      await services.events.get(principal, eventUuid);
      const breakOnDuplicate = query.breakOnDuplicate ?? true;
      const given = unwrap(body, "Attribute");
      const items = expandValues(Array.isArray(given) ? given : [given]);
      if (items.length === 0 || items.length > MAX_ATTRIBUTES_PER_ADD) throw errors.invalidInput(["Attribute"], `must hold 1 to ${MAX_ATTRIBUTES_PER_ADD} attributes`);
      const created = [];
      const fails: Record<string, unknown> = {};
      const refuse = (k: number, err: unknown) => {
        if (!isRefusal(err)) throw err;
        const e = err as AppError;
        fails[`attribute_${k}`] = typeof e.detail === "string" ? { value: [e.detail] } : mispFieldErrors(e.detail);
      };
      // Each item parsed first (a malformed one refused at its position), then one duplicate lookup for all of them.
      const parsed = items.map((item, k) => {
        try {
          // A standalone attribute has no object relation, whatever the client sent.
          const { input: { objectRelation: _relation, ...input }, tags } = parseMispAttribute(item);
          return { input, tags };
        } catch (err) {
          refuse(k, err);
          return null;
        }
      });
      const valid = parsed.flatMap((x) => (x ? [x.input] : []));
      const found = await services.attributes.duplicates(principal, { eventUuid, candidates: valid.map((a) => ({ type: a.type, value: a.value, ...(a.category ? { category: a.category } : {}) })) });
      const duplicateOf = new Map(valid.map((a, i) => [a, found[i]!]));
      // What this request stored: a later item equal to one of them is its duplicate, as MISP saving them in turn finds.
      const stored: AttributeView[] = [];
      for (const [k, item] of parsed.entries()) {
        if (!item) continue;
        const { input, tags } = item;
        try {
          const { key, existing } = duplicateOf.get(input)!;
          const duplicate = (key && stored.find((a) => isDuplicateOf(key, a))) || existing;
          if (duplicate && breakOnDuplicate) throw errors.invalidInput(["value"], DUPLICATE, input.value);
          const patch = duplicate ? patchOf(input) : {};
          let saved = !duplicate
            ? await services.attributes.create(principal, { ...input, eventUuid })
            : Object.keys(patch).length
              ? await services.attributes.update(principal, duplicate.uuid, patch)
              : duplicate;
          for (const name of tags) await services.attributes.tag(principal, saved.uuid, name);
          if (tags.length) saved = await services.attributes.get(principal, saved.uuid);
          stored.push(saved);
          created.push(mispAttribute(saved));
        } catch (err) {
          refuse(k, err);
        }
      }
      if (created.length === 0) throw mispSaveFailed("add Attribute", items.length === 1 ? fails.attribute_0 : fails);
      // MISP answers one created attribute as an object, several as a list.
      return { Attribute: created.length === 1 ? created[0] : created, ...(Object.keys(fails).length ? { errors: fails } : {}) };
    },
  }),
  defineMispRoute({
    method: "GET", path: "/misp/attributes/view/{attribute_id}", operationId: "mispViewAttribute", summary: "MISP attributes/view: an attribute by numeric id or uuid (HEAD: 200 or 404)",
    scopes: ["attributes:read"], params: attributeParam, status: 200, response: MispAttributeBodySchema, misp: MESSAGES,
    handler: async ({ principal, params, services }) => {
      const a = await services.attributes.get(principal, await attributeUuidOf(services, principal, params.attribute_id));
      return { Attribute: mispAttribute(a) };
    },
  }),
  defineMispRoute({
    method: "POST", path: "/misp/attributes/edit/{attribute_id}", operationId: "mispEditAttribute", summary: "MISP attributes/edit: change an attribute's type, value, category, to_ids, distribution, comment, correlation flag and seen times (other fields are ignored)",
    scopes: ["attributes:update"], params: attributeParam, status: 200, response: MispAttributeBodySchema, body: z.unknown(),
    misp: { ...MESSAGES, saveFailed: "edit Attribute" },
    handler: async ({ principal, params, body, services }) => {
      const uuid = await attributeUuidOf(services, principal, params.attribute_id);
      if ((await services.attributes.get(principal, uuid)).deleted) throw errors.notFound("Attribute");
      const patch = common(parseInput(mispAttributeEdit, unwrap(body, "Attribute") ?? {}));
      return { Attribute: mispAttribute(await services.attributes.update(principal, uuid, patch)) };
    },
  }),
  defineMispRoute({
    method: "POST", path: "/misp/attributes/delete/{attribute_id}", operationId: "mispDeleteAttribute", summary: "MISP attributes/delete: soft-delete an attribute; hard (/1, /hard:1 or {\"hard\": 1}) deletes it for good",
    scopes: ["attributes:delete"], params: attributeParam, status: 200, response: named("MispMessage", z.object({ message: z.string() })),
    query: namedParams({ hard: mispBool.optional() }), body: z.unknown(),
    misp: { ...MESSAGES, positional: ["hard"] },
    handler: async ({ principal, params, query, body, services }) => {
      const uuid = await attributeUuidOf(services, principal, params.attribute_id);
      const fromBody = parseInput(namedParams({ hard: mispBool.optional() }), body ?? {}).hard;
      const hard = query.hard ?? fromBody ?? false;
      // MISP soft-deletes live attributes only: a deleted one is not found.
      if (!hard && (await services.attributes.get(principal, uuid)).deleted) throw errors.notFound("Attribute");
      await services.attributes.delete(principal, uuid, { force: hard });
      return { message: "Attribute deleted." };
    },
  }),
];
