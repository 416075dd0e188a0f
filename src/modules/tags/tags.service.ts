import type { AppContext } from "../../app-context.ts";
import { authorize, hasScope, type Principal } from "../../auth/principal.ts";
import { withTransaction, type Sql } from "../../platform/db/transaction.ts";
import { errors } from "../../platform/errors.ts";
import { offsetOf, pageOf, type Page, type PageRequest } from "../../platform/pagination.ts";
import { recordChanges, type Change } from "../changes/index.ts";
import { tagColour } from "../events/index.ts";
import { checkP2Page } from "../galaxies/index.ts";
import { checkIntRange, Issues } from "../attributes/index.ts";
import { checkColour, tagNameIssues } from "./tag-rules.ts";
import { containsPattern } from "../../platform/db/like.ts";

export interface TagRecord {
  id: number;
  name: string;
  colour: string;
  exportable: boolean;
  hideTag: boolean;
  isGalaxy: boolean;
  isCustomGalaxy: boolean;
  localOnly: boolean;
  numericalValue: number | null;
  orgId: number | null;
  userId: number | null;
}

export interface TagFields {
  name?: string;
  colour?: string;
  exportable?: boolean;
  hideTag?: boolean;
  isGalaxy?: boolean;
  isCustomGalaxy?: boolean;
  localOnly?: boolean;
  numericalValue?: number | null;
  orgId?: number | null;
  userId?: number | null;
}

export interface TagListQuery extends PageRequest {
  /** Case-insensitive substring of the name. */
  filter?: string | null;
  hidden?: boolean | null;
}

const TAG_SELECT = `SELECT id, name, colour, exportable, hide_tag, is_galaxy, is_custom_galaxy, local_only, numerical_value, org_id, user_id FROM tags`;

/** A row of TAG_SELECT. */
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
}

const toTag = (r: TagRow): TagRecord => ({
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
});

const COLUMNS: Record<keyof TagFields, string> = {
  name: "name",
  colour: "colour",
  exportable: "exportable",
  hideTag: "hide_tag",
  isGalaxy: "is_galaxy",
  isCustomGalaxy: "is_custom_galaxy",
  localOnly: "local_only",
  numericalValue: "numerical_value",
  orgId: "org_id",
  userId: "user_id",
};


/**
 * The tag catalogue (global to the instance, as the peer). Links to events and attributes cascade on
 * delete. A definition is shared by every organisation, so changing or deleting one needs
 * `tags:admin` beside the peer's scope; creating one (also by tagging) does not.
 */
export class TagsService {
  constructor(private readonly ctx: AppContext) {}

  async list(p: Principal | null, q: TagListQuery): Promise<Page<TagRecord>> {
    authorize(p, "tags:read");
    checkP2Page(q.page, q.size, "query");
    const where: string[] = [];
    const params: unknown[] = [];
    if (q.filter) {
      if (q.filter.includes("\0")) throw errors.invalidInput(["filter"], "must not contain NUL bytes");
      params.push(containsPattern(q.filter));
      where.push(`name ILIKE $${params.length}`);
    }
    if (q.hidden != null) {
      params.push(q.hidden);
      where.push(`hide_tag = $${params.length}`);
    }
    const w = where.length ? `WHERE ${where.join(" AND ")}` : "";
    const { rows } = await this.ctx.db.pool.query<TagRow>(`${TAG_SELECT} ${w} ORDER BY name, id LIMIT ${q.size} OFFSET ${offsetOf(q)}`, params);
    const count = await this.ctx.db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM tags ${w}`, params);
    return pageOf(rows.map(toTag), count.rows[0].n, q);
  }

  async get(p: Principal | null, id: number): Promise<TagRecord> {
    authorize(p, "tags:read");
    const tag = await loadTag(this.ctx.db.pool, id);
    if (!tag) throw errors.notFound("Tag");
    return tag;
  }

  /** 409 when the name is taken; the colour defaults to one derived from the name (as tagging does). */
  async create(p: Principal | null, fields: TagFields & { name: string }): Promise<TagRecord> {
    authorize(p, "tags:create");
    const f = await this.checkFields(fields);
    checkOwnership(p, f);
    const values: TagFields = { colour: tagColour(f.name!), userId: p.userId, ...f };
    const keys = Object.keys(values) as (keyof TagFields)[];
    const { rows } = await this.ctx.db.pool.query<{ id: number }>(
      `INSERT INTO tags (${keys.map((k) => COLUMNS[k]).join(", ")}) VALUES (${keys.map((_k, i) => `$${i + 1}`).join(", ")})
       ON CONFLICT (name) DO NOTHING RETURNING id`,
      keys.map((k) => values[k]),
    );
    if (!rows[0]) throw errors.conflict("A tag with this name already exists");
    return (await loadTag(this.ctx.db.pool, rows[0].id))!;
  }

  async update(p: Principal | null, id: number, fields: TagFields): Promise<TagRecord> {
    authorize(p, "tags:update", "tags:admin");
    const f = await this.checkFields(fields);
    const keys = Object.keys(f) as (keyof TagFields)[];
    if (keys.length === 0) throw errors.invalidInput([], "Nothing to update");
    const params: unknown[] = [id, ...keys.map((k) => f[k])];
    const taken = f.name === undefined ? null : await this.ctx.db.pool.query("SELECT 1 FROM tags WHERE name = $1 AND id <> $2", [f.name, id]);
    if (taken?.rowCount) throw errors.conflict("A tag with this name already exists");
    const { rowCount } = await this.ctx.db.pool
      .query(`UPDATE tags SET ${keys.map((k, i) => `${COLUMNS[k]} = $${i + 2}`).join(", ")} WHERE id = $1`, params)
      .catch((err: { code?: string }) => {
        // Two renames racing for one name: the unique index decides.
        if (err.code === "23505") throw errors.conflict("A tag with this name already exists");
        throw err;
      });
    if (!rowCount) throw errors.notFound("Tag");
    return (await loadTag(this.ctx.db.pool, id))!;
  }

  /**
   * Deletes the tag; its links to events and attributes go with it (foreign keys cascade). Each
   * removed link is recorded as `event.untagged` / `attribute.untagged` so indexes follow.
   */
  async delete(p: Principal | null, id: number): Promise<void> {
    authorize(p, "tags:delete", "tags:admin");
    await withTransaction(this.ctx.db.pool, async (client) => {
      const tag = await client.query<{ name: string }>("SELECT name FROM tags WHERE id = $1 FOR UPDATE", [id]);
      if (!tag.rowCount) throw errors.notFound("Tag");
      const name = tag.rows[0].name;
      const events = await client.query<{ uuid: string }>("SELECT e.uuid::text FROM event_tags et JOIN events e ON e.id = et.event_id WHERE et.tag_id = $1", [id]);
      const attrs = await client.query<{ uuid: string; event_uuid: string; object_uuid: string | null }>(
        `SELECT a.uuid::text, e.uuid::text AS event_uuid, o.uuid::text AS object_uuid
           FROM attribute_tags at JOIN attributes a ON a.id = at.attribute_id JOIN events e ON e.id = a.event_id
           LEFT JOIN objects o ON o.id = a.object_id WHERE at.tag_id = $1`,
        [id],
      );
      await client.query("DELETE FROM tags WHERE id = $1", [id]);
      const changes: Change[] = [
        ...events.rows.map((e) => ({ kind: "event.untagged", entityType: "event" as const, entityUuid: e.uuid, eventUuid: e.uuid, payload: { tag: name, cascade: true } })),
        ...attrs.rows.map((a) => ({
          kind: "attribute.untagged",
          entityType: "attribute" as const,
          entityUuid: a.uuid,
          eventUuid: a.event_uuid,
          payload: { ...(a.object_uuid ? { object_uuid: a.object_uuid } : {}), tag: name, cascade: true },
        })),
      ];
      if (changes.length) await recordChanges(client, p, changes);
    });
  }

  /** Bounds and references of the given fields (only the keys present), all problems in one 422. */
  private async checkFields(fields: TagFields): Promise<TagFields> {
    const issues = new Issues();
    const out: TagFields = {};
    for (const [k, v] of Object.entries(fields) as [keyof TagFields, unknown][]) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
    if (out.name !== undefined) out.name = tagNameIssues(issues, ["name"], out.name);
    if (out.colour !== undefined) out.colour = checkColour(issues, ["colour"], out.colour);
    if (out.numericalValue != null) checkIntRange(issues, ["numericalValue"], out.numericalValue, -2_147_483_648, 2_147_483_647);
    if (out.orgId != null) {
      checkIntRange(issues, ["orgId"], out.orgId, 1, 2_147_483_647);
      if (issues.empty && !(await exists(this.ctx.db.pool, "organisations", out.orgId))) issues.add(["orgId"], "Organisation does not exist", out.orgId);
    }
    if (out.userId != null) {
      checkIntRange(issues, ["userId"], out.userId, 1, 2_147_483_647);
      if (issues.empty && !(await exists(this.ctx.db.pool, "users", out.userId))) issues.add(["userId"], "User does not exist", out.userId);
    }
    issues.throwIfAny();
    return out;
  }
}

/** A tag created without `tags:admin` may only name the caller (or nobody) as its organisation and user. */
function checkOwnership(p: Principal, f: TagFields): void {
  if (hasScope(p, "tags:admin")) return;
  if (f.orgId != null && f.orgId !== p.orgId) throw errors.forbidden("Only tags:admin may create a tag of another organisation");
  if (f.userId != null && f.userId !== p.userId) throw errors.forbidden("Only tags:admin may create a tag of another user");
}

async function exists(sql: Sql, table: "organisations" | "users", id: number): Promise<boolean> {
  return Boolean((await sql.query(`SELECT 1 FROM ${table} WHERE id = $1`, [id])).rowCount);
}

export async function loadTag(sql: Sql, id: number): Promise<TagRecord | null> {
  const { rows } = await sql.query<TagRow>(`${TAG_SELECT} WHERE id = $1`, [id]);
  return rows[0] ? toTag(rows[0]) : null;
}
