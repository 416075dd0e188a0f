import { z } from "zod";
import { hasScope, isAdmin, type Principal } from "../../src/auth/principal.ts";
import type { AttributeView } from "../../src/modules/attributes/index.ts";
import { mispTime, type EventView, type TagView } from "../../src/modules/events/index.ts";
import type { StoredSighting } from "../../src/modules/sightings/index.ts";
import type { TagRecord } from "../../src/modules/tags/index.ts";
import { named } from "../contract.ts";

/**
 * MISP's JSON shapes for the MISP-compatible API: numbers as strings ("id": "12"), booleans as
 * booleans, `{"Event": {...}}`-style envelopes, and the numeric ids beside the uuids.
 */
const id = (n: number | string | null | undefined) => (n === null || n === undefined ? "0" : String(n));

const loose = z.record(z.string(), z.unknown());
const stringId = z.string().regex(/^\d+$/);

export const MispTagSchema = named(
  "MispTag",
  z.object({ id: stringId, name: z.string(), colour: z.string(), exportable: z.boolean() }).loose(),
  "A tag as MISP writes it (its numeric id as a string)",
);
export const MispAttributeSchema = named(
  "MispAttribute",
  z
    .object({
      id: stringId,
      event_id: stringId,
      object_id: stringId,
      uuid: z.uuid(),
      type: z.string(),
      category: z.string(),
      value: z.string(),
      to_ids: z.boolean(),
      distribution: z.string(),
      timestamp: z.string(),
      deleted: z.boolean(),
      Tag: z.array(MispTagSchema).optional(),
    })
    .loose(),
  "An attribute as MISP writes it",
);
export const MispEventSchema = named(
  "MispApiEvent",
  z.object({ Event: z.object({ id: stringId, uuid: z.uuid(), info: z.string(), orgc_id: stringId, org_id: stringId }).loose(), errors: z.unknown().optional() }),
  "An event as MISP answers it: its fields, Org, Orgc, Tag, Attribute, Object, EventReport; `errors` lists attributes left out",
);
export const MispEventIndexSchema = named("MispEventIndex", z.array(z.object({ id: stringId, uuid: z.uuid(), info: z.string() }).loose()), "Events' metadata, as MISP's event index");
export const MispSavedSchema = named(
  "MispSaved",
  z.object({ saved: z.literal(true), success: z.literal(true), name: z.string(), message: z.string(), url: z.string(), id: z.string().optional() }),
  "MISP's saveSuccessResponse",
);

/** MISP's saveSuccessResponse (`url` is MISP's own path of the action, without our prefix). */
export const mispSaved = (message: string, url: string, ref?: string) => ({ saved: true as const, success: true as const, name: message, message, url, ...(ref === undefined ? {} : { id: ref }) });

export function mispTagOfView(t: TagView) {
  return {
    id: id(t.id),
    name: t.name,
    colour: t.colour,
    exportable: t.exportable,
    hide_tag: t.hideTag,
    is_galaxy: t.isGalaxy,
    is_custom_galaxy: t.isCustomGalaxy,
    local_only: t.localOnly,
    numerical_value: t.numericalValue === null ? null : String(t.numericalValue),
    local: t.local,
  };
}

export function mispTag(t: TagRecord) {
  return {
    id: id(t.id),
    name: t.name,
    colour: t.colour,
    exportable: t.exportable,
    org_id: id(t.orgId),
    user_id: id(t.userId),
    hide_tag: t.hideTag,
    numerical_value: t.numericalValue === null ? null : String(t.numericalValue),
    is_galaxy: t.isGalaxy,
    is_custom_galaxy: t.isCustomGalaxy,
    local_only: t.localOnly,
  };
}

export function mispAttribute(a: AttributeView) {
  return {
    id: a.id,
    event_id: id(a.eventId),
    object_id: id(a.objectId),
    object_relation: a.objectRelation,
    category: a.category,
    type: a.type,
    value: a.value,
    to_ids: a.toIds,
    uuid: a.uuid,
    timestamp: id(a.timestamp),
    distribution: id(a.distribution),
    sharing_group_id: id(a.sharingGroupId),
    comment: a.comment,
    deleted: a.deleted,
    disable_correlation: a.disableCorrelation,
    first_seen: mispTime(a.firstSeen),
    last_seen: mispTime(a.lastSeen),
    Tag: a.tags.map(mispTagOfView),
  };
}

/**
 * An event's metadata as MISP's index lists it. Its attribute_count is MISP's events.attribute_count:
 * every live attribute, those inside objects too (read with `attributeCount: "all"`), of those the
 * caller may see.
 */
export function mispEventIndexItem(e: EventView) {
  return {
    id: id(e.id),
    org_id: id(e.orgId),
    orgc_id: id(e.orgcId),
    date: e.date,
    info: e.info,
    uuid: e.uuid,
    published: e.published,
    analysis: id(e.analysis),
    attribute_count: id(e.attributeCount),
    timestamp: id(e.timestamp),
    distribution: id(e.distribution),
    sharing_group_id: id(e.sharingGroupId),
    proposal_email_lock: e.proposalEmailLock,
    locked: e.locked,
    threat_level_id: id(e.threatLevel),
    publish_timestamp: id(e.publishTimestamp),
    sighting_timestamp: id(e.sightingTimestamp),
    disable_correlation: e.disableCorrelation,
    extends_uuid: e.extendsUuid ?? "",
    protected: e.protected,
    Org: { id: id(e.org.id), name: e.org.name, uuid: e.org.uuid },
    Orgc: { id: id(e.orgc.id), name: e.orgc.name, uuid: e.orgc.uuid },
    EventTag: e.tags.map((t) => ({ event_id: id(e.id), tag_id: id(t.id), local: t.local, Tag: mispTagOfView(t) })),
  };
}

export function mispSighting(s: StoredSighting) {
  return {
    id: id(s.id),
    attribute_id: id(s.attributeId),
    event_id: id(s.eventId),
    org_id: id(s.orgId),
    date_sighting: id(s.dateSighting),
    uuid: s.uuid,
    source: s.source,
    type: id(s.type),
  };
}

/**
 * MISP's role permissions, read from the caller's scopes (the role ∩ the key's scopes): what the
 * caller may do here, in the flags MISP clients check.
 */
export function mispPermissions(p: Principal): Record<string, boolean> {
  const can = (scope: string) => hasScope(p, scope);
  return {
    perm_add: can("events:create"),
    perm_modify: can("events:update"),
    perm_modify_org: can("events:update"),
    perm_publish: can("events:publish"),
    perm_delegate: false,
    perm_sync: can("events:sync"),
    perm_admin: can("users:create"),
    perm_audit: can("audit_logs:admin"),
    perm_auth: can("api_keys:create"),
    perm_site_admin: isAdmin(p),
    perm_regexp_access: false,
    perm_tagger: can("events:tag"),
    perm_template: false,
    perm_sharing_group: can("sharing_groups:create"),
    perm_tag_editor: can("tags:create"),
    perm_sighting: can("sightings:create"),
    perm_object_template: false,
    perm_galaxy_editor: can("galaxies:update"),
    perm_warninglist: can("warninglists:update"),
    perm_analyst_data: false,
    perm_decaying: false,
    perm_publish_zmq: false,
    perm_publish_kafka: false,
    perm_view_feed_correlations: can("correlations:read"),
    perm_skip_otp: false,
    perm_server_sign: false,
  };
}

export const MispVersionSchema = named(
  "MispVersion",
  z.object({
    version: z.string(),
    pymisp_recommended_version: z.string(),
    perm_sync: z.boolean(),
    perm_sighting: z.boolean(),
    perm_galaxy_editor: z.boolean(),
    perm_analyst_data: z.boolean(),
    uuid: z.string(),
    request_encoding: z.array(z.string()),
    filter_sightings: z.boolean(),
  }),
  "servers/getVersion: the MISP version this API speaks and the caller's sync, sighting and galaxy-editor permissions",
);

export const MispUserViewSchema = named(
  "MispUserView",
  z.object({
    User: z.object({ id: stringId, email: z.string(), org_id: stringId, role_id: stringId }).loose(),
    Role: z.object({ id: stringId, name: z.string() }).catchall(z.union([z.boolean(), z.string()])),
    UserSetting: loose,
    Organisation: z.object({ id: stringId, uuid: z.uuid(), name: z.string() }).loose(),
  }),
  "users/view/me: the caller, their role with MISP's perm_* flags (from their scopes), settings and organisation",
);

export const MispDescribeTypesSchema = named(
  "MispDescribeTypes",
  z.object({
    result: z.object({
      sane_defaults: z.record(z.string(), z.object({ default_category: z.string(), to_ids: z.union([z.literal(0), z.literal(1)]) })),
      types: z.array(z.string()),
      categories: z.array(z.string()),
      category_type_mappings: z.record(z.string(), z.array(z.string())),
    }),
  }),
  "attributes/describeTypes.json: the attribute types and categories this instance accepts",
);
