import { readableSql } from "../../auth/distribution.ts";
import type { Principal } from "../../auth/principal.ts";
import type { Tag } from "../../generated/prisma/client.ts";
import type { Sql } from "../../platform/db/transaction.ts";

/** A tags row as PostgreSQL returns it. */
interface TagRow {
  id: number;
  name: string;
  colour: string;
  exportable: boolean;
  hide_tag: boolean;
  is_galaxy: boolean;
  is_custom_galaxy: boolean;
  local_only: boolean;
  numerical_value: number | null;
  org_id: number | null;
  user_id: number | null;
  created_at: Date;
}

const TAG_COLUMNS = "id, name, colour, exportable, hide_tag, is_galaxy, is_custom_galaxy, local_only, numerical_value, org_id, user_id, created_at";

const toTag = (r: TagRow): Tag => ({
  id: r.id,
  name: r.name,
  colour: r.colour,
  exportable: r.exportable,
  hideTag: r.hide_tag,
  isGalaxy: r.is_galaxy,
  isCustomGalaxy: r.is_custom_galaxy,
  localOnly: r.local_only,
  numericalValue: r.numerical_value,
  orgId: r.org_id,
  userId: r.user_id,
  createdAt: r.created_at,
});

/** The tag catalogue's set-based reads: a list of names or patterns in one statement, not one per name. */
export class TagsRepository {
  constructor(private readonly sql: Sql) {}

  /** The tags with exactly these names (`ignoreCase`: compared lower-cased), by name then id, at most `limit`. */
  async byNames(names: readonly string[], ignoreCase: boolean, limit: number): Promise<Tag[]> {
    if (names.length === 0) return [];
    const { rows } = await this.sql.query<TagRow>(
      ignoreCase
        ? `SELECT ${TAG_COLUMNS} FROM tags WHERE lower(name) = ANY($1::text[]) ORDER BY name, id LIMIT $2`
        : `SELECT ${TAG_COLUMNS} FROM tags WHERE name = ANY($1::text[]) ORDER BY name, id LIMIT $2`,
      [ignoreCase ? [...new Set(names.map((n) => n.toLowerCase()))] : [...new Set(names)], limit],
    );
    return rows.map(toTag);
  }

  /** The tags whose lower-cased name matches one of these LIKE patterns (already lower-cased and escaped), by name then id, at most `limit`. */
  async likeAny(patterns: readonly string[], limit: number): Promise<Tag[]> {
    if (patterns.length === 0) return [];
    const { rows } = await this.sql.query<TagRow>(`SELECT ${TAG_COLUMNS} FROM tags WHERE lower(name) LIKE ANY($1::text[]) ORDER BY name, id LIMIT $2`, [[...new Set(patterns)], limit]);
    return rows.map(toTag);
  }

  /**
   * Per tag, the live events carrying it (`events`) and the live attributes carrying it themselves
   * (`attributes`; attribute, object and event not deleted) that the reader may read, in one
   * statement for the whole list; a count not asked is 0. Tags carried by nothing are left out.
   */
  async usage(reader: Principal, ids: readonly number[], asked: { events: boolean; attributes: boolean }): Promise<Map<number, { events: number; attributes: number }>> {
    const out = new Map<number, { events: number; attributes: number }>();
    if (ids.length === 0 || !(asked.events || asked.attributes)) return out;
    const params: unknown[] = [[...new Set(ids)], asked.events, asked.attributes];
    const eventReadable = readableSql(reader, "e", [], params);
    const attributeReadable = readableSql(reader, "e", ["a.distribution", "o.distribution"], params);
    const { rows } = await this.sql.query<{ tag_id: number; events: number; attributes: number }>(
      `SELECT COALESCE(ev.tag_id, at.tag_id) AS tag_id, COALESCE(ev.n, 0)::int AS events, COALESCE(at.n, 0)::int AS attributes
         FROM (SELECT et.tag_id, count(*) AS n FROM event_tags et JOIN events e ON e.id = et.event_id
                WHERE $2 AND et.tag_id = ANY($1::int[]) AND NOT e.deleted AND ${eventReadable} GROUP BY et.tag_id) ev
         FULL JOIN (SELECT att.tag_id, count(*) AS n FROM attribute_tags att JOIN attributes a ON a.id = att.attribute_id
                      JOIN events e ON e.id = a.event_id LEFT JOIN objects o ON o.id = a.object_id
                     WHERE $3 AND att.tag_id = ANY($1::int[]) AND NOT a.deleted AND NOT e.deleted AND NOT COALESCE(o.deleted, false) AND ${attributeReadable}
                     GROUP BY att.tag_id) at ON at.tag_id = ev.tag_id`,
      params,
    );
    for (const r of rows) out.set(r.tag_id, { events: r.events, attributes: r.attributes });
    return out;
  }
}
