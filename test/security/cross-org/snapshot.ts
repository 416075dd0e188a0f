import type pg from "pg";

/**
 * A digest of everything organisation A owns, computed in SQL from the tables, one per table. Only
 * columns that other organisations' ALLOWED actions change are left out, each with its reason.
 */
const A_USERS = "SELECT id FROM users WHERE org_id = $1";
const A_EVENTS = "SELECT id FROM events WHERE org_id = $1 OR orgc_id = $1";
const A_HUNTS = `SELECT id FROM hunts WHERE user_id IN (${A_USERS})`;

const TABLES: Record<string, string> = {
  organisations: "SELECT to_jsonb(o) AS r FROM organisations o WHERE o.id = $1",
  // A's users with the scopes of their role: a role change by anyone changes what A's users may do.
  users: "SELECT to_jsonb(u) || jsonb_build_object('role_scopes', r.scopes) AS r FROM users u JOIN roles r ON r.id = u.role_id WHERE u.org_id = $1",
  refresh_tokens: `SELECT to_jsonb(t) AS r FROM refresh_tokens t WHERE t.user_id IN (${A_USERS})`,
  user_settings: `SELECT to_jsonb(s) AS r FROM user_settings s WHERE s.user_id IN (${A_USERS})`,
  api_keys: `SELECT to_jsonb(k) AS r FROM api_keys k WHERE k.user_id IN (${A_USERS})`,
  // sighting_timestamp: the last sighting of any attribute of the event, and B may sight the
  // attributes of A's shared event (its sightings are B's, not in this digest).
  events: `SELECT to_jsonb(e) - 'sighting_timestamp' AS r FROM events e WHERE e.id IN (${A_EVENTS})`,
  attributes: `SELECT to_jsonb(a) AS r FROM attributes a WHERE a.event_id IN (${A_EVENTS})`,
  objects: `SELECT to_jsonb(o) AS r FROM objects o WHERE o.event_id IN (${A_EVENTS})`,
  object_references: `SELECT to_jsonb(x) AS r FROM object_references x WHERE x.event_id IN (${A_EVENTS})`,
  // Tags by name: a renamed or deleted tag definition changes A's events even though the link stays.
  event_tags: `SELECT jsonb_build_object('event', et.event_id, 'tag', t.name, 'colour', t.colour, 'local', et.local) AS r
                 FROM event_tags et JOIN tags t ON t.id = et.tag_id WHERE et.event_id IN (${A_EVENTS})`,
  attribute_tags: `SELECT jsonb_build_object('attribute', at.attribute_id, 'tag', t.name, 'colour', t.colour, 'local', at.local) AS r
                     FROM attribute_tags at JOIN tags t ON t.id = at.tag_id JOIN attributes a ON a.id = at.attribute_id WHERE a.event_id IN (${A_EVENTS})`,
  tags: `SELECT to_jsonb(t) AS r FROM tags t WHERE t.org_id = $1 OR t.user_id IN (${A_USERS})`,
  // Sightings BY A (B's sightings of A's shared attributes are B's).
  sightings: "SELECT to_jsonb(s) AS r FROM sightings s WHERE s.org_id = $1",
  // Pairs between two of A's attributes; pairs between B's and A's shared attributes appear when B
  // writes a value A holds, which B may do.
  correlations: `SELECT to_jsonb(c) AS r FROM correlations c WHERE c.source_event_id IN (${A_EVENTS}) AND c.target_event_id IN (${A_EVENTS})`,
  hunts: `SELECT to_jsonb(h) AS r FROM hunts h WHERE h.id IN (${A_HUNTS})`,
  hunt_runs: `SELECT to_jsonb(x) AS r FROM hunt_runs x WHERE x.hunt_id IN (${A_HUNTS})`,
  hunt_results: `SELECT to_jsonb(x) AS r FROM hunt_results x WHERE x.hunt_id IN (${A_HUNTS})`,
  exports: `SELECT to_jsonb(x) AS r FROM exports x WHERE x.user_id IN (${A_USERS})`,
  feeds: "SELECT to_jsonb(f) AS r FROM feeds f WHERE f.org_id = $1",
  feed_uploads: "SELECT to_jsonb(u) AS r FROM feed_uploads u WHERE u.org_id = $1",
  scheduled_tasks: `SELECT to_jsonb(s) AS r FROM scheduled_tasks s WHERE s.owner_id IN (${A_USERS})`,
  task_runs: `SELECT to_jsonb(x) AS r FROM task_runs x WHERE x.run_as_user_id IN (${A_USERS})`,
  notifications: `SELECT to_jsonb(n) AS r FROM notifications n WHERE n.user_id IN (${A_USERS})`,
};

export type Snapshot = Record<string, { rows: number; digest: string }>;

export async function snapshotOrg(pool: pg.Pool, orgId: number): Promise<Snapshot> {
  const out: Snapshot = {};
  for (const [table, sql] of Object.entries(TABLES)) {
    const { rows } = await pool.query<{ n: number; h: string }>(
      `SELECT count(*)::int AS n, md5(coalesce(string_agg(x.r::text, '|' ORDER BY x.r::text), '')) AS h FROM (${sql}) x`,
      [orgId],
    );
    out[table] = { rows: rows[0].n, digest: rows[0].h };
  }
  return out;
}

/** The tables whose digest differs, with their row counts before and after. */
export function changedTables(before: Snapshot, after: Snapshot): string[] {
  return Object.keys(before)
    .filter((t) => before[t].digest !== after[t]?.digest)
    .map((t) => `${t} (rows ${before[t].rows} -> ${after[t]?.rows})`);
}
