import { readableSql } from "../../auth/distribution.ts";
import type { Principal } from "../../auth/principal.ts";
import type { Sql } from "../../platform/db/transaction.ts";
import type { TagView } from "../events/index.ts";
import type { Warning } from "../warninglists/index.ts";

/** The event fields access rules and change records need, read with every attribute. */
export interface EventRef {
  id: number;
  uuid: string;
  info: string;
  distribution: number;
  /** Its sharing group (distribution 4); absent where a reader does not load it: level 4 then reads as the owners' only. */
  sharingGroupId?: number | null;
  orgId: number;
  orgcId: number;
}

export interface AttributeView {
  id: string;
  uuid: string;
  eventId: number;
  eventUuid: string;
  objectId: number | null;
  objectUuid: string | null;
  /** The distribution of the attribute's object (null outside any object): part of who may read it. */
  objectDistribution: number | null;
  objectSharingGroupId: number | null;
  objectRelation: string | null;
  /** Its object's name and meta-category (null outside any object): MISP's csv columns. */
  objectName: string | null;
  objectMetaCategory: string | null;
  type: string;
  category: string;
  value: string;
  value1: string;
  value2: string | null;
  toIds: boolean;
  comment: string;
  distribution: number;
  sharingGroupId: number | null;
  timestamp: number;
  firstSeen: Date | null;
  lastSeen: Date | null;
  deleted: boolean;
  disableCorrelation: boolean;
  /** Its hits on the enabled warninglists, as stored when its value was written or the lists changed. */
  warnings: Warning[];
  tags: TagView[];
  event: EventRef;
}

const TAGS_JSON = `COALESCE((SELECT json_agg(json_build_object('id', t.id, 'name', t.name, 'colour', t.colour, 'exportable', t.exportable,
       'hideTag', t.hide_tag, 'isGalaxy', t.is_galaxy, 'isCustomGalaxy', t.is_custom_galaxy, 'localOnly', t.local_only,
       'numericalValue', t.numerical_value, 'local', at.local) ORDER BY t.name)
     FROM attribute_tags at JOIN tags t ON t.id = at.tag_id WHERE at.attribute_id = a.id), '[]')`;

/** `a` attributes, `e` its event, `o` its object (outer join): callers add WHERE and ORDER. */
export const ATTRIBUTE_FROM = `FROM attributes a JOIN events e ON e.id = a.event_id LEFT JOIN objects o ON o.id = a.object_id`;

const ATTRIBUTE_COLUMNS = `
         a.id::text, a.uuid::text, a.event_id, a.object_id, a.object_relation, a.type, a.category, a.value, a.value1, a.value2,
         a.to_ids, a.comment, a.distribution, a.sharing_group_id, a.timestamp, a.first_seen, a.last_seen, a.deleted,
         a.disable_correlation, a.warnings, o.uuid::text AS object_uuid, o.name AS object_name, o.meta_category AS object_meta_category, o.distribution AS object_distribution, o.sharing_group_id AS object_sharing_group_id, e.uuid::text AS event_uuid, e.info AS event_info,
         e.distribution AS event_distribution, e.sharing_group_id AS event_sharing_group_id, e.org_id AS event_org_id, e.orgc_id AS event_orgc_id, ${TAGS_JSON} AS tags`;
const ATTRIBUTE_SELECT = `SELECT ${ATTRIBUTE_COLUMNS} ${ATTRIBUTE_FROM}`;

/** A row of ATTRIBUTE_SELECT (the id as text: attributes.id is a bigint beyond 2^53 in principle). */
interface AttributeRow {
  id: string;
  uuid: string;
  event_id: number;
  object_id: number | null;
  object_relation: string | null;
  type: string;
  category: string;
  value: string;
  value1: string;
  value2: string | null;
  to_ids: boolean;
  comment: string;
  distribution: number;
  sharing_group_id: number | null;
  timestamp: number;
  first_seen: Date | null;
  last_seen: Date | null;
  deleted: boolean;
  disable_correlation: boolean;
  warnings: Warning[];
  object_uuid: string | null;
  object_name: string | null;
  object_meta_category: string | null;
  object_distribution: number | null;
  object_sharing_group_id: number | null;
  event_uuid: string;
  event_info: string;
  event_distribution: number;
  event_sharing_group_id: number | null;
  event_org_id: number;
  event_orgc_id: number;
  tags: TagView[];
}

function toAttributeView(r: AttributeRow): AttributeView {
  return {
    id: r.id,
    uuid: r.uuid,
    eventId: r.event_id,
    eventUuid: r.event_uuid,
    objectId: r.object_id,
    objectUuid: r.object_uuid,
    objectDistribution: r.object_distribution,
    objectSharingGroupId: r.object_sharing_group_id,
    objectRelation: r.object_relation,
    objectName: r.object_name,
    objectMetaCategory: r.object_meta_category,
    type: r.type,
    category: r.category,
    value: r.value,
    value1: r.value1,
    value2: r.value2,
    toIds: r.to_ids,
    comment: r.comment,
    distribution: r.distribution,
    sharingGroupId: r.sharing_group_id,
    timestamp: Number(r.timestamp),
    firstSeen: r.first_seen,
    lastSeen: r.last_seen,
    deleted: r.deleted,
    disableCorrelation: r.disable_correlation,
    warnings: r.warnings,
    tags: r.tags,
    event: {
      id: r.event_id,
      uuid: r.event_uuid,
      info: r.event_info,
      distribution: r.event_distribution,
      sharingGroupId: r.event_sharing_group_id,
      orgId: r.event_org_id,
      orgcId: r.event_orgc_id,
    },
  };
}

export async function loadAttribute(sql: Sql, uuid: string): Promise<AttributeView | null> {
  const { rows } = await sql.query<AttributeRow>(`${ATTRIBUTE_SELECT} WHERE a.uuid = $1`, [uuid]);
  return rows[0] ? toAttributeView(rows[0]) : null;
}

/** The attributes with these uuids that exist, in no particular order (one statement for a page of them). */
export async function loadAttributesByUuid(sql: Sql, uuids: readonly string[]): Promise<AttributeView[]> {
  if (uuids.length === 0) return [];
  const { rows } = await sql.query<AttributeRow>(`${ATTRIBUTE_SELECT} WHERE a.uuid = ANY($1::uuid[])`, [uuids]);
  return rows.map(toAttributeView);
}

export async function listAttributes(sql: Sql, where: string, params: unknown[], limit: number, offset: number): Promise<{ items: AttributeView[]; total: number }> {
  const page = await sql.query<AttributeRow>(`${ATTRIBUTE_SELECT} WHERE ${where} ORDER BY a.timestamp DESC, a.id DESC LIMIT ${limit} OFFSET ${offset}`, params);
  const count = await sql.query<{ n: number }>(`SELECT count(*)::int AS n ${ATTRIBUTE_FROM} WHERE ${where}`, params);
  return { items: page.rows.map(toAttributeView), total: count.rows[0].n };
}

/**
 * The attributes of these objects that `reader` may see, oldest first. A live object shows its live
 * attributes; a soft-deleted object shows all of them (they were deleted with it).
 */
export async function attributesOfObjects(sql: Sql, objectIds: number[], reader: Principal): Promise<Map<number, AttributeView[]>> {
  const byObject = new Map<number, AttributeView[]>();
  if (objectIds.length === 0) return byObject;
  const params: unknown[] = [objectIds];
  const readable = readableSql(reader, "e", ["a.distribution", "o.distribution"], params);
  const { rows } = await sql.query<AttributeRow>(`${ATTRIBUTE_SELECT} WHERE a.object_id = ANY($1::int[]) AND (NOT a.deleted OR o.deleted) AND ${readable} ORDER BY a.id`, params);
  for (const r of rows.map(toAttributeView)) {
    const list = byObject.get(r.objectId!) ?? [];
    list.push(r);
    byObject.set(r.objectId!, list);
  }
  return byObject;
}

/** What makes a standalone attribute a duplicate of another in its event (MISP's valueIsUnique): type, value and, when given, category. */
export interface DuplicateKey {
  type: string;
  value: string;
  category: string | null;
}

/** Whether a live standalone attribute is a duplicate under this key (what standaloneDuplicates matches, for attributes already in hand). */
export const isDuplicateOf = (key: DuplicateKey, a: Pick<AttributeView, "type" | "value" | "category">): boolean =>
  a.type === key.type && a.value === key.value && (key.category === null || a.category === key.category);

/**
 * For each key, the newest live standalone attribute of the event that `reader` may see with that
 * type and value (and category, when the key has one), or null: one statement for the whole list.
 */
export async function standaloneDuplicates(sql: Sql, eventUuid: string, keys: readonly DuplicateKey[], reader: Principal): Promise<(AttributeView | null)[]> {
  if (keys.length === 0) return [];
  const params: unknown[] = [keys.map((k) => k.type), keys.map((k) => k.value), keys.map((k) => k.category), eventUuid];
  const readable = readableSql(reader, "e", ["a.distribution", "o.distribution"], params);
  const { rows } = await sql.query<AttributeRow & { i: number }>(
    `SELECT DISTINCT ON (c.i) c.i::int AS i, ${ATTRIBUTE_COLUMNS}
       FROM unnest($1::text[], $2::text[], $3::text[]) WITH ORDINALITY AS c(type, value, category, i)
       JOIN attributes a ON a.type = c.type AND a.value = c.value AND (c.category IS NULL OR a.category = c.category)
       JOIN events e ON e.id = a.event_id LEFT JOIN objects o ON o.id = a.object_id
      WHERE e.uuid = $4::uuid AND a.object_id IS NULL AND NOT a.deleted AND ${readable}
      ORDER BY c.i, a.timestamp DESC, a.id DESC`,
    params,
  );
  const found = new Map(rows.map((r) => [r.i, toAttributeView(r)]));
  return keys.map((_k, i) => found.get(i + 1) ?? null);
}

/** MISP's numeric id of an attribute as its uuid; null when no attribute has it. */
export async function attributeUuidById(sql: Sql, id: number): Promise<string | null> {
  const { rows } = await sql.query<{ uuid: string }>("SELECT uuid::text FROM attributes WHERE id = $1", [id]);
  return rows[0]?.uuid ?? null;
}

/** Locks an event row (events first, then their children: one lock order for every writer). */
export async function lockEvent(sql: Sql, by: { uuid: string } | { id: number }): Promise<EventRef | null> {
  const [column, value] = "uuid" in by ? ["uuid", by.uuid] : ["id", by.id];
  const { rows } = await sql.query(
    `SELECT id, uuid::text, info, distribution, sharing_group_id, org_id, orgc_id FROM events WHERE ${column} = $1 FOR UPDATE`,
    [value],
  );
  const r = rows[0];
  return r ? { id: r.id, uuid: r.uuid, info: r.info, distribution: r.distribution, sharingGroupId: r.sharing_group_id, orgId: r.org_id, orgcId: r.orgc_id } : null;
}

/** The tags of these attributes (by id), each with the link's local flag, by name: one statement for a page of them. */
export async function tagsOfAttributes(sql: Sql, attributeIds: readonly string[]): Promise<Map<string, TagView[]>> {
  const byAttribute = new Map<string, TagView[]>(attributeIds.map((id) => [id, []]));
  if (attributeIds.length === 0) return byAttribute;
  const { rows } = await sql.query<TagView & { attribute_id: string }>(
    `SELECT at.attribute_id::text, t.id, t.name, t.colour, t.exportable, t.hide_tag AS "hideTag", t.is_galaxy AS "isGalaxy",
            t.is_custom_galaxy AS "isCustomGalaxy", t.local_only AS "localOnly", t.numerical_value AS "numericalValue", at.local
       FROM attribute_tags at JOIN tags t ON t.id = at.tag_id WHERE at.attribute_id = ANY($1::bigint[]) ORDER BY t.name`,
    [attributeIds],
  );
  for (const { attribute_id, ...tag } of rows) byAttribute.get(attribute_id)?.push(tag);
  return byAttribute;
}
