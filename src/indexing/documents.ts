/**
 * Search documents built from PostgreSQL, the source of truth: the only SQL of the indexer. Field
 * names are those of `../fields.ts` (the peer's documents, peer-api-notes section 4). Documents are
 * always built from the rows as they are now, never from a change record's payload, so indexing a
 * range twice, or two ranges in either order, leaves the same index.
 */
import net from "node:net";
import { audienceOf, sharedAudience, sharedItemsSql } from "../auth/distribution.ts";
import type { Sql } from "../platform/db/transaction.ts";
import { AUDIENCE_FIELD } from "../search/fields.ts";
import type { SearchDocument } from "../search/search-index.ts";
import { pairDetails, pairsOfAttributes, type PairDetail } from "../modules/correlations/index.ts";

interface TagRow {
  name: string;
  colour: string;
  local: boolean;
  is_galaxy: boolean;
}

const TAGS_OF = (joinTable: string, key: string, id: string) => `COALESCE((
    SELECT json_agg(json_build_object('name', t.name, 'colour', t.colour, 'local', x.local,
                                      'is_galaxy', t.is_galaxy OR t.name LIKE 'misp-galaxy:%') ORDER BY t.name)
      FROM ${joinTable} x JOIN tags t ON t.id = x.tag_id WHERE x.${key} = ${id}), '[]'::json)`;

/** Live attributes and objects of the event `e`; `shared`: only those every reader of the event may see. */
const ATTRIBUTE_COUNT = (shared: boolean) => `(SELECT count(*) FROM attributes a LEFT JOIN objects o ON o.id = a.object_id
    WHERE a.event_id = e.id AND NOT a.deleted${shared ? ` AND ${sharedItemsSql(["a.distribution", "o.distribution"])}` : ""})`;
const OBJECT_COUNT = (shared: boolean) => `(SELECT count(*) FROM objects o WHERE o.event_id = e.id AND NOT o.deleted${shared ? ` AND ${sharedItemsSql(["o.distribution"])}` : ""})`;

/** The event's live reports with their levels (which of them the document may hold is decided by `sharedReports`). */
const REPORTS_OF = `COALESCE((
    SELECT json_agg(json_build_object('uuid', r.uuid, 'name', r.name, 'content', r.content, 'distribution', r.distribution, 'sharing_group_id', r.sharing_group_id) ORDER BY r.id)
      FROM event_reports r WHERE r.event_id = e.id AND NOT r.deleted), '[]'::json)`;

/**
 * An event document holds one answer for all its readers: its counts are of what every reader may
 * see (a hidden attribute is not even counted, nor searchable by `attribute_count`); the owners'
 * and administrators' counts come from `ownerEventCounts` when their hits are answered.
 */
const EVENT_SELECT = `
  SELECT e.id, e.uuid::text, e.info, e.org_id, e.orgc_id, e.user_id, to_char(e.date, 'YYYY-MM-DD') AS date, e.published,
         e.analysis, e.threat_level, e.distribution, e.sharing_group_id, e.timestamp, e.publish_timestamp, e.sighting_timestamp,
         e.locked, e.protected, e.disable_correlation, e.extends_uuid::text, e.deleted,
         ${ATTRIBUTE_COUNT(true)} AS attribute_count, ${OBJECT_COUNT(true)} AS object_count,
         org.uuid::text AS org_uuid, org.name AS org_name, orgc.uuid::text AS orgc_uuid, orgc.name AS orgc_name,
         ${TAGS_OF("event_tags", "event_id", "e.id")} AS tags,
         ${REPORTS_OF} AS reports
    FROM events e
    JOIN organisations org ON org.id = e.org_id
    JOIN organisations orgc ON orgc.id = e.orgc_id`;

/**
 * The attribute documents' rows, from `source` (an SQL row source of `attributes` rows named `a`).
 * Set-based per batch: the batch's rows first, then each distinct event and object once by primary
 * key (OFFSET 0, whatever the statistics say: on tables loaded since their last ANALYZE joins were
 * planned as hash joins over the whole objects table, once per batch) and the tags of all of them
 * in one index scan, joined by hash; a batch of a feed's event reads its event once, not per row.
 */
const ATTRIBUTE_SELECT = (source: string) => `
  WITH a AS MATERIALIZED (SELECT a.* FROM ${source}),
   e AS MATERIALIZED (SELECT e.* FROM (SELECT DISTINCT event_id FROM a) d CROSS JOIN LATERAL (SELECT * FROM events WHERE id = d.event_id OFFSET 0) e),
   o AS MATERIALIZED (SELECT o.* FROM (SELECT DISTINCT object_id FROM a WHERE object_id IS NOT NULL) d
                       CROSS JOIN LATERAL (SELECT * FROM objects WHERE id = d.object_id OFFSET 0) o),
   t AS (SELECT x.attribute_id, json_agg(json_build_object('name', t.name, 'colour', t.colour, 'local', x.local,
                                                         'is_galaxy', t.is_galaxy OR t.name LIKE 'misp-galaxy:%') ORDER BY t.name) AS tags
           FROM attribute_tags x JOIN tags t ON t.id = x.tag_id WHERE x.attribute_id = ANY(ARRAY(SELECT id FROM a)) GROUP BY x.attribute_id)
  SELECT a.id, a.uuid::text, e.uuid::text AS event_uuid, o.uuid::text AS object_uuid, a.object_relation, a.category,
         a.type, a.value, a.value1, a.value2, a.comment, a.to_ids, a.deleted OR e.deleted OR COALESCE(o.deleted, false) AS deleted, a.disable_correlation, a.timestamp,
         floor(extract(epoch FROM a.first_seen))::bigint AS first_seen, floor(extract(epoch FROM a.last_seen))::bigint AS last_seen,
         a.distribution, a.sharing_group_id, o.distribution AS object_distribution, o.sharing_group_id AS object_sharing_group_id,
         e.distribution AS event_distribution, e.sharing_group_id AS event_sharing_group_id, e.org_id AS event_org_id,
         e.orgc_id AS event_orgc_id, COALESCE(t.tags, '[]'::json) AS tags, a.warnings
    FROM a JOIN e ON e.id = a.event_id LEFT JOIN o ON o.id = a.object_id LEFT JOIN t ON t.attribute_id = a.id`;

interface EventRow {
  id: number;
  uuid: string;
  info: string;
  org_id: number;
  orgc_id: number;
  user_id: number | null;
  date: string;
  published: boolean;
  analysis: number;
  threat_level: number;
  distribution: number;
  sharing_group_id: number | null;
  timestamp: number;
  publish_timestamp: number;
  sighting_timestamp: number | null;
  locked: boolean;
  protected: boolean;
  disable_correlation: boolean;
  extends_uuid: string | null;
  deleted: boolean;
  attribute_count: number;
  object_count: number;
  org_uuid: string;
  org_name: string;
  orgc_uuid: string;
  orgc_name: string;
  tags: TagRow[];
  reports: ReportRow[];
}

interface ReportRow {
  uuid: string;
  name: string;
  content: string;
  distribution: number;
  sharing_group_id: number | null;
}

/**
 * The reports an event document may hold: those every reader of the document may read. A report
 * less visible than its event (level 0 or 4 inside a community event) stays out of it, so neither
 * its text nor a match on it reaches other organisations; its owners find it through the event's
 * reports, not through search.
 */
function sharedReports(r: EventRow): { uuid: string; name: string; content: string }[] {
  const event = eventAccess(r);
  const documentAudience = audienceOf(event).join(",");
  return r.reports.filter((x) => audienceOf(event, { distribution: x.distribution, sharingGroupId: x.sharing_group_id }).join(",") === documentAudience).map((x) => ({ uuid: x.uuid, name: x.name, content: x.content }));
}

interface AttributeRow {
  id: number;
  uuid: string;
  event_uuid: string;
  object_uuid: string | null;
  object_relation: string | null;
  category: string;
  type: string;
  value: string;
  value1: string;
  value2: string | null;
  comment: string;
  to_ids: boolean;
  /** Its own flag, its object's or its event's: a soft-deleted event's attributes leave search and hunts with it. */
  deleted: boolean;
  disable_correlation: boolean;
  timestamp: number;
  first_seen: number | null;
  last_seen: number | null;
  distribution: number;
  sharing_group_id: number | null;
  object_distribution: number | null;
  object_sharing_group_id: number | null;
  event_distribution: number;
  event_sharing_group_id: number | null;
  event_org_id: number;
  event_orgc_id: number;
  tags: TagRow[];
  warnings: { id: number; name: string }[];
}

/** The peer writes event `@timestamp` as a naive ISO time (no offset); ours is UTC. */
const naiveIso = (epochSeconds: number) => new Date(epochSeconds * 1000).toISOString().slice(0, 19);

function eventDocument(r: EventRow): SearchDocument {
  return {
    id: r.uuid,
    source: {
      uuid: r.uuid,
      info: r.info,
      org_id: r.org_id,
      orgc_id: r.orgc_id,
      user_id: r.user_id,
      date: r.date,
      published: r.published,
      analysis: r.analysis,
      threat_level: r.threat_level,
      distribution: r.distribution,
      attribute_count: r.attribute_count,
      object_count: r.object_count,
      timestamp: r.timestamp,
      publish_timestamp: r.publish_timestamp,
      sighting_timestamp: r.sighting_timestamp,
      locked: r.locked,
      protected: r.protected,
      disable_correlation: r.disable_correlation,
      deleted: r.deleted,
      extends_uuid: r.extends_uuid,
      organisation: { uuid: r.org_uuid, name: r.org_name },
      orgc: { uuid: r.orgc_uuid, name: r.orgc_name },
      tags: r.tags,
      reports: sharedReports(r),
      "@timestamp": naiveIso(r.timestamp),
      event_distribution: r.distribution,
      event_org_id: r.org_id,
      event_orgc_id: r.orgc_id,
      [AUDIENCE_FIELD]: audienceOf(eventAccess(r)),
    },
  };
}

const isCidr = (v: string) => {
  const [ip, bits, extra] = v.split("/");
  const family = net.isIP(ip);
  return extra === undefined && family !== 0 && /^\d{1,3}$/.test(bits ?? "") && Number(bits) <= (family === 4 ? 32 : 128);
};

const IP_IN_VALUE1 = new Set(["ip-src", "ip-dst", "ip-src|port", "ip-dst|port"]);

/**
 * `expanded.ip` / `expanded.ip_range`, which the peer fills in an ingest pipeline: the address of
 * ip-src/ip-dst (a CIDR goes to ip_range), and the address part of the composite types that carry one.
 */
export function expandedFields(type: string, value1: string, value2: string | null): Record<string, string> {
  const candidate = IP_IN_VALUE1.has(type) ? value1 : type === "domain|ip" ? value2 : null;
  if (!candidate) return {};
  if (candidate.includes("/")) return isCidr(candidate) ? { ip_range: candidate } : {};
  return net.isIP(candidate) ? { ip: candidate } : {};
}

/**
 * `expanded.value`: what MISP's restSearch `value` compares with (value1 and value2, on a
 * case-insensitive collation) and the whole value, each lower-cased, distinct. A value is then
 * found by one exact term whatever its case or half (`rest-shim/misp/rest-search-query.ts`). The
 * whole value is always there, even empty: a document without the field is one an older indexer
 * wrote (`../search/fields.ts` STALE_DOCUMENTS).
 */
export function foldedValues(value: string, value1: string, value2: string | null): string[] {
  const halves = [value1, value2 ?? ""].filter((v) => v !== "");
  return [...new Set([value, ...halves].map((v) => v.toLowerCase()))];
}

function attributeDocument(r: AttributeRow): SearchDocument {
  return {
    id: r.uuid,
    source: {
      uuid: r.uuid,
      event_uuid: r.event_uuid,
      object_uuid: r.object_uuid,
      object_relation: r.object_relation,
      category: r.category,
      type: r.type,
      value: r.value,
      comment: r.comment,
      to_ids: r.to_ids,
      deleted: r.deleted,
      disable_correlation: r.disable_correlation,
      timestamp: r.timestamp,
      first_seen: r.first_seen,
      last_seen: r.last_seen,
      distribution: r.distribution,
      tags: r.tags,
      warnings: r.warnings.map((w) => ({ id: w.id, name: w.name })),
      expanded: { ...expandedFields(r.type, r.value1, r.value2), value: foldedValues(r.value, r.value1, r.value2) },
      "@timestamp": new Date(r.timestamp * 1000).toISOString(),
      event_distribution: r.event_distribution,
      event_org_id: r.event_org_id,
      event_orgc_id: r.event_orgc_id,
      object_distribution: r.object_distribution,
      [AUDIENCE_FIELD]: attributeAudience(r),
    },
  };
}

const eventAccess = (r: Pick<EventRow, "distribution" | "sharing_group_id" | "org_id" | "orgc_id">) => ({ distribution: r.distribution, sharingGroupId: r.sharing_group_id, orgId: r.org_id, orgcId: r.orgc_id });

type AudienceFields = Pick<
  AttributeRow,
  "event_distribution" | "event_sharing_group_id" | "event_org_id" | "event_orgc_id" | "distribution" | "sharing_group_id" | "object_distribution" | "object_sharing_group_id"
>;

function attributeAudience(r: AudienceFields): number[] {
  return audienceOf(
    { distribution: r.event_distribution, sharingGroupId: r.event_sharing_group_id, orgId: r.event_org_id, orgcId: r.event_orgc_id },
    { distribution: r.distribution, sharingGroupId: r.sharing_group_id },
    r.object_distribution === null ? null : { distribution: r.object_distribution, sharingGroupId: r.object_sharing_group_id },
  );
}

export async function loadEventDocuments(sql: Sql, uuids: string[]): Promise<SearchDocument[]> {
  const { rows } = await sql.query<EventRow>(`${EVENT_SELECT} WHERE e.uuid = ANY($1::uuid[])`, [uuids]);
  return rows.map(eventDocument);
}

/** Every live attribute and object of these events, as their owners count them. */
export async function ownerEventCounts(sql: Sql, uuids: string[]): Promise<Map<string, { attribute_count: number; object_count: number }>> {
  const { rows } = await sql.query<{ uuid: string; attribute_count: number; object_count: number }>(
    `SELECT e.uuid::text, ${ATTRIBUTE_COUNT(false)} AS attribute_count, ${OBJECT_COUNT(false)} AS object_count FROM events e WHERE e.uuid = ANY($1::uuid[])`,
    [uuids],
  );
  return new Map(rows.map((r) => [r.uuid, { attribute_count: Number(r.attribute_count), object_count: Number(r.object_count) }]));
}

export async function loadAttributeDocuments(sql: Sql, uuids: string[]): Promise<SearchDocument[]> {
  const { rows } = await sql.query<AttributeRow>(
    ATTRIBUTE_SELECT("unnest($1::uuid[]) AS u(uuid) CROSS JOIN LATERAL (SELECT * FROM attributes WHERE uuid = u.uuid OFFSET 0) a"),
    [uuids],
  );
  return rows.map(attributeDocument);
}

export async function attributeUuidsOfEvents(sql: Sql, eventUuids: string[]): Promise<string[]> {
  const { rows } = await sql.query<{ uuid: string }>(
    "SELECT a.uuid::text FROM attributes a JOIN events e ON e.id = a.event_id WHERE e.uuid = ANY($1::uuid[])",
    [eventUuids],
  );
  return rows.map((r) => r.uuid);
}

export async function attributeUuidsOfObjects(sql: Sql, objectUuids: string[]): Promise<string[]> {
  const { rows } = await sql.query<{ uuid: string }>(
    "SELECT a.uuid::text FROM attributes a JOIN objects o ON o.id = a.object_id WHERE o.uuid = ANY($1::uuid[])",
    [objectUuids],
  );
  return rows.map((r) => r.uuid);
}

/** Keyset pages of every document of an index, for a rebuild: `after` is the last row id seen. */
export async function eventDocumentPage(sql: Sql, after: number, limit: number): Promise<{ docs: SearchDocument[]; last: number | null }> {
  const { rows } = await sql.query<EventRow>(`${EVENT_SELECT} WHERE e.id > $1 ORDER BY e.id LIMIT $2`, [after, limit]);
  return { docs: rows.map(eventDocument), last: rows.at(-1)?.id ?? null };
}

export async function attributeDocumentPage(sql: Sql, after: number, limit: number): Promise<{ docs: SearchDocument[]; last: number | null }> {
  const { rows } = await sql.query<AttributeRow>(`${ATTRIBUTE_SELECT("(SELECT * FROM attributes WHERE id > $1 ORDER BY id LIMIT $2) a")} ORDER BY a.id`, [after, limit]);
  return { docs: rows.map(attributeDocument), last: rows.at(-1)?.id ?? null };
}

/**
 * A stored pair as two documents, one per direction (`<source>|<target>|<match_type>`), so
 * `source_attribute_uuid:X` finds every correlation of X, as in the peer's index.
 */
export function correlationDocuments(d: PairDetail): SearchDocument[] {
  const audienceOfSide = (who: "source" | "target") =>
    attributeAudience({
      event_distribution: d[`${who}_event_distribution`],
      event_sharing_group_id: d[`${who}_event_sharing_group_id`],
      event_org_id: d[`${who}_event_org_id`],
      event_orgc_id: d[`${who}_event_orgc_id`],
      distribution: d[`${who}_attribute_distribution`],
      sharing_group_id: d[`${who}_attribute_sharing_group_id`],
      object_distribution: d[`${who}_object_distribution`],
      object_sharing_group_id: d[`${who}_object_sharing_group_id`],
    });
  // A pair shows both attributes: only those who may read both see it.
  const audience = sharedAudience(audienceOfSide("source"), audienceOfSide("target"));
  const side = (from: "source" | "target") => {
    const to = from === "source" ? "target" : "source";
    const pick = (who: "source" | "target", prefix: "source" | "target") => ({
      [`${prefix}_attribute_uuid`]: d[`${who}_attribute_uuid`],
      [`${prefix}_attribute_type`]: d[`${who}_attribute_type`],
      [`${prefix}_attribute_value`]: d[`${who}_attribute_value`],
      [`${prefix}_event_uuid`]: d[`${who}_event_uuid`],
      [`${prefix}_event_distribution`]: d[`${who}_event_distribution`],
      [`${prefix}_event_org_id`]: d[`${who}_event_org_id`],
      [`${prefix}_event_orgc_id`]: d[`${who}_event_orgc_id`],
    });
    return {
      id: correlationDocumentId(d[`${from}_attribute_uuid`], d[`${to}_attribute_uuid`], d.match_type),
      source: {
        ...pick(from, "source"),
        ...pick(to, "target"),
        match_type: d.match_type,
        value: d.value,
        // The peer writes correlation times in UTC with an explicit offset.
        "@timestamp": new Date(d.created_at).toISOString().replace("Z", "+00:00"),
        [AUDIENCE_FIELD]: audience,
      },
    };
  };
  return [side("source"), side("target")];
}

export const correlationDocumentId = (source: string, target: string, matchType: string) => `${source}|${target}|${matchType}`;

export async function loadCorrelationDocuments(sql: Sql, attributeUuids: string[]): Promise<SearchDocument[]> {
  return (await pairsOfAttributes(sql, attributeUuids)).flatMap(correlationDocuments);
}

/** The documents of these pairs (by correlation id) that are still stored. */
export async function loadPairDocuments(sql: Sql, pairIds: number[]): Promise<SearchDocument[]> {
  return (await pairDetails(sql, pairIds)).flatMap(correlationDocuments);
}
