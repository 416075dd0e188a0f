import type { EventView, TagView } from "../../src/modules/events/event-reader.ts";
import type { RelatedEvent } from "../../src/modules/correlations/correlation-aggregates.ts";

export function tagOut(t: TagView) {
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
  };
}

/** An event another one correlates with, as `related_events` lists it. */
function relatedEventOut(r: RelatedEvent) {
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
export function eventOut(e: EventView) {
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
export function eventReadOut(e: EventView, relatedEvents: RelatedEvent[]) {
  return { ...eventOut(e), related_events: relatedEvents.map(relatedEventOut) };
}
