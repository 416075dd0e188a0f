import type { Sql } from "../../platform/db/transaction.ts";
import type { Warning, WarninglistType } from "./matchers.ts";

/** The SQL of the warninglists area: lists, their entries, and the hits stored on attributes. */

/** Entries written per statement: bounded parameters whatever the list's size. */
const ENTRY_BATCH = 50_000;

export interface ListHeader {
  name: string;
  version: number;
  description: string;
  type: WarninglistType;
  matchingAttributes: string[];
}

/**
 * Upserts a list by name (enabled is kept). Its entries are rewritten only when they may differ
 * (new list, another version or entry count): a refresh of unchanged lists writes no entry.
 */
export async function upsertList(sql: Sql, h: ListHeader, entryCount: number): Promise<{ id: number; enabled: boolean; inserted: boolean; rewrite: boolean }> {
  const { rows } = await sql.query<{ id: number; enabled: boolean; inserted: boolean; rewrite: boolean }>(
    `WITH before AS (SELECT id, version, entry_count FROM warninglists WHERE name = $1)
     INSERT INTO warninglists AS w (name, version, description, type, matching_attributes, entry_count, updated_at)
     VALUES ($1, $2, $3, $4, $5::text[], $6, now())
     ON CONFLICT (name) DO UPDATE SET version = EXCLUDED.version, description = EXCLUDED.description, type = EXCLUDED.type,
       matching_attributes = EXCLUDED.matching_attributes, entry_count = EXCLUDED.entry_count, updated_at = now()
     RETURNING w.id, w.enabled, (xmax = 0) AS inserted,
       NOT EXISTS (SELECT 1 FROM before b WHERE b.version = $2 AND b.entry_count = $6) AS rewrite`,
    [h.name, h.version, h.description, h.type, h.matchingAttributes, entryCount],
  );
  return rows[0];
}

/** Replaces a list's entries (positions 0..n-1, the file's order) in batches. */
export async function replaceEntries(sql: Sql, listId: number, entries: string[]): Promise<void> {
  await sql.query("DELETE FROM warninglist_entries WHERE warninglist_id = $1", [listId]);
  for (let from = 0; from < entries.length; from += ENTRY_BATCH) {
    await sql.query(
      `INSERT INTO warninglist_entries (warninglist_id, position, value)
       SELECT $1, $2 + (x.ord - 1)::int, x.value FROM unnest($3::text[]) WITH ORDINALITY AS x(value, ord)`,
      [listId, from, entries.slice(from, from + ENTRY_BATCH)],
    );
  }
}

export async function entryPage(sql: Sql, listId: number, offset: number, limit: number): Promise<string[]> {
  if (limit === 0) return [];
  const { rows } = await sql.query<[string]>({
    text: "SELECT value FROM warninglist_entries WHERE warninglist_id = $1 AND position >= $2 ORDER BY position LIMIT $3",
    values: [listId, offset, limit],
    rowMode: "array",
  });
  return rows.map((r) => r[0]);
}

/**
 * The enabled lists' version: their count and a digest of each one's id and updated_at, which every
 * import, enabling and disabling sets (a change of any enabled list changes it, whatever the commit
 * order). Cheap: one row per list, no entry read.
 */
export async function enabledListsVersion(sql: Sql): Promise<string> {
  const { rows } = await sql.query<{ version: string }>(
    "SELECT count(*) || ':' || coalesce(md5(string_agg(id || '@' || updated_at, ',' ORDER BY id)), '') AS version FROM warninglists WHERE enabled",
  );
  return rows[0].version;
}

export async function setEnabled(sql: Sql, id: number, enabled: boolean): Promise<{ name: string; before: boolean } | null> {
  const { rows } = await sql.query<{ name: string; before: boolean }>(
    `UPDATE warninglists w SET enabled = $2, updated_at = CASE WHEN w.enabled = $2 THEN w.updated_at ELSE now() END
       FROM (SELECT id, enabled FROM warninglists WHERE id = $1 FOR UPDATE) b
      WHERE w.id = b.id RETURNING w.name, b.enabled AS before`,
    [id, enabled],
  );
  return rows[0] ?? null;
}

// ---- hits stored on attributes ----

export interface HitRow {
  id: string;
  uuid: string;
  event_uuid: string;
  type: string;
  value1: string;
  value2: string | null;
  warnings: Warning[];
}

/** A keyset page of attributes (by id) with what matching reads. */
export async function attributePage(sql: Sql, after: string, limit: number): Promise<HitRow[]> {
  const { rows } = await sql.query<HitRow>(
    `SELECT a.id::text, a.uuid::text, e.uuid::text AS event_uuid, a.type, a.value1, a.value2, a.warnings
       FROM attributes a JOIN events e ON e.id = a.event_id WHERE a.id > $1::bigint ORDER BY a.id LIMIT $2`,
    [after, limit],
  );
  return rows;
}

/** Stores recomputed hits, unless the value changed since it was read (its writer matched it then). */
export async function writeHits(sql: Sql, changed: (Pick<HitRow, "id" | "type" | "value1" | "value2"> & { warnings: readonly Warning[] })[]): Promise<void> {
  if (changed.length === 0) return;
  await sql.query(
    `UPDATE attributes a SET warnings = x.w FROM unnest($1::bigint[], $2::jsonb[], $3::text[], $4::text[], $5::text[]) AS x(id, w, t, v1, v2)
      WHERE a.id = x.id AND a.type = x.t AND a.value1 = x.v1 AND a.value2 IS NOT DISTINCT FROM x.v2`,
    [changed.map((c) => c.id), changed.map((c) => JSON.stringify(c.warnings)), changed.map((c) => c.type), changed.map((c) => c.value1), changed.map((c) => c.value2)],
  );
}
