import type pg from "pg";
import { readableSql } from "../../auth/distribution.ts";
import type { Principal } from "../../auth/principal.ts";
import type { RetentionBadge } from "../retention/index.ts";

type Sql = Pick<pg.Pool, "query">;

export interface TagView {
  id: number;
  name: string;
  colour: string;
  exportable: boolean;
  hideTag: boolean;
  isGalaxy: boolean;
  isCustomGalaxy: boolean;
  localOnly: boolean;
  numericalValue: number | null;
  local: boolean;
}

export interface OrgRef {
  id: number;
  uuid: string;
  name: string;
}

export interface EventView {
  id: number;
  uuid: string;
  info: string;
  date: string;
  threatLevel: number;
  analysis: number;
  distribution: number;
  sharingGroupId: number | null;
  published: boolean;
  publishTimestamp: number;
  timestamp: number;
  sightingTimestamp: number | null;
  orgId: number;
  orgcId: number;
  userId: number | null;
  locked: boolean;
  proposalEmailLock: boolean;
  protected: boolean;
  disableCorrelation: boolean;
  extendsUuid: string | null;
  /** Soft-deleted (DELETE without force): still readable, left out of search, hunts and correlations. */
  deleted: boolean;
  deletedAt: Date | null;
  galaxies: unknown[];
  /** Live attributes the reader may see: standalone ones, or all (`AttributeCount`) as the read asked. */
  attributeCount: number;
  objectCount: number;
  createdAt: Date;
  updatedAt: Date;
  org: OrgRef;
  orgc: OrgRef;
  tags: TagView[];
  /** Set by EventsService on the way out: the retention badge a UI shows. */
  retention?: RetentionBadge | null;
}

/**
 * Which attributes an event's `attributeCount` counts: its standalone ones (the native API's
 * attribute_count) or, as MISP's events.attribute_count, those inside its live objects too.
 */
export type AttributeCount = "standalone" | "all";

/**
 * An event's columns. With a reader, the counts are of the objects and attributes the reader may
 * see (the distribution rule; parameters appended to `params`; an attribute inside an object needs
 * both to pass): a hidden one is not even counted, a count being information too. Without one,
 * every live object and attribute (internal reads). The counts' conditions are aggregate filters,
 * read on the event's rows only: as WHERE conditions, a table without statistics yet had the planner
 * AND the object_id index (every standalone attribute) into each event's count, 9 ms per event at
 * 100,000 attributes. `all` joins the event's objects on their event too, so the planner reads
 * them through the same event index instead of one lookup per attribute.
 */
function eventSelect(reader: Principal | undefined, params: unknown[], counts: AttributeCount | false = "standalone"): string {
  const visible = (...levels: string[]) => (reader ? ` AND ${readableSql(reader, "e", levels, params)}` : "");
  if (!counts) return eventColumns("");
  const attributeCount =
    counts === "all"
      ? `(SELECT count(*) FILTER (WHERE NOT a.deleted AND (a.object_id IS NULL OR NOT o.deleted)${visible("a.distribution", "o.distribution")})
            FROM attributes a LEFT JOIN objects o ON o.id = a.object_id AND o.event_id = e.id WHERE a.event_id = e.id)::int`
      : `(SELECT count(*) FILTER (WHERE a.object_id IS NULL AND NOT a.deleted${visible("a.distribution")}) FROM attributes a WHERE a.event_id = e.id)::int`;
  return eventColumns(`${attributeCount} AS attribute_count,
         (SELECT count(*) FILTER (WHERE NOT o.deleted${visible("o.distribution")}) FROM objects o WHERE o.event_id = e.id)::int AS object_count,`);
}

/** The event's own columns, its org, orgc and tags, with `countColumns` (each ending in a comma) among them. */
function eventColumns(countColumns: string): string {
  return `
  SELECT e.id, e.uuid::text, e.info, to_char(e.date, 'YYYY-MM-DD') AS date, e.threat_level, e.analysis, e.distribution,
         e.sharing_group_id, e.published, e.publish_timestamp, e.timestamp, e.sighting_timestamp, e.org_id, e.orgc_id, e.user_id,
         e.locked, e.proposal_email_lock, e.protected, e.disable_correlation, e.extends_uuid::text, e.deleted, e.deleted_at, e.galaxies, e.created_at, e.updated_at,
         ${countColumns}
         json_build_object('id', org.id, 'uuid', org.uuid, 'name', org.name) AS org,
         json_build_object('id', orgc.id, 'uuid', orgc.uuid, 'name', orgc.name) AS orgc,
         COALESCE((SELECT json_agg(json_build_object('id', t.id, 'name', t.name, 'colour', t.colour, 'exportable', t.exportable,
                     'hideTag', t.hide_tag, 'isGalaxy', t.is_galaxy, 'isCustomGalaxy', t.is_custom_galaxy, 'localOnly', t.local_only,
                     'numericalValue', t.numerical_value, 'local', et.local) ORDER BY t.name)
                   FROM event_tags et JOIN tags t ON t.id = et.tag_id WHERE et.event_id = e.id), '[]') AS tags
    FROM events e JOIN organisations org ON org.id = e.org_id JOIN organisations orgc ON orgc.id = e.orgc_id`;
}

/** A row of `eventSelect` (int8 columns arrive as numbers: src/platform/db sets the parser). */
interface EventRow {
  id: number;
  uuid: string;
  info: string;
  date: string;
  threat_level: number;
  analysis: number;
  distribution: number;
  sharing_group_id: number | null;
  published: boolean;
  publish_timestamp: number;
  timestamp: number;
  sighting_timestamp: number | null;
  org_id: number;
  orgc_id: number;
  user_id: number | null;
  locked: boolean;
  proposal_email_lock: boolean;
  protected: boolean;
  disable_correlation: boolean;
  extends_uuid: string | null;
  deleted: boolean;
  deleted_at: Date | null;
  galaxies: EventView["galaxies"];
  attribute_count: number;
  object_count: number;
  created_at: Date;
  updated_at: Date;
  org: OrgRef;
  orgc: OrgRef;
  tags: TagView[];
}

function toEventView(r: EventRow): EventView {
  return {
    id: r.id,
    uuid: r.uuid,
    info: r.info,
    date: r.date,
    threatLevel: r.threat_level,
    analysis: r.analysis,
    distribution: r.distribution,
    sharingGroupId: r.sharing_group_id,
    published: r.published,
    publishTimestamp: Number(r.publish_timestamp),
    timestamp: Number(r.timestamp),
    sightingTimestamp: r.sighting_timestamp === null ? null : Number(r.sighting_timestamp),
    orgId: r.org_id,
    orgcId: r.orgc_id,
    userId: r.user_id,
    locked: r.locked,
    proposalEmailLock: r.proposal_email_lock,
    protected: r.protected,
    disableCorrelation: r.disable_correlation,
    extendsUuid: r.extends_uuid,
    deleted: r.deleted,
    deletedAt: r.deleted_at,
    galaxies: r.galaxies,
    attributeCount: r.attribute_count,
    objectCount: r.object_count,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    org: r.org,
    orgc: r.orgc,
    tags: r.tags,
  };
}

/** `reader`: the caller the answer is for (its counts follow what they may see). */
export async function loadEvent(sql: Sql, uuid: string, reader?: Principal): Promise<EventView | null> {
  const params: unknown[] = [uuid];
  const { rows } = await sql.query<EventRow>(`${eventSelect(reader, params)} WHERE e.uuid = $1`, params);
  return rows[0] ? toEventView(rows[0]) : null;
}

/** The events with these uuids that exist, in no particular order (one statement for a page of them). */
export async function loadEventsByUuid(sql: Sql, uuids: readonly string[], reader?: Principal, counts: AttributeCount = "standalone"): Promise<EventView[]> {
  if (uuids.length === 0) return [];
  const params: unknown[] = [uuids];
  const { rows } = await sql.query<EventRow>(`${eventSelect(reader, params, counts)} WHERE e.uuid = ANY($1::uuid[])`, params);
  return rows.map(toEventView);
}

/** An event without its attribute and object counts: what a MISP export needs of it (it counts what it exports). */
export type EventHead = Omit<EventView, "attributeCount" | "objectCount">;

/**
 * The events with these uuids that exist, without their counts, in no particular order: counting a
 * page of full events' attributes under the reader's rule is a pass over every one of them.
 */
export async function loadEventHeadsByUuid(sql: Sql, uuids: readonly string[], reader: Principal): Promise<EventHead[]> {
  if (uuids.length === 0) return [];
  const params: unknown[] = [uuids];
  const { rows } = await sql.query<EventRow>(`${eventSelect(reader, params, false)} WHERE e.uuid = ANY($1::uuid[])`, params);
  return rows.map((r) => {
    const { attributeCount: _a, objectCount: _o, ...head } = toEventView(r);
    return head;
  });
}

/** MISP's numeric id of an event as its uuid; null when no event has it. */
export async function eventUuidById(sql: Sql, id: number): Promise<string | null> {
  const { rows } = await sql.query<{ uuid: string }>("SELECT uuid::text FROM events WHERE id = $1", [id]);
  return rows[0]?.uuid ?? null;
}

export async function listEvents(
  sql: Sql, where: string, params: unknown[], limit: number, offset: number, reader?: Principal, counts: AttributeCount = "standalone",
): Promise<{ items: EventView[]; total: number }> {
  const pageParams = [...params];
  const [page, count] = await Promise.all([
    sql.query<EventRow>(`${eventSelect(reader, pageParams, counts)} WHERE ${where} ORDER BY e.timestamp DESC, e.id DESC LIMIT ${limit} OFFSET ${offset}`, pageParams),
    sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM events e WHERE ${where}`, params),
  ]);
  return { items: page.rows.map(toEventView), total: count.rows[0].n };
}
