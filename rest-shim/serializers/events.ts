import { z } from "zod";
import type { EventView, TagView } from "../../src/modules/events/index.ts";
import type { RelatedEvent } from "../../src/modules/correlations/index.ts";
import { parseMachineTag } from "../../src/modules/tags/index.ts";
import { named, pageSchema } from "../contract.ts";
import { MachineTagSchema } from "./tags.ts";

const uuid = z.uuid();
const epochSeconds = z.number().describe("Unix time in seconds");
/** The peer writes event dates as a date-time at midnight, without a zone. */
const eventDate = z.string().regex(/^\d{4}-\d{2}-\d{2}T00:00:00$/).describe("The event's date, as YYYY-MM-DDT00:00:00");
const threatLevel = z.int().min(1).max(4).describe("MISP threat level: 1 high, 2 medium, 3 low, 4 undefined");
const analysis = z.int().min(0).max(2).describe("MISP analysis: 0 initial, 1 ongoing, 2 complete");
export const distribution = z.int().min(0).max(5).describe("MISP distribution: 0 your organisation, 1 this community, 2 connected communities, 3 all, 4 sharing group, 5 inherit the event's");

export const TagSchema = named(
  "EventTag",
  z.object({
    id: z.int(),
    name: z.string(),
    colour: z.string(),
    exportable: z.boolean(),
    hide_tag: z.boolean(),
    is_galaxy: z.boolean(),
    is_custom_galaxy: z.boolean(),
    local_only: z.boolean(),
    numerical_value: z.number().nullable(),
    local: z.boolean().describe("Attached locally: not shared beyond this instance"),
    machine_tag: MachineTagSchema,
  }),
  "A tag as attached to an event or attribute",
  {
    id: 12, name: "tlp:amber", colour: "#ffc000", exportable: true, hide_tag: false, is_galaxy: false, is_custom_galaxy: false, local_only: false, numerical_value: null,
    local: false, machine_tag: { namespace: "tlp", predicate: "amber", value: null },
  },
);

export const OrganisationRefSchema = named("OrganisationRef", z.object({ id: z.int(), uuid, name: z.string() }), "An organisation, as events name their owner and creator");

const RelatedEventSchema = named(
  "RelatedEvent",
  z.object({
    uuid,
    info: z.string(),
    date: eventDate,
    threat_level: threatLevel,
    analysis,
    distribution,
    published: z.boolean(),
    timestamp: epochSeconds,
    organisation: OrganisationRefSchema,
    orgc: OrganisationRefSchema,
    correlation_count: z.int().min(0).describe("Pairs of correlating attributes between the two events"),
  }),
  "An event another one correlates with",
);

export const EventSchema = named(
  "Event",
  z.object({
    uuid,
    info: z.string(),
    org_id: z.int(),
    orgc_id: z.int(),
    user_id: z.int().nullable(),
    date: eventDate,
    published: z.boolean(),
    analysis,
    threat_level: threatLevel,
    distribution,
    sharing_group_id: z.int().nullable(),
    attribute_count: z.int().min(0),
    object_count: z.int().min(0),
    timestamp: epochSeconds,
    publish_timestamp: epochSeconds,
    sighting_timestamp: epochSeconds.nullable(),
    proposal_email_lock: z.boolean(),
    locked: z.boolean(),
    protected: z.boolean(),
    deleted: z.boolean().describe("Soft-deleted: readable and restorable, left out of search, hunts and correlations"),
    disable_correlation: z.boolean(),
    extends_uuid: uuid.nullable(),
    tags: z.array(TagSchema),
    retention: z
      .object({ status: z.enum(["expired", "expiring"]), expires_in_days: z.int() })
      .nullable()
      .describe("The retention badge: expired, or expiring within the warning period; null otherwise"),
    organisation: OrganisationRefSchema,
    orgc: OrganisationRefSchema,
    attributes: z.array(z.never()).describe("Always empty: attributes are read through /attributes/"),
    objects: z.array(z.never()).describe("Always empty: objects are read through /objects/"),
  }),
  "An event (the peer's Event response)",
  {
    uuid: "4f1c2a9e-6b7d-4e21-9c3a-2d5e8f0a1b2c",
    info: "OSINT - Phishing campaign delivering AgentTesla",
    org_id: 1,
    orgc_id: 1,
    user_id: 3,
    date: "2026-01-15T00:00:00",
    published: true,
    analysis: 2,
    threat_level: 2,
    distribution: 1,
    sharing_group_id: null,
    attribute_count: 42,
    object_count: 3,
    timestamp: 1768473600,
    publish_timestamp: 1768477200,
    sighting_timestamp: null,
    proposal_email_lock: false,
    locked: false,
    protected: false,
    deleted: false,
    disable_correlation: false,
    extends_uuid: null,
    tags: [{ id: 12, name: "tlp:amber", colour: "#ffc000", exportable: true, hide_tag: false, is_galaxy: false, is_custom_galaxy: false, local_only: false, numerical_value: null, local: false, machine_tag: { namespace: "tlp", predicate: "amber", value: null } }],
    retention: null,
    organisation: { id: 1, uuid: "5f6e7d8c-1b2a-4c3d-9e8f-0a1b2c3d4e5f", name: "CIRCL" },
    orgc: { id: 1, uuid: "5f6e7d8c-1b2a-4c3d-9e8f-0a1b2c3d4e5f", name: "CIRCL" },
    attributes: [],
    objects: [],
  },
);
export type EventOut = z.output<typeof EventSchema>;

export const EventDetailSchema = named(
  "EventDetail",
  EventSchema.extend({ related_events: z.array(RelatedEventSchema).describe("Events this one correlates with, most correlations first") }),
  "An event with the events it correlates with",
);

export const EventPageSchema = pageSchema("EventPage", EventSchema);

export function tagOut(t: TagView): z.output<typeof TagSchema> {
  return {
    id: t.id,
    name: t.name,
    colour: t.colour,
    exportable: t.exportable,
    hide_tag: t.hideTag,
    is_galaxy: t.isGalaxy,
    is_custom_galaxy: t.isCustomGalaxy,
    local_only: t.localOnly,
    numerical_value: t.numericalValue,
    local: t.local,
    machine_tag: parseMachineTag(t.name),
  };
}

/** An event another one correlates with, as `related_events` lists it. */
export function relatedEventOut(r: RelatedEvent): z.output<typeof RelatedEventSchema> {
  return {
    uuid: r.uuid,
    info: r.info,
    date: `${r.date}T00:00:00`,
    threat_level: r.threatLevel,
    analysis: r.analysis,
    distribution: r.distribution,
    published: r.published,
    timestamp: r.timestamp,
    organisation: r.org,
    orgc: r.orgc,
    correlation_count: r.correlationCount,
  };
}

/** The peer's Event response (attributes and objects are read through their own routes). */
export function eventOut(e: EventView): EventOut {
  return {
    uuid: e.uuid,
    info: e.info,
    org_id: e.orgId,
    orgc_id: e.orgcId,
    user_id: e.userId,
    date: `${e.date}T00:00:00`,
    published: e.published,
    analysis: e.analysis,
    threat_level: e.threatLevel,
    distribution: e.distribution,
    sharing_group_id: e.sharingGroupId,
    attribute_count: e.attributeCount,
    object_count: e.objectCount,
    timestamp: e.timestamp,
    publish_timestamp: e.publishTimestamp,
    sighting_timestamp: e.sightingTimestamp,
    proposal_email_lock: e.proposalEmailLock,
    locked: e.locked,
    protected: e.protected,
    deleted: e.deleted,
    disable_correlation: e.disableCorrelation,
    extends_uuid: e.extendsUuid,
    tags: e.tags.map(tagOut),
    retention: e.retention ?? null,
    organisation: e.org,
    orgc: e.orgc,
    attributes: [],
    objects: [],
  };
}

/** GET /events/{uuid}: the Event response plus `related_events` (ours; lists leave it out to stay light). */
export function eventReadOut(e: EventView, relatedEvents: RelatedEvent[]): z.output<typeof EventDetailSchema> {
  return { ...eventOut(e), related_events: relatedEvents.map(relatedEventOut) };
}
