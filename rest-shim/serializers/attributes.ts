import type { AttributeView } from "../../src/modules/attributes/attribute-reader.ts";
import { tagOut } from "./events.ts";
import type { CorrelationHit } from "../../src/modules/correlations/correlations.service.ts";

export const epochOut = (d: Date | null) => (d ? Math.floor(d.getTime() / 1000) : null);

/**
 * The peer's Attribute response. `correlations` (raw correlation hits, the attribute as source) is
 * a list in list responses and null on item reads, as the peer.
 */
export function attributeOut(a: AttributeView, where: "list" | "item" = "item", correlations: CorrelationHit[] = []) {
  return {
    uuid: a.uuid,
    event_uuid: a.eventUuid,
    object_uuid: a.objectUuid,
    object_relation: a.objectRelation,
    category: a.category,
    type: a.type,
    value: a.value,
    to_ids: a.toIds,
    timestamp: a.timestamp,
    first_seen: epochOut(a.firstSeen),
    last_seen: epochOut(a.lastSeen),
    distribution: a.distribution,
    sharing_group_id: a.sharingGroupId,
    comment: a.comment,
    deleted: a.deleted,
    disable_correlation: a.disableCorrelation,
    tags: a.tags.map(tagOut),
    correlations: where === "list" ? correlations : null,
    expanded: null,
  };
}
