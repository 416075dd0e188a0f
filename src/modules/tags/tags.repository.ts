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
}
