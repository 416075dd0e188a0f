/**
 * The fields of the search documents (`src/indexing/documents.ts`) the exporter uses, read
 * from an untyped `_source`. The documents are ours, but they come back from a search backend as
 * JSON, so every field is checked rather than cast: a document that lacks what an export needs is
 * skipped, never exported half-formed.
 *
 * Attribute documents hold the whole `value` only (no value1/value2): composite values are split
 * again here with the catalogue's rule. They carry the numeric ids of the event's organisations, not
 * their uuids or names: those come from the event document.
 */

export interface AttributeSource {
  uuid: string;
  eventUuid: string;
  objectUuid: string | null;
  objectRelation: string | null;
  category: string;
  type: string;
  value: string;
  comment: string;
  toIds: boolean;
  deleted: boolean;
  /** MISP seconds. */
  timestamp: number;
  firstSeen: number | null;
  lastSeen: number | null;
  tags: string[];
  /** The event's creator organisation (`event_orgc_id`). */
  orgcId: number | null;
}

export interface Organisation {
  uuid: string;
  name: string;
}

export interface EventSource {
  uuid: string;
  info: string;
  /** `YYYY-MM-DD`. */
  date: string | null;
  timestamp: number;
  publishTimestamp: number;
  published: boolean;
  /** Soft-deleted (its attributes' documents say so too). */
  deleted: boolean;
  orgcId: number | null;
  orgc: Organisation | null;
  tags: string[];
}

type Source = Record<string, unknown>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const str = (v: unknown): string | null => (typeof v === "string" ? v : null);
const uuid = (v: unknown): string | null => (typeof v === "string" && UUID.test(v) ? v.toLowerCase() : null);
/** Long fields may come back as strings from some backends' JSON. */
const int = (v: unknown): number | null => {
  const n = typeof v === "string" && /^-?\d+$/.test(v) ? Number(v) : v;
  return typeof n === "number" && Number.isSafeInteger(n) ? n : null;
};
const bool = (v: unknown): boolean | null => (typeof v === "boolean" ? v : null);

/** Tags are `{name, colour, local, is_galaxy}` objects in the documents; plain names are accepted too. */
function tagNames(v: unknown): string[] {
  if (!Array.isArray(v)) return [];
  const names: string[] = [];
  for (const t of v) {
    const name = typeof t === "string" ? t : t !== null && typeof t === "object" ? str((t as Source).name) : null;
    if (name) names.push(name);
  }
  return names;
}

function organisation(v: unknown): Organisation | null {
  if (v === null || typeof v !== "object") return null;
  const o = v as Source;
  const id = uuid(o.uuid);
  const name = str(o.name);
  return id && name ? { uuid: id, name } : null;
}

export function readAttributeSource(s: Source): AttributeSource | null {
  const id = uuid(s.uuid);
  const eventUuid = uuid(s.event_uuid);
  const type = str(s.type);
  const value = str(s.value);
  const timestamp = int(s.timestamp);
  if (!id || !eventUuid || !type || value === null || timestamp === null) return null;
  return {
    uuid: id,
    eventUuid,
    objectUuid: uuid(s.object_uuid),
    objectRelation: str(s.object_relation),
    category: str(s.category) ?? "",
    type,
    value,
    comment: str(s.comment) ?? "",
    toIds: bool(s.to_ids) ?? false,
    deleted: bool(s.deleted) ?? false,
    timestamp,
    firstSeen: int(s.first_seen),
    lastSeen: int(s.last_seen),
    tags: tagNames(s.tags),
    orgcId: int(s.event_orgc_id),
  };
}

export function readEventSource(s: Source): EventSource | null {
  const id = uuid(s.uuid);
  const timestamp = int(s.timestamp);
  if (!id || timestamp === null) return null;
  const date = str(s.date);
  return {
    uuid: id,
    info: str(s.info) ?? "",
    date: date && /^\d{4}-\d{2}-\d{2}$/.test(date) ? date : null,
    timestamp,
    publishTimestamp: int(s.publish_timestamp) ?? 0,
    published: bool(s.published) ?? false,
    deleted: bool(s.deleted) ?? false,
    orgcId: int(s.orgc_id),
    orgc: organisation(s.orgc),
    tags: tagNames(s.tags),
  };
}
