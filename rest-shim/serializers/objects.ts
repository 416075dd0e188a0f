import type { ObjectView, ReferenceView } from "../../src/modules/objects/object-reader.ts";
import { attributeOut, epochOut } from "./attributes.ts";
import type { CorrelationHit } from "../../src/modules/correlations/correlations.service.ts";

/** The peer's ObjectReference fields (`source_uuid` is the owning object; `referenced_id` has no meaning here). */
export function referenceOut(r: ReferenceView) {
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
export function objectOut(o: ObjectView, correlations?: Map<string, CorrelationHit[]>) {
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
