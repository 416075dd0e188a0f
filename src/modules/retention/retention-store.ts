import type { Sql } from "../../platform/db/transaction.ts";

/**
 * Every SQL statement of event retention. "Older than" means the event's `timestamp` (its last
 * change, as MISP keeps it): an event still being worked on is not purged, whatever its date says.
 * Preview, badges and enforcement all use `CANDIDATE_WHERE`, so they agree. Soft-deleted events
 * are not candidates (spec 8 selects non-deleted events): `purge_deleted` removes them on its own terms.
 */
const CANDIDATE_WHERE = `e.timestamp < $1::bigint AND NOT e.deleted
  AND NOT EXISTS (SELECT 1 FROM event_tags et JOIN tags t ON t.id = et.tag_id WHERE et.event_id = e.id AND t.name = ANY($2::text[]))`;

/** Events whose last change is before `cutoff` (epoch seconds) and carry no exempt tag. */
export async function countCandidates(sql: Sql, cutoff: number, exemptTags: string[]): Promise<number> {
  const { rows } = await sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM events e WHERE ${CANDIDATE_WHERE}`, [cutoff, exemptTags]);
  return rows[0].n;
}

export interface PurgedEvent {
  id: number;
  uuid: string;
  info: string;
  orgc_uuid: string;
  orgc_name: string;
  distribution: number;
  sharing_group_id: number | null;
  org_id: number;
  orgc_id: number;
  attributes: number;
}

/**
 * Locks up to `limit` candidates; events another transaction holds (being edited) are skipped and
 * left for the next run rather than waited for.
 */
export async function lockCandidates(sql: Sql, cutoff: number, exemptTags: string[], limit: number): Promise<PurgedEvent[]> {
  const { rows } = await sql.query<PurgedEvent>(
    `SELECT ${PURGED_EVENT_COLUMNS}
       FROM events e JOIN organisations o ON o.id = e.orgc_id
      WHERE ${CANDIDATE_WHERE}
      ORDER BY e.id LIMIT $3 FOR UPDATE OF e SKIP LOCKED`,
    [cutoff, exemptTags, limit],
  );
  return rows;
}

const PURGED_EVENT_COLUMNS = `e.id, e.uuid::text, e.info, o.uuid::text AS orgc_uuid, o.name AS orgc_name, e.distribution, e.sharing_group_id, e.org_id, e.orgc_id,
            (SELECT count(*)::int FROM attributes a WHERE a.event_id = e.id) AS attributes`;

/** Locks up to `limit` events soft-deleted before `before` (ISO instant), skipping those being edited. */
export async function lockDeletedBefore(sql: Sql, before: string, limit: number): Promise<PurgedEvent[]> {
  const { rows } = await sql.query<PurgedEvent>(
    `SELECT ${PURGED_EVENT_COLUMNS}
       FROM events e JOIN organisations o ON o.id = e.orgc_id
      WHERE e.deleted AND e.deleted_at < $1::timestamptz
      ORDER BY e.deleted_at, e.id LIMIT $2 FOR UPDATE OF e SKIP LOCKED`,
    [before, limit],
  );
  return rows;
}

export interface PurgeOutcome {
  sightings: number;
  /** Removed pairs, for their change records (the search documents go by id). */
  correlations: { id: string; match_type: string; source_attribute_uuid: string; source_event_uuid: string; target_attribute_uuid: string }[];
  /** Attribute uuids per purged event id. */
  attributeUuids: Map<number, string[]>;
}

/**
 * Deletes the events in the order the spec gives: sightings of their attributes, correlations on
 * either side, then the events (their attributes, objects, references and tags cascade).
 */
export async function purgeEvents(sql: Sql, eventIds: number[]): Promise<PurgeOutcome> {
  const attrs = await sql.query<{ event_id: number; uuids: string[] }>(
    "SELECT event_id, array_agg(uuid::text) AS uuids FROM attributes WHERE event_id = ANY($1::int[]) GROUP BY event_id",
    [eventIds],
  );
  const sightings = await sql.query(
    "DELETE FROM sightings s USING attributes a WHERE a.id = s.attribute_id AND a.event_id = ANY($1::int[])",
    [eventIds],
  );
  const correlations = await sql.query<PurgeOutcome["correlations"][number]>(
    `WITH gone AS (
       DELETE FROM correlations WHERE source_event_id = ANY($1::int[]) OR target_event_id = ANY($1::int[])
       RETURNING id, match_type, source_attribute_id, target_attribute_id)
     SELECT g.id::text, g.match_type, sa.uuid::text AS source_attribute_uuid, se.uuid::text AS source_event_uuid, ta.uuid::text AS target_attribute_uuid
       FROM gone g JOIN attributes sa ON sa.id = g.source_attribute_id JOIN events se ON se.id = sa.event_id
       JOIN attributes ta ON ta.id = g.target_attribute_id`,
    [eventIds],
  );
  await sql.query("DELETE FROM events WHERE id = ANY($1::int[])", [eventIds]);
  return {
    sightings: sightings.rowCount ?? 0,
    correlations: correlations.rows,
    attributeUuids: new Map(attrs.rows.map((r) => [r.event_id, r.uuids])),
  };
}
