import { z } from "zod";
import type { AttributeView } from "../../src/modules/attributes/index.ts";
import { TagSchema, distribution, tagOut } from "./events.ts";
import type { CorrelationHit } from "../../src/modules/correlations/index.ts";
import { named, pageSchema } from "../contract.ts";

export const CorrelationHitSchema = named(
  "CorrelationHit",
  z.object({
    _index: z.literal("svc-correlations"),
    _id: z.string(),
    _score: z.null(),
    _source: z.record(z.string(), z.unknown()).describe("The correlation document: source and target attribute and event"),
  }),
  "A correlation, as the correlations index holds it",
);

const epoch = z.number().describe("Unix time in seconds");

export const AttributeSchema = named(
  "Attribute",
  z.object({
    uuid: z.uuid(),
    event_uuid: z.uuid(),
    object_uuid: z.uuid().nullable().describe("The object it belongs to; null for a standalone attribute"),
    object_relation: z.string().nullable(),
    category: z.string(),
    type: z.string().describe("A MISP attribute type (ip-dst, domain, md5, ...)"),
    value: z.string().describe("Normalised as stored; composite types as `a|b`"),
    to_ids: z.boolean().describe("Actionable for detection"),
    timestamp: epoch,
    first_seen: epoch.nullable(),
    last_seen: epoch.nullable(),
    distribution,
    sharing_group_id: z.int().nullable(),
    comment: z.string(),
    deleted: z.boolean(),
    disable_correlation: z.boolean(),
    tags: z.array(TagSchema),
    correlations: z.array(CorrelationHitSchema).nullable().describe("Correlations with this attribute as source: a list in list answers, null in item answers (as the peer)"),
    expanded: z.null().describe("Always null (the peer's field)"),
  }),
  "An attribute (the peer's Attribute response)",
);

export const AttributePageSchema = pageSchema("AttributePage", AttributeSchema);

export const epochOut = (d: Date | null) => (d ? Math.floor(d.getTime() / 1000) : null);

/**
 * The peer's Attribute response. `correlations` (raw correlation hits, the attribute as source) is
 * a list in list responses and null on item reads, as the peer.
 */
export function attributeOut(a: AttributeView, where: "list" | "item" = "item", correlations: CorrelationHit[] = []): z.output<typeof AttributeSchema> {
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
