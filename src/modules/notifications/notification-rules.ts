/**
 * Which notifications a change record makes (spec 6.2), to whom (the followers of which list and
 * uuid), with which payload (spec 6.3, peer notes 5.1) and what a recipient must be allowed to read
 * to get it (the distribution rule, `src/auth/distribution.ts`). Values are never truncated.
 */
import type { ItemLevel } from "../../auth/distribution.ts";

export type FollowList = "events" | "attributes" | "objects" | "organisations";

export interface ChangeRecord {
  id: number;
  kind: string;
  entity_type: string;
  entity_uuid: string;
  event_uuid: string | null;
  payload: Record<string, unknown> | null;
}

/** What the notifier knows of the entities a range touches (rows that are gone are absent). */
export interface EventAccess {
  distribution: number;
  /** A deleted event's group as its deletion recorded it (records older than that keep none: level 4 then reads as the owners' only). */
  sharingGroupId?: number | null;
  orgId: number;
  orgcId: number;
}

export interface Context {
  events: Map<string, { info: string; orgcUuid: string; orgcName: string; deleted: boolean } & EventAccess>;
  /** Events deleted in the range: their access as the deletion recorded it. */
  deletedEvents: Map<string, EventAccess>;
  /** Levels with their sharing groups, as the rows hold them now. */
  attributes: Map<string, { type: string; value: string; objectUuid: string | null; eventUuid: string; level: ItemLevel; objectLevel: ItemLevel }>;
  objects: Map<string, { name: string; eventUuid: string; level: ItemLevel }>;
}

/** Something a recipient must be allowed to read: an event, and the levels of the items shown inside it. */
export interface ReadRequirement {
  eventUuid: string;
  items: ItemLevel[];
}

export interface Candidate {
  changeId: number;
  type: string;
  list: FollowList;
  followed: string;
  entityType: "event" | "attribute" | "object";
  entityUuid: string;
  eventUuid: string | null;
  payload: Record<string, unknown>;
  /** Every one must be readable by the recipient (none: the notification is about no event). */
  reads: ReadRequirement[];
}

const str = (v: unknown): string | null => (typeof v === "string" ? v : null);
const num = (v: unknown): number | null => (typeof v === "number" ? v : null);
/** A level nobody recorded (a row gone without it) reads as the owners' only. */
const UNKNOWN_LEVEL = 0;

/** A deleted row's level as its change record kept it, with its sharing group. */
function recordedLevel(p: Record<string, unknown>, prefix: "" | "object_"): ItemLevel {
  const distribution = num(p[`${prefix}distribution`]);
  if (distribution === null) return UNKNOWN_LEVEL;
  return { distribution, sharingGroupId: num(p[`${prefix}sharing_group_id`]) };
}

/** What reading an attribute takes: its event, its own level and its object's, from the row or the deletion's record. */
function attributeReads(uuid: string, eventUuid: string | null, p: Record<string, unknown>, ctx: Context): ReadRequirement[] {
  if (!eventUuid) return [];
  const a = ctx.attributes.get(uuid);
  if (a) return [{ eventUuid, items: [a.level, a.objectLevel] }];
  const objectLevel = p.object_uuid ? recordedLevel(p, "object_") : null;
  return [{ eventUuid, items: [recordedLevel(p, ""), objectLevel] }];
}
const VERB: Record<string, "created" | "updated" | "deleted"> = {
  created: "created",
  updated: "updated",
  deleted: "deleted",
  published: "updated",
  unpublished: "updated",
  tagged: "updated",
  untagged: "updated",
};

export function candidatesOf(r: ChangeRecord, ctx: Context): Candidate[] {
  const p = r.payload ?? {};
  const [entity, verbRaw, third] = r.kind.split(".");
  const base = { changeId: r.id };
  if (r.kind === "attribute.correlation.created") return correlation(r, p, ctx);
  if (r.kind === "sighting.created") {
    const attributeUuid = str(p.attribute_uuid);
    if (!attributeUuid) return [];
    const a = ctx.attributes.get(attributeUuid);
    return [
      {
        ...base, type: "attribute.sighting.created", list: "attributes", followed: attributeUuid, entityType: "attribute", entityUuid: attributeUuid, eventUuid: r.event_uuid,
        reads: attributeReads(attributeUuid, r.event_uuid, {}, ctx),
        payload: { sighting_value: str(p.value) ?? a?.value ?? "", sighting_type: str(p.sighting_type) ?? "", organisation: str(p.organisation) ?? "", timestamp: String(p.timestamp ?? ""), attribute_type: a?.type ?? "", attribute_uuid: attributeUuid, event_uuid: r.event_uuid ?? "" },
      },
    ];
  }
  const verb = third === undefined ? VERB[verbRaw] : undefined;
  if (!verb) return [];
  if (entity === "event") {
    const e = ctx.events.get(r.entity_uuid);
    const payload = {
      event_uuid: r.entity_uuid,
      event_name: e?.info ?? str(p.event_name) ?? "",
      organisation_uuid: e?.orgcUuid ?? str(p.organisation_uuid) ?? "",
      organisation_name: e?.orgcName ?? str(p.organisation_name) ?? "",
    };
    const reads = [{ eventUuid: r.entity_uuid, items: [] }];
    const out: Candidate[] = [{ ...base, type: `event.${verb}`, list: "events", followed: r.entity_uuid, entityType: "event", entityUuid: r.entity_uuid, eventUuid: r.entity_uuid, payload, reads }];
    if (verb !== "deleted" && payload.organisation_uuid) {
      out.push({ ...base, type: `organisation.event.${verb}`, list: "organisations", followed: payload.organisation_uuid, entityType: "event", entityUuid: r.entity_uuid, eventUuid: r.entity_uuid, payload, reads });
    }
    return out;
  }
  if (entity === "attribute") {
    // The hard delete of an attribute whose soft delete was already announced.
    if (p.announced === true) return [];
    const a = ctx.attributes.get(r.entity_uuid);
    const eventUuid = a?.eventUuid ?? r.event_uuid;
    const objectUuid = a?.objectUuid ?? str(p.object_uuid);
    const payload: Record<string, unknown> = {
      event_uuid: eventUuid ?? "",
      event_title: (eventUuid ? ctx.events.get(eventUuid)?.info : undefined) ?? str(p.event_title) ?? "",
      attribute_uuid: r.entity_uuid,
      attribute_value: a?.value ?? str(p.attribute_value) ?? "",
      attribute_type: a?.type ?? str(p.attribute_type) ?? "",
      ...(objectUuid ? { object_uuid: objectUuid } : {}),
    };
    const common = { ...base, entityType: "attribute" as const, entityUuid: r.entity_uuid, eventUuid, payload, reads: attributeReads(r.entity_uuid, eventUuid, p, ctx) };
    const out: Candidate[] = [{ ...common, type: `attribute.${verb}`, list: "attributes", followed: r.entity_uuid }];
    if (eventUuid) out.push({ ...common, type: `event.attribute.${verb}`, list: "events", followed: eventUuid });
    if (objectUuid) out.push({ ...common, type: "object.attribute.created", list: "objects", followed: objectUuid });
    return out;
  }
  if (entity === "object") {
    const o = ctx.objects.get(r.entity_uuid);
    const eventUuid = o?.eventUuid ?? r.event_uuid;
    const payload = {
      event_uuid: eventUuid ?? "",
      event_title: (eventUuid ? ctx.events.get(eventUuid)?.info : undefined) ?? str(p.event_title) ?? "",
      object_uuid: r.entity_uuid,
      object_name: o?.name ?? str(p.object_name) ?? "",
    };
    // Spec 6.2 names created and updated only: a deletion is an update of the object and of its event.
    const v = verb === "created" ? "created" : "updated";
    const level = o?.level ?? recordedLevel(p, "");
    const common = { ...base, entityType: "object" as const, entityUuid: r.entity_uuid, eventUuid, payload, reads: eventUuid ? [{ eventUuid, items: [level] }] : [] };
    const out: Candidate[] = [{ ...common, type: `object.${v}`, list: "objects", followed: r.entity_uuid }];
    if (eventUuid) out.push({ ...common, type: `event.object.${v}`, list: "events", followed: eventUuid });
    return out;
  }
  return [];
}

/**
 * A new pair: the followers of either attribute hear of it, each from their attribute's side, when
 * they may read both attributes.
 */
function correlation(r: ChangeRecord, p: Record<string, unknown>, ctx: Context): Candidate[] {
  const s = { attribute: str(p.source_attribute_uuid), event: str(p.source_event_uuid) };
  const t = { attribute: str(p.target_attribute_uuid), event: str(p.target_event_uuid) };
  if (!s.attribute || !t.attribute) return [];
  const payload = {
    source_attribute_uuid: s.attribute,
    source_event_uuid: s.event ?? "",
    target_event_uuid: t.event ?? "",
    target_attribute_uuid: t.attribute,
    target_attribute_type: str(p.target_attribute_type) ?? "",
    target_attribute_value: str(p.target_attribute_value) ?? "",
    match_type: str(p.match_type) ?? "",
    value: str(p.value) ?? "",
  };
  const mirrored = {
    ...payload,
    source_attribute_uuid: t.attribute,
    source_event_uuid: t.event ?? "",
    target_event_uuid: s.event ?? "",
    target_attribute_uuid: s.attribute,
    target_attribute_type: ctx.attributes.get(s.attribute)?.type ?? "",
    target_attribute_value: ctx.attributes.get(s.attribute)?.value ?? str(p.value) ?? "",
  };
  const type = "attribute.correlation.created";
  const reads = [...attributeReads(s.attribute, s.event, {}, ctx), ...attributeReads(t.attribute, t.event, {}, ctx)];
  // Without both events nothing is known of who may read the pair: nobody hears of it.
  if (reads.length < 2) return [];
  return [
    { changeId: r.id, type, list: "attributes", followed: s.attribute, entityType: "attribute", entityUuid: s.attribute, eventUuid: s.event, payload, reads },
    { changeId: r.id, type, list: "attributes", followed: t.attribute, entityType: "attribute", entityUuid: t.attribute, eventUuid: t.event, payload: mirrored, reads },
  ];
}
