import type { Sql } from "../../../platform/db/transaction.ts";

/** The SQL ingestion needs to keep a feed's values inside its own event. */

/** The organisation owning the event with this uuid, or null when there is none. */
export async function eventOrg(sql: Sql, uuid: string): Promise<number | null> {
  const { rows } = await sql.query<{ org_id: number }>("SELECT org_id FROM events WHERE uuid = $1", [uuid]);
  return rows[0]?.org_id ?? null;
}

export async function isSoftDeleted(sql: Sql, uuid: string): Promise<boolean> {
  const { rows } = await sql.query<{ deleted: boolean }>("SELECT deleted FROM events WHERE uuid = $1", [uuid]);
  return rows[0]?.deleted ?? false;
}

export async function setFeedEvent(sql: Sql, feedId: number, uuid: string): Promise<void> {
  await sql.query("UPDATE feeds SET event_uuid = $2 WHERE id = $1", [feedId, uuid]);
}

/** Of these attribute uuids, those the event holds. */
export async function uuidsInEvent(sql: Sql, eventUuid: string, uuids: string[]): Promise<Set<string>> {
  const { rows } = await sql.query<{ uuid: string }>(
    "SELECT a.uuid::text FROM attributes a WHERE a.uuid = ANY($1::uuid[]) AND a.event_id = (SELECT e.id FROM events e WHERE e.uuid = $2)",
    [uuids, eventUuid],
  );
  return new Set(rows.map((r) => r.uuid));
}

/** Of these attribute uuids, those another event's attribute or an event holds (the write would conflict). */
export async function uuidsElsewhere(sql: Sql, eventUuid: string, uuids: string[]): Promise<Set<string>> {
  const { rows } = await sql.query<{ uuid: string }>(
    `SELECT a.uuid::text FROM attributes a
      WHERE a.uuid = ANY($1::uuid[]) AND a.event_id IS DISTINCT FROM (SELECT e.id FROM events e WHERE e.uuid = $2)
     UNION
     SELECT e.uuid::text FROM events e WHERE e.uuid = ANY($1::uuid[])`,
    [uuids, eventUuid],
  );
  return new Set(rows.map((r) => r.uuid));
}
