import type pg from "pg";
import { readableSql } from "../../auth/distribution.ts";
import type { Principal } from "../../auth/principal.ts";
import type { EventHead } from "./event-reader.ts";
import { mispEventReports } from "../reports/index.ts";
import { mispSharingGroupBlocks } from "../sharing-groups/index.ts";

type Sql = Pick<pg.Pool, "query">;

/** MISP writes first_seen/last_seen with microseconds and an explicit offset. */
export function mispTime(d: Date | null): string | null {
  if (!d) return null;
  return d.toISOString().replace(/\.(\d{3})Z$/, ".$1000+00:00");
}

const str = (n: number | null | undefined) => (n === null || n === undefined ? "0" : String(n));

/**
 * The event in MISP's JSON form (`{"Event": {...}}`), as MISP itself exports it: numbers as strings,
 * standalone attributes under Attribute, object attributes and references under each Object, the
 * event reports under EventReport. Only the objects, attributes and reports the reader may see
 * (distribution) are in it.
 */
/** An attribute row of the MISP export (int8 columns arrive as numbers). */
interface MispAttributeRow {
  id: number;
  uuid: string;
  object_id: number | null;
  object_relation: string | null;
  type: string;
  category: string;
  value: string;
  to_ids: boolean;
  comment: string;
  distribution: number;
  sharing_group_id: number | null;
  timestamp: number;
  first_seen: Date | null;
  last_seen: Date | null;
  deleted: boolean;
  disable_correlation: boolean;
}

export interface MispExportOptions {
  /**
   * MISP's numeric ids beside the uuids (`id`, `event_id`, `object_id`, `org_id`, ...), as a MISP
   * server answers its API (PyMISP compares them); a file export leaves them out.
   */
  ids?: boolean;
}

/** The export's options with this instance's public URL, which a sharing group that is not roaming is bound to. */
type MispExportSettings = MispExportOptions & { instanceUrl: string };

/** Rows keyed by one of their columns, in the order read. */
function groupBy<T, K>(rows: readonly T[], key: (r: T) => K): Map<K, T[]> {
  const m = new Map<K, T[]>();
  for (const r of rows) {
    const k = key(r);
    const list = m.get(k);
    if (list) list.push(r);
    else m.set(k, [r]);
  }
  return m;
}

interface MispObjectExportRow extends MispObjectRow {
  id: number;
  event_id: number;
}
interface ReferenceRow {
  object_id: number;
  uuid: string;
  source_uuid: string;
  referenced_uuid: string;
  referenced_type: number | null;
  relationship_type: string;
  comment: string;
  timestamp: number;
  deleted: boolean;
}
interface AttributeTagRow {
  attribute_id: number;
  id: number;
  name: string;
  colour: string;
  exportable: boolean;
  local: boolean;
}
interface SightingRow {
  id: number;
  attribute_id: number;
  uuid: string;
  type: number;
  source: string;
  date_sighting: number;
  org_id: number | null;
  org_uuid: string | null;
  org_name: string | null;
}

/**
 * The events in MISP's JSON form, in the order given: one statement per kind of content
 * (attributes, objects, references, attribute tags, sightings, reports, sharing groups) for all of
 * them, so a page of events costs what one does.
 */
export async function exportMispEvents(sql: Sql, events: readonly EventHead[], reader: Principal, opts: MispExportSettings): Promise<{ Event: Record<string, unknown> }[]> {
  if (events.length === 0) return [];
  const ids = opts.ids === true;
  /** `{id: "12"}` when ids are asked for, else nothing. */
  const idOf = (key: string, id: number | string | null) => (ids ? { [key]: str(id === null ? null : Number(id)) } : {});
  const eventIds = events.map((e) => e.id);
  const attributeParams: unknown[] = [eventIds];
  const readableAttribute = readableSql(reader, "e", ["a.distribution", "o.distribution"], attributeParams);
  const objectParams: unknown[] = [eventIds];
  const readableObject = readableSql(reader, "e", ["o.distribution"], objectParams);
  const [attributes, objects, references, attributeTags, sightings, reports] = await Promise.all([
    sql.query<MispAttributeRow & { event_id: number }>(
      `SELECT a.id, a.event_id, a.uuid::text, a.object_id, a.object_relation, a.type, a.category, a.value, a.to_ids, a.comment, a.distribution,
              a.sharing_group_id, a.timestamp, a.first_seen, a.last_seen, a.deleted, a.disable_correlation
         FROM attributes a JOIN events e ON e.id = a.event_id LEFT JOIN objects o ON o.id = a.object_id
        WHERE a.event_id = ANY($1::int[]) AND ${readableAttribute} ORDER BY a.id`,
      attributeParams,
    ),
    sql.query<MispObjectExportRow>(
      `SELECT o.id, o.event_id, o.uuid::text, o.name, o.meta_category, o.description, o.template_uuid, o.template_version, o.timestamp, o.distribution,
              o.sharing_group_id, o.comment, o.deleted, o.first_seen, o.last_seen
         FROM objects o JOIN events e ON e.id = o.event_id WHERE o.event_id = ANY($1::int[]) AND ${readableObject} ORDER BY o.id`,
      objectParams,
    ),
    sql.query<ReferenceRow>(
      `SELECT r.object_id, r.uuid::text, o.uuid::text AS source_uuid, r.referenced_uuid::text, r.referenced_type, r.relationship_type,
              r.comment, r.timestamp, r.deleted
         FROM object_references r JOIN objects o ON o.id = r.object_id JOIN events e ON e.id = o.event_id
        WHERE r.event_id = ANY($1::int[]) AND ${readableObject} ORDER BY r.id`,
      objectParams,
    ),
    sql.query<AttributeTagRow>(
      `SELECT at.attribute_id, t.id, t.name, t.colour, t.exportable, at.local
         FROM attribute_tags at JOIN attributes a ON a.id = at.attribute_id JOIN tags t ON t.id = at.tag_id
        WHERE a.event_id = ANY($1::int[]) ORDER BY t.name`,
      [eventIds],
    ),
    sql.query<SightingRow>(
      `SELECT s.id, s.attribute_id, s.uuid::text, s.type, s.source, s.date_sighting, s.org_id, o.uuid::text AS org_uuid, o.name AS org_name
         FROM sightings s LEFT JOIN organisations o ON o.id = s.org_id WHERE s.event_id = ANY($1::int[]) ORDER BY s.id`,
      [eventIds],
    ),
    mispEventReports(sql, eventIds, reader),
  ]);
  const reportGroup = (r: Record<string, unknown>) => Number(r.sharing_group_id) || null;
  const blocks = await mispSharingGroupBlocks(
    sql,
    [
      ...events.map((e) => e.sharingGroupId),
      ...attributes.rows.map((a) => a.sharing_group_id),
      ...objects.rows.map((o) => o.sharing_group_id),
      ...[...reports.values()].flat().map(reportGroup),
    ].filter((id): id is number => id !== null),
    opts.instanceUrl,
  );
  /** MISP sends the group itself with data of distribution 4, so the receiver finds it by uuid. */
  const sharingGroupOf = (id: number | null) => (id !== null && blocks.has(id) ? { SharingGroup: blocks.get(id) } : {});
  const tagsByAttr = groupBy(attributeTags.rows, (t) => Number(t.attribute_id));
  const sightingsByAttr = groupBy(sightings.rows, (s) => Number(s.attribute_id));
  const refsByObject = groupBy(references.rows, (r) => r.object_id);
  const attributesByEvent = groupBy(attributes.rows, (a) => a.event_id);
  const objectsByEvent = groupBy(objects.rows, (o) => o.event_id);
  const deletedObjects = new Set(objects.rows.filter((o) => o.deleted).map((o) => o.id));

  const tagOf = (t: { id: number; name: string; colour: string; exportable: boolean; local: boolean }) => ({ ...idOf("id", t.id), name: t.name, colour: t.colour, exportable: t.exportable, local: t.local });
  /** Built by assignment, not spreads: a page of events holds thousands of attributes. */
  const attribute = (e: EventHead, a: MispAttributeRow) => {
    const out: Record<string, unknown> = ids ? { id: str(a.id), event_id: str(e.id), object_id: str(a.object_id) } : {};
    out.uuid = a.uuid;
    out.type = a.type;
    out.category = a.category;
    out.value = a.value;
    out.to_ids = a.to_ids;
    out.comment = a.comment;
    out.distribution = str(a.distribution);
    out.sharing_group_id = str(a.sharing_group_id);
    if (a.sharing_group_id !== null && blocks.has(a.sharing_group_id)) out.SharingGroup = blocks.get(a.sharing_group_id);
    out.timestamp = String(a.timestamp);
    out.deleted = a.deleted;
    out.disable_correlation = a.disable_correlation;
    out.first_seen = mispTime(a.first_seen);
    out.last_seen = mispTime(a.last_seen);
    if (a.object_relation !== null) out.object_relation = a.object_relation;
    const tags = tagsByAttr.get(Number(a.id));
    if (tags) out.Tag = tags.map(tagOf);
    const seen = sightingsByAttr.get(Number(a.id));
    if (seen) {
      out.Sighting = seen.map((s) => ({
        ...idOf("id", s.id),
        ...idOf("attribute_id", a.id),
        ...idOf("event_id", e.id),
        ...idOf("org_id", s.org_id),
        uuid: s.uuid,
        type: String(s.type),
        source: s.source,
        date_sighting: String(s.date_sighting),
        attribute_uuid: a.uuid,
        ...(s.org_name ? { Organisation: { uuid: s.org_uuid, name: s.org_name } } : {}),
      }));
    }
    return out;
  };

  return events.map((e) => {
    const rows = attributesByEvent.get(e.id) ?? [];
    const attrsByObject = new Map<number, unknown[]>();
    const standalone: unknown[] = [];
    for (const a of rows) {
      if (a.object_id === null) standalone.push(attribute(e, a));
      else {
        const list = attrsByObject.get(a.object_id);
        if (list) list.push(attribute(e, a));
        else attrsByObject.set(a.object_id, [attribute(e, a)]);
      }
    }
    return {
      Event: {
        ...idOf("id", e.id),
        ...idOf("org_id", e.orgId),
        ...idOf("orgc_id", e.orgcId),
        uuid: e.uuid,
        info: e.info,
        date: e.date,
        threat_level_id: String(e.threatLevel),
        analysis: String(e.analysis),
        distribution: String(e.distribution),
        sharing_group_id: str(e.sharingGroupId),
        ...sharingGroupOf(e.sharingGroupId),
        published: e.published,
        timestamp: String(e.timestamp),
        publish_timestamp: String(e.publishTimestamp),
        ...(e.sightingTimestamp !== null ? { sighting_timestamp: String(e.sightingTimestamp) } : {}),
        locked: e.locked,
        proposal_email_lock: e.proposalEmailLock,
        protected: e.protected,
        disable_correlation: e.disableCorrelation,
        extends_uuid: e.extendsUuid ?? "",
        // MISP's events.attribute_count: the live attributes, not the deleted ones an answer may show.
        attribute_count: String(rows.filter((a) => !a.deleted && (a.object_id === null || !deletedObjects.has(a.object_id))).length),
        Org: { ...idOf("id", e.org.id), uuid: e.org.uuid, name: e.org.name },
        Orgc: { ...idOf("id", e.orgc.id), uuid: e.orgc.uuid, name: e.orgc.name },
        Tag: e.tags.map(tagOf),
        Galaxy: e.galaxies,
        Attribute: standalone,
        Object: (objectsByEvent.get(e.id) ?? []).map((o) => ({
          ...idOf("id", o.id),
          ...idOf("event_id", e.id),
          ...mispObject(
            o,
            attrsByObject.get(o.id) ?? [],
            (refsByObject.get(o.id) ?? []).map((r) => ({
              uuid: r.uuid,
              source_uuid: r.source_uuid,
              referenced_uuid: r.referenced_uuid,
              ...(r.referenced_type !== null ? { referenced_type: String(r.referenced_type) } : {}),
              relationship_type: r.relationship_type,
              comment: r.comment,
              timestamp: String(r.timestamp),
              deleted: r.deleted,
            })),
          ),
          ...sharingGroupOf(o.sharing_group_id),
        })),
        EventReport: (reports.get(e.id) ?? []).map((r) => ({ ...r, ...sharingGroupOf(reportGroup(r)) })),
      },
    };
  });
}

/** The columns of an object row a MISP object is written from. */
export interface MispObjectRow {
  uuid: string;
  name: string;
  meta_category: string | null;
  description: string | null;
  template_uuid: string | null;
  template_version: number | null;
  timestamp: string | number;
  distribution: number;
  sharing_group_id: number | null;
  comment: string;
  deleted: boolean;
  first_seen: Date | null;
  last_seen: Date | null;
}

/** A MISP object (`Object[]` of an event) with its attributes and references, as MISP writes it. */
export function mispObject(o: MispObjectRow, attributes: unknown[], references: unknown[] = []): Record<string, unknown> {
  return {
    uuid: o.uuid,
    name: o.name,
    "meta-category": o.meta_category,
    description: o.description,
    template_uuid: o.template_uuid,
    template_version: o.template_version === null ? null : String(o.template_version),
    timestamp: String(o.timestamp),
    distribution: str(o.distribution),
    sharing_group_id: str(o.sharing_group_id),
    comment: o.comment,
    deleted: o.deleted,
    first_seen: mispTime(o.first_seen),
    last_seen: mispTime(o.last_seen),
    Attribute: attributes,
    ObjectReference: references,
  };
}
