import type { Principal } from "../../auth/principal.ts";
import type { Sql } from "../../platform/db/transaction.ts";
import { attributesOfObjects, type AttributeView, type EventRef } from "../attributes/index.ts";

export interface ReferenceView {
  uuid: string;
  objectUuid: string;
  eventUuid: string;
  referencedUuid: string;
  referencedType: number | null;
  relationshipType: string;
  comment: string;
  timestamp: number;
  deleted: boolean;
}

export interface ObjectView {
  id: number;
  uuid: string;
  eventId: number;
  eventUuid: string;
  name: string;
  metaCategory: string | null;
  description: string | null;
  templateUuid: string | null;
  templateVersion: number | null;
  timestamp: number;
  distribution: number;
  sharingGroupId: number | null;
  comment: string;
  deleted: boolean;
  firstSeen: Date | null;
  lastSeen: Date | null;
  event: EventRef;
  attributes: AttributeView[];
  references: ReferenceView[];
}

export const OBJECT_FROM = `FROM objects o JOIN events e ON e.id = o.event_id`;

const OBJECT_SELECT = `
  SELECT o.id, o.uuid::text, o.event_id, o.name, o.meta_category, o.description, o.template_uuid, o.template_version, o.timestamp,
         o.distribution, o.sharing_group_id, o.comment, o.deleted, o.first_seen, o.last_seen, e.uuid::text AS event_uuid,
         e.info AS event_info, e.distribution AS event_distribution, e.sharing_group_id AS event_sharing_group_id, e.org_id AS event_org_id, e.orgc_id AS event_orgc_id
    ${OBJECT_FROM}`;

/** A row of OBJECT_SELECT. */
interface ObjectRow {
  id: number;
  uuid: string;
  event_id: number;
  name: string;
  meta_category: string | null;
  description: string | null;
  template_uuid: string | null;
  template_version: number | null;
  timestamp: number;
  distribution: number;
  sharing_group_id: number | null;
  comment: string;
  deleted: boolean;
  first_seen: Date | null;
  last_seen: Date | null;
  event_uuid: string;
  event_info: string;
  event_distribution: number;
  event_sharing_group_id: number | null;
  event_org_id: number;
  event_orgc_id: number;
}

function toObjectView(r: ObjectRow): ObjectView {
  return {
    id: r.id,
    uuid: r.uuid,
    eventId: r.event_id,
    eventUuid: r.event_uuid,
    name: r.name,
    metaCategory: r.meta_category,
    description: r.description,
    templateUuid: r.template_uuid,
    templateVersion: r.template_version,
    timestamp: Number(r.timestamp),
    distribution: r.distribution,
    sharingGroupId: r.sharing_group_id,
    comment: r.comment,
    deleted: r.deleted,
    firstSeen: r.first_seen,
    lastSeen: r.last_seen,
    event: { id: r.event_id, uuid: r.event_uuid, info: r.event_info, distribution: r.event_distribution, sharingGroupId: r.event_sharing_group_id, orgId: r.event_org_id, orgcId: r.event_orgc_id },
    attributes: [],
    references: [],
  };
}

/**
 * Fills attributes and references of a page of objects with two queries, whatever the page size;
 * the attributes are those the reader may see.
 */
async function withChildren(sql: Sql, objects: ObjectView[], reader: Principal): Promise<ObjectView[]> {
  if (objects.length === 0) return objects;
  const ids = objects.map((o) => o.id);
  const attributes = await attributesOfObjects(sql, ids, reader);
  const { rows } = await sql.query(
    `SELECT r.object_id, r.uuid::text, o.uuid::text AS object_uuid, e.uuid::text AS event_uuid, r.referenced_uuid::text, r.referenced_type,
            r.relationship_type, r.comment, r.timestamp, r.deleted
       FROM object_references r JOIN objects o ON o.id = r.object_id JOIN events e ON e.id = o.event_id
      WHERE r.object_id = ANY($1::int[]) AND (NOT r.deleted OR o.deleted) ORDER BY r.id`,
    [ids],
  );
  const refs = new Map<number, ReferenceView[]>();
  for (const r of rows) {
    const list = refs.get(r.object_id) ?? [];
    list.push({
      uuid: r.uuid,
      objectUuid: r.object_uuid,
      eventUuid: r.event_uuid,
      referencedUuid: r.referenced_uuid,
      referencedType: r.referenced_type,
      relationshipType: r.relationship_type,
      comment: r.comment,
      timestamp: Number(r.timestamp),
      deleted: r.deleted,
    });
    refs.set(r.object_id, list);
  }
  return objects.map((o) => ({ ...o, attributes: attributes.get(o.id) ?? [], references: refs.get(o.id) ?? [] }));
}

/** The object with the attributes `reader` may see (the caller checks that it may see the object). */
export async function loadObject(sql: Sql, uuid: string, reader: Principal): Promise<ObjectView | null> {
  const { rows } = await sql.query<ObjectRow>(`${OBJECT_SELECT} WHERE o.uuid = $1`, [uuid]);
  return rows[0] ? (await withChildren(sql, [toObjectView(rows[0])], reader))[0] : null;
}

export async function listObjects(sql: Sql, where: string, params: unknown[], limit: number, offset: number, reader: Principal): Promise<{ items: ObjectView[]; total: number }> {
  const page = await sql.query<ObjectRow>(`${OBJECT_SELECT} WHERE ${where} ORDER BY o.timestamp DESC, o.id DESC LIMIT ${limit} OFFSET ${offset}`, params);
  const count = await sql.query<{ n: number }>(`SELECT count(*)::int AS n ${OBJECT_FROM} WHERE ${where}`, params);
  return { items: await withChildren(sql, page.rows.map(toObjectView), reader), total: count.rows[0].n };
}
