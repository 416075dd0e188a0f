import { z } from "zod";
import type { AttributeView } from "../../src/modules/attributes/index.ts";
import { TagSchema, distribution, tagOut } from "./events.ts";
import type { CorrelationHit } from "../../src/modules/correlations/index.ts";
import { named, pageSchema } from "../contract.ts";
import { warningsField } from "./warninglists.ts";

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
    warnings: warningsField,
    tags: z.array(TagSchema),
    correlations: z.array(CorrelationHitSchema).nullable().describe("Correlations with this attribute as source: a list in list answers, null in item answers (as the peer)"),
    expanded: z.null().describe("Always null (the peer's field)"),
  }),
  "An attribute (the peer's Attribute response)",
  {
    uuid: "9b2d4c1e-7a3f-4b5c-8d6e-1f2a3b4c5d6e",
    event_uuid: "4f1c2a9e-6b7d-4e21-9c3a-2d5e8f0a1b2c",
    object_uuid: null,
    object_relation: null,
    category: "Network activity",
    type: "domain",
    value: "login-microsoft-verify.example",
    to_ids: true,
    timestamp: 1768473600,
    first_seen: null,
    last_seen: null,
    distribution: 5,
    sharing_group_id: null,
    comment: "Phishing landing page",
    deleted: false,
    disable_correlation: false,
    warnings: [],
    tags: [{ id: 40, name: "kill-chain:Delivery", colour: "#0088cc", exportable: true, hide_tag: false, is_galaxy: false, is_custom_galaxy: false, local_only: false, numerical_value: null, local: false, machine_tag: { namespace: "kill-chain", predicate: "Delivery", value: null } }],
    correlations: null,
    expanded: null,
  },
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
    warnings: a.warnings.map((w) => ({ id: w.id, name: w.name })),
    tags: a.tags.map(tagOut),
    correlations: where === "list" ? correlations : null,
    expanded: null,
  };
}
