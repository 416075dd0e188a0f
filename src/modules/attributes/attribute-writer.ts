import type { Sql } from "../../platform/db/transaction.ts";
import { errors } from "../../platform/errors.ts";
import type { WarninglistMatcher } from "../warninglists/index.ts";
import type { AttributeRow } from "./attribute-rules.ts";

/** The warninglist hits of a value as the `warnings` column stores them. */
export const hitsJson = (matcher: WarninglistMatcher, type: string, value1: string, value2: string | null) => JSON.stringify(matcher.match(type, value1, value2));

/** Changed columns of an attribute: a new value (or type) carries its hits, matched now. */
export function withHits(columns: Record<string, unknown>, currentType: string, matcher: WarninglistMatcher): Record<string, unknown> {
  if (!("value1" in columns)) return columns;
  return { ...columns, warnings: hitsJson(matcher, (columns.type as string | undefined) ?? currentType, columns.value1 as string, (columns.value2 as string | null | undefined) ?? null) };
}

/**
 * Inserts validated attributes with one statement (set-based, as the event writer does), all with
 * the same `timestamp`, each with its hits on the enabled warninglists. A uuid that already exists is
 * a 409 and the caller's transaction rolls back.
 */
export async function insertAttributes(
  sql: Sql,
  eventId: number,
  rows: { row: AttributeRow; objectId: number | null }[],
  timestamp: number,
  matcher: WarninglistMatcher,
): Promise<{ id: string; uuid: string }[]> {
  if (rows.length === 0) return [];
  const col = <T>(f: (r: AttributeRow) => T) => rows.map((x) => f(x.row));
  const { rows: inserted } = await sql.query<{ id: string; uuid: string }>(
    `INSERT INTO attributes (event_id, uuid, object_id, object_relation, type, category, value, value1, value2, to_ids, comment,
                             distribution, sharing_group_id, timestamp, first_seen, last_seen, deleted, disable_correlation, warnings)
     SELECT $1, u, o, rel, t, c, v, v1, v2, ids, com, d, sg, $18, fs, ls, del, dc, w
       FROM unnest($2::uuid[], $3::int[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::boolean[],
                   $11::text[], $12::smallint[], $13::int[], $14::timestamptz[], $15::timestamptz[], $16::boolean[], $17::boolean[], $19::jsonb[])
            AS x(u, o, rel, t, c, v, v1, v2, ids, com, d, sg, fs, ls, del, dc, w)
     ON CONFLICT (uuid) DO NOTHING
     RETURNING id::text, uuid::text`,
    [
      eventId,
      col((r) => r.uuid),
      rows.map((x) => x.objectId),
      col((r) => r.objectRelation),
      col((r) => r.type),
      col((r) => r.category),
      col((r) => r.value),
      col((r) => r.value1),
      col((r) => r.value2),
      col((r) => r.toIds),
      col((r) => r.comment),
      col((r) => r.distribution),
      col((r) => r.sharingGroupId),
      col((r) => r.firstSeen?.toISOString() ?? null),
      col((r) => r.lastSeen?.toISOString() ?? null),
      col((r) => r.deleted),
      col((r) => r.disableCorrelation),
      timestamp,
      col((r) => hitsJson(matcher, r.type, r.value1, r.value2)),
    ],
  );
  if (inserted.length < rows.length) {
    const got = new Set(inserted.map((r) => r.uuid));
    const taken = rows.map((x) => x.row.uuid).filter((u) => !got.has(u));
    throw errors.conflict(`An attribute with this uuid already exists: ${taken.slice(0, 20).join(", ")}`);
  }
  return inserted;
}

/** Applies changed columns and moves `timestamp` forward (never backwards, always by at least 1). */
export async function updateAttributeColumns(sql: Sql, id: string, columns: Record<string, unknown>, now: number): Promise<void> {
  const sets: string[] = [];
  const params: unknown[] = [id, now];
  for (const [column, value] of Object.entries(columns)) {
    params.push(value instanceof Date ? value.toISOString() : value);
    sets.push(`${column} = $${params.length}`);
  }
  sets.push("timestamp = GREATEST(timestamp + 1, $2)");
  await sql.query(`UPDATE attributes SET ${sets.join(", ")} WHERE id = $1`, params);
}

/** MISP semantics: every change inside an event bumps the event's `timestamp`. */
export async function touchEvent(sql: Sql, eventId: number, now: number): Promise<void> {
  await sql.query("UPDATE events SET timestamp = GREATEST(timestamp + 1, $2), updated_at = now() WHERE id = $1", [eventId, now]);
}

/** ... and the object's, for changes to an object or to one of its attributes. */
export async function touchObject(sql: Sql, objectId: number, now: number): Promise<void> {
  await sql.query("UPDATE objects SET timestamp = GREATEST(timestamp + 1, $2) WHERE id = $1", [objectId, now]);
}
