import type pg from "pg";
import { errors } from "../../platform/errors.ts";
import { readRuntimeSetting } from "../settings/index.ts";

/**
 * MISP's required taxonomies, when the instance enforces them (runtime setting
 * `taxonomies.enforce_required`): an event is published only once it carries a tag of each enabled
 * taxonomy marked required (`tlp:amber` satisfies `tlp`). Imports keep their source's published state.
 */
export async function checkRequiredTaxonomies(db: Pick<pg.PoolClient, "query">, eventId: number | null): Promise<void> {
  const { enforce_required } = await readRuntimeSetting(db, "taxonomies");
  if (!enforce_required) return;
  const { rows } = await db.query<{ namespace: string }>(
    `SELECT t.namespace FROM taxonomies t
      WHERE t.enabled AND t.required
        AND NOT EXISTS (
          SELECT 1 FROM event_tags et JOIN tags g ON g.id = et.tag_id
           WHERE et.event_id = $1 AND left(lower(g.name), length(t.namespace) + 1) = lower(t.namespace) || ':')
      ORDER BY t.namespace`,
    [eventId ?? 0],
  );
  if (rows.length) {
    const missing = rows.map((r) => r.namespace).join(", ");
    // The event's state, not the request, is what is wrong: 409, as for other state conflicts.
    throw errors.conflict(`Publishing needs a tag of each required taxonomy; this event has none of: ${missing}`);
  }
}
