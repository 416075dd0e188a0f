import type { Sql } from "../../platform/db/transaction.ts";

/** The SQL of feed uploads (`feed_uploads`): who an upload belongs to, and which are unused. */
export interface UploadRecord {
  key: string;
  orgId: number | null;
  userId: number | null;
  filename: string;
  size: number;
  sourceFormat: string;
}

export async function insertUpload(sql: Sql, u: UploadRecord): Promise<void> {
  await sql.query(
    "INSERT INTO feed_uploads (key, org_id, user_id, filename, size, source_format) VALUES ($1, $2, $3, $4, $5, $6)",
    [u.key, u.orgId, u.userId, u.filename, u.size, u.sourceFormat],
  );
}

/** An upload's owner, and the file as it was sent (a feed's settings.localFile); filename "" when unknown. */
export interface StoredUpload {
  key: string;
  orgId: number | null;
  filename: string;
  size: number;
}

/** With `lock` (inside a transaction), the row cannot be pruned until the transaction ends. */
export async function findUpload(sql: Sql, key: string, lock = false): Promise<StoredUpload | null> {
  const { rows } = await sql.query<{ key: string; org_id: number | null; filename: string; size: number }>(
    `SELECT key, org_id, filename, size FROM feed_uploads WHERE key = $1${lock ? " FOR KEY SHARE" : ""}`,
    [key],
  );
  return rows[0] ? { key: rows[0].key, orgId: rows[0].org_id, filename: rows[0].filename, size: Number(rows[0].size) } : null;
}

export async function deleteUpload(sql: Sql, key: string): Promise<void> {
  await sql.query("DELETE FROM feed_uploads WHERE key = $1", [key]);
}

/** Uploads recorded more than `olderThanSeconds` ago that no feed reads, oldest first. */
export async function unusedUploads(sql: Sql, olderThanSeconds: number, limit: number): Promise<string[]> {
  const { rows } = await sql.query<{ key: string }>(
    `SELECT u.key FROM feed_uploads u
      WHERE u.created_at < now() - make_interval(secs => $1)
        AND NOT EXISTS (SELECT 1 FROM feeds f WHERE f.input_source = 'local' AND f.url = u.key)
      ORDER BY u.created_at LIMIT $2`,
    [olderThanSeconds, limit],
  );
  return rows.map((r) => r.key);
}

/**
 * Takes an unused upload's row, locked until the transaction ends (inside one); false when a feed
 * reads it or it is gone. The row lock waits for a feed being set up on it (which holds it shared),
 * and the feeds are read after that wait, so a feed committed meanwhile is seen.
 */
export async function claimUnusedUpload(sql: Sql, key: string): Promise<boolean> {
  const locked = await sql.query("SELECT 1 FROM feed_uploads WHERE key = $1 FOR UPDATE", [key]);
  if (locked.rowCount === 0) return false;
  const used = await sql.query("SELECT 1 FROM feeds WHERE input_source = 'local' AND url = $1 LIMIT 1", [key]);
  if ((used.rowCount ?? 0) > 0) return false;
  await sql.query("DELETE FROM feed_uploads WHERE key = $1", [key]);
  return true;
}

/** Records stored uploads found without a row as nobody's, so the usual rule removes them a day later. */
export async function adoptOrphans(sql: Sql, keys: string[]): Promise<number> {
  const { rowCount } = await sql.query(
    `INSERT INTO feed_uploads (key, org_id, user_id, filename, size, source_format)
     SELECT k, NULL, NULL, '', 0, '' FROM unnest($1::text[]) AS k ON CONFLICT (key) DO NOTHING`,
    [keys],
  );
  return rowCount ?? 0;
}
