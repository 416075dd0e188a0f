import { z } from "zod";
import type { ObjectView, ReferenceView } from "../../src/modules/objects/index.ts";
import { AttributeSchema, attributeOut, epochOut } from "./attributes.ts";
import { distribution } from "./events.ts";
import { named, pageSchema } from "../contract.ts";

const epoch = z.number().describe("Unix time in seconds");

export const ObjectReferenceSchema = named(
  "ObjectReference",
  z.object({
    uuid: z.uuid(),
    object_uuid: z.uuid(),
    event_uuid: z.uuid(),
    source_uuid: z.uuid().describe("The owning object (same as object_uuid)"),
    referenced_uuid: z.uuid().describe("The attribute or object referenced"),
    referenced_id: z.null().describe("Always null: references are by uuid here"),
    referenced_type: z.int().nullable().describe("0 attribute, 1 object"),
    relationship_type: z.string(),
    comment: z.string(),
    timestamp: epoch,
    deleted: z.boolean(),
  }),
);

export const ObjectSchema = named(
  "MispObject",
  z.object({
    uuid: z.uuid(),
    event_uuid: z.uuid(),
    name: z.string().describe("The object template's name (file, domain-ip, ...)"),
    meta_category: z.string().nullable(),
    description: z.string().nullable(),
    template_uuid: z.uuid().nullable(),
    template_version: z.int().nullable(),
    timestamp: epoch,
    distribution,
    sharing_group_id: z.int().nullable(),
    comment: z.string(),
    deleted: z.boolean(),
    first_seen: epoch.nullable(),
    last_seen: epoch.nullable(),
    attributes: z.array(AttributeSchema),
    object_references: z.array(ObjectReferenceSchema),
  }),
  "A MISP object: attributes grouped by a template, with its references",
);

export const ObjectPageSchema = pageSchema("MispObjectPage", ObjectSchema);
import type { CorrelationHit } from "../../src/modules/correlations/index.ts";

/** The peer's ObjectReference fields (`source_uuid` is the owning object; `referenced_id` has no meaning here). */
export function referenceOut(r: ReferenceView): z.output<typeof ObjectReferenceSchema> {
  return {
    uuid: r.uuid,
    object_uuid: r.objectUuid,
    event_uuid: r.eventUuid,
    source_uuid: r.objectUuid,
    referenced_uuid: r.referencedUuid,
    referenced_id: null,
    referenced_type: r.referencedType,
    relationship_type: r.relationshipType,
    comment: r.comment,
    timestamp: r.timestamp,
    deleted: r.deleted,
  };
}

/**
 * The peer's Object response; unlike the peer, `object_references` holds the object's references.
 * Its attributes carry their correlations when the caller passes them (list and item reads).
 */
export function objectOut(o: ObjectView, correlations?: Map<string, CorrelationHit[]>): z.output<typeof ObjectSchema> {
  return {
    uuid: o.uuid,
    event_uuid: o.eventUuid,
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
    first_seen: epochOut(o.firstSeen),
    last_seen: epochOut(o.lastSeen),
    attributes: o.attributes.map((a) => attributeOut(a, "list", correlations?.get(a.uuid))),
    object_references: o.references.map(referenceOut),
  };
}
