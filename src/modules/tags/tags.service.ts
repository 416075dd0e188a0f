import type { z } from "zod";
import type { AppContext } from "../../app-context.ts";
import { authorize, hasScope, type Principal } from "../../auth/principal.ts";
import type { Tag } from "../../generated/prisma/client.ts";
import type { Prisma } from "../../platform/db/index.ts";
import { withTransaction, type Sql } from "../../platform/db/transaction.ts";
import { errors, parseInput } from "../../platform/errors.ts";
import { offsetOf, pageOf, type Page } from "../../platform/pagination.ts";
import { recordChanges, type Change } from "../changes/index.ts";
import { tagColour } from "../events/index.ts";
import { Issues } from "../attributes/index.ts";
import { likeLiteral } from "../../platform/db/like.ts";
import { tagCreateContract, tagListContract, tagUpdateContract, tagUsageContract, tagsByNameContract, tagsLikeContract, type TagFields } from "./tags.contracts.ts";
import { TagsRepository } from "./tags.repository.ts";
import { suggestTags, tagSuggestContract, type TagSuggestion } from "./tag-suggestions.ts";

/** A tag as the service answers it: the Prisma model's row (with the columns a GraphQL query selected). */
export type TagRecord = Tag;

/** The plugin's selection for Tag rows (GraphQL), spread into the service's own reads. */
export type TagQuery = { include?: Prisma.TagInclude } | { select?: Prisma.TagSelect };

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
  private readonly repo: TagsRepository;

  constructor(private readonly ctx: AppContext) {
    this.repo = new TagsRepository(ctx.db.pool);
  }

  /** Tags by name; the contract holds the paging and filter rules for every caller. */
  async list(p: Principal | null, given: z.input<typeof tagListContract>, query: TagQuery = {}): Promise<Page<TagRecord>> {
    authorize(p, "tags:read");
    const q = parseInput(tagListContract, given);
    const where: Prisma.TagWhereInput = {
      ...(q.filter ? { name: { contains: likeLiteral(q.filter), mode: "insensitive" } } : {}),
      ...(q.hidden != null ? { hideTag: q.hidden } : {}),
    };
    const { prisma } = this.ctx.db;
    const [rows, total] = await Promise.all([
      prisma.tag.findMany({ ...query, where, orderBy: [{ name: "asc" }, { id: "asc" }], take: q.size, skip: offsetOf(q) }),
      prisma.tag.count({ where }),
    ]);
    return pageOf(rows, total, q);
  }

  /** The tags with these exact names (one statement for the list), by name; `ignoreCase` as MISP's LOWER(Tag.name). */
  async findByNames(p: Principal | null, given: z.input<typeof tagsByNameContract>): Promise<TagRecord[]> {
    authorize(p, "tags:read");
    const q = parseInput(tagsByNameContract, given);
    return this.repo.byNames(q.names, q.ignoreCase, q.limit);
  }

  /**
   * How many live events carry each tag (`events`, with events:read) and how many live attributes
   * carry it themselves (`attributes`, with attributes:read), of what the caller may read, as MISP's
   * tags/index and tags/view count; 0 for a count the caller may not read or a tag carried by
   * nothing. One statement for the whole list.
   */
  async usage(p: Principal | null, given: z.input<typeof tagUsageContract>): Promise<Map<number, { events: number; attributes: number }>> {
    authorize(p, "tags:read");
    const q = parseInput(tagUsageContract, given);
    const found = await this.repo.usage(p, q.ids, { events: hasScope(p, "events:read"), attributes: hasScope(p, "attributes:read") });
    return new Map(q.ids.map((id) => [id, found.get(id) ?? { events: 0, attributes: 0 }]));
  }

  /**
   * The tags whose name matches one of these SQL LIKE patterns, case-insensitive, as MISP's tags/search
   * (`LOWER(Tag.name) LIKE`), in one statement. A backslash matches itself: as LIKE's escape character
   * a trailing one would be PostgreSQL's error.
   */
  async findMatching(p: Principal | null, given: z.input<typeof tagsLikeContract>): Promise<TagRecord[]> {
    authorize(p, "tags:read");
    const q = parseInput(tagsLikeContract, given);
    return this.repo.likeAny(q.patterns.map((pattern) => pattern.toLowerCase().replace(/\\/g, "\\\\")), q.limit);
  }

  /** Tags to offer while the user types one (pickers in the UI, MCP's get_tags): see suggestTags. */
  async suggest(p: Principal | null, given: z.input<typeof tagSuggestContract>): Promise<TagSuggestion[]> {
    authorize(p, "tags:read");
    const q = parseInput(tagSuggestContract, given);
    return suggestTags(this.ctx.db.pool, q.text, q.limit, { orgId: p!.orgId ?? null, userId: p!.userId ?? null, anyTag: hasScope(p!, "tags:admin") });
  }

  async get(p: Principal | null, id: number, query: TagQuery = {}): Promise<TagRecord> {
    authorize(p, "tags:read");
    return this.load(id, query);
  }

  /** 409 when the name is taken; the colour defaults to one derived from the name (as tagging does). */
  async create(p: Principal | null, given: z.input<typeof tagCreateContract>, query: TagQuery = {}): Promise<TagRecord> {
    authorize(p, "tags:create");
    const f = await this.checkReferences(parseInput(tagCreateContract, given));
    checkOwnership(p, f);
    const values: TagFields = { colour: tagColour(f.name), userId: p.userId, ...f };
    const keys = Object.keys(values) as (keyof TagFields)[];
    const { rows } = await this.ctx.db.pool.query<{ id: number }>(
      `INSERT INTO tags (${keys.map((k) => COLUMNS[k]).join(", ")}) VALUES (${keys.map((_k, i) => `$${i + 1}`).join(", ")})
       ON CONFLICT (name) DO NOTHING RETURNING id`,
      keys.map((k) => values[k]),
    );
    if (!rows[0]) throw errors.conflict("A tag with this name already exists");
    return this.load(rows[0].id, query);
  }

  async update(p: Principal | null, id: number, given: z.input<typeof tagUpdateContract>, query: TagQuery = {}): Promise<TagRecord> {
    authorize(p, "tags:update", "tags:admin");
    const f = await this.checkReferences(parseInput(tagUpdateContract, given));
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
    return this.load(id, query);
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

  private async load(id: number, query: TagQuery): Promise<TagRecord> {
    const tag = await this.ctx.db.prisma.tag.findUnique({ ...query, where: { id } });
    if (!tag) throw errors.notFound("Tag");
    return tag;
  }

  /** The organisation and user a tag names must exist (the contract has checked the rest). */
  private async checkReferences<F extends TagFields>(f: F): Promise<F> {
    const issues = new Issues();
    if (f.orgId != null && !(await exists(this.ctx.db.pool, "organisations", f.orgId))) issues.add(["orgId"], "Organisation does not exist", f.orgId);
    if (f.userId != null && !(await exists(this.ctx.db.pool, "users", f.userId))) issues.add(["userId"], "User does not exist", f.userId);
    issues.throwIfAny();
    return f;
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
