import type { z } from "zod";
import type pg from "pg";
import type { AppContext } from "../../app-context.ts";
import { authorize, type Principal } from "../../auth/principal.ts";
import { withTransaction } from "../../platform/db/transaction.ts";
import { errors } from "../../platform/errors.ts";
import { offsetOf, pageOf, type Page, type PageRequest } from "../../platform/pagination.ts";
import { recordChanges, type Change } from "../changes/index.ts";
import { canReadEvent, canReadInEvent, canWriteEvent, readableAttributeWhere, readableSql } from "../../auth/distribution.ts";
import type { Prisma } from "../../platform/db/index.ts";
import { ensureTags, type TagView } from "../events/index.ts";
import { checkTagName } from "../tags/index.ts";
import { checkExclusiveTags } from "../taxonomies/index.ts";
import { checkAssignableSharingGroups } from "../sharing-groups/index.ts";
import { attributeUuidById, listAttributes, tagsOfAttributes, loadAttribute, loadAttributesByUuid, lockEvent, standaloneDuplicates, type AttributeView, type DuplicateKey, type EventRef } from "./attribute-reader.ts";
import { duplicatesContract } from "./attributes.contracts.ts";
import { MAX_VALUE_LENGTH, validateAttributeValue } from "./catalogue/index.ts";
import { prepareAttributePatch, prepareNewAttribute, type AttributeCreate, type AttributePatch } from "./attribute-rules.ts";
import { insertAttributes, touchEvent, touchObject, updateAttributeColumns, withHits } from "./attribute-writer.ts";
import { Issues, nowSeconds } from "./input-checks.ts";
import { parseInput } from "../../platform/errors.ts";
import { statisticsContract, type StatisticsInput } from "../../platform/statistics.ts";
import { attributeStatistics, type AttributeStatistics } from "./attribute-statistics.ts";
import { getAttributeCatalogue, type AttributeCatalogue } from "./catalogue/catalogue.ts";
import { containsPattern, likeLiteral } from "../../platform/db/like.ts";

export interface AttributeFilter {
  eventUuid?: string;
  type?: string;
  category?: string;
  /** Part of the value, case-insensitive. */
  value?: string;
  /** Given: the attributes of that object; absent: standalone attributes only (as the peer). */
  objectUuid?: string;
  /** Omitted: soft-deleted attributes are listed too (the peer's list); false leaves them out. */
  deleted?: boolean;
}

export interface AttributeDeleteOptions {
  /** Hard delete: the row, its tags, sightings and correlations are gone for good. Default: soft delete. */
  force?: boolean;
}

/** What change records say about a deleted attribute (the notification payload needs no re-read). */
export function attributeDeletedChange(a: Pick<AttributeView, "uuid" | "type" | "value">, e: EventRef, objectUuid: string | null): Change {
  return {
    kind: "attribute.deleted",
    entityType: "attribute",
    entityUuid: a.uuid,
    eventUuid: e.uuid,
    payload: { event_title: e.info, attribute_type: a.type, attribute_value: a.value, object_uuid: objectUuid },
  };
}

const objectPayload = (objectUuid: string | null) => (objectUuid ? { object_uuid: objectUuid } : {});

/** Attributes one event lists in a read of several events (Event.attributes over GraphQL). */
export const MAX_ATTRIBUTES_PER_EVENT = 1000;

/** What @pothos/plugin-prisma planned for the GraphQL selection: the relations and columns to load. */
export type AttributeSelection = Pick<Prisma.AttributeFindManyArgs, "include" | "select">;
/** An attribute row as Prisma loads it, with whatever relations its selection included. */
export type AttributeRecord = Prisma.AttributeGetPayload<object>;

const NEWEST_FIRST: Prisma.AttributeOrderByWithRelationInput[] = [{ timestamp: "desc" }, { id: "desc" }];

function attributeFilterWhere(filter: AttributeFilter): Prisma.AttributeWhereInput {
  return {
    ...(filter.eventUuid ? { event: { uuid: filter.eventUuid } } : {}),
    ...(filter.type ? { type: filter.type } : {}),
    ...(filter.category ? { category: filter.category } : {}),
    ...(filter.value ? { value: { contains: likeLiteral(filter.value), mode: "insensitive" as const } } : {}),
    ...(filter.objectUuid ? { object: { uuid: filter.objectUuid } } : { objectId: null }),
    ...(filter.deleted !== undefined ? { deleted: filter.deleted } : {}),
  };
}

/**
 * Attributes: reading follows the readability of the attribute's event, writing needs write
 * access to it. Every write bumps the attribute's, its object's and its event's `timestamp` and
 * records its change in the same transaction.
 */
export class AttributesService {
  constructor(private readonly ctx: AppContext) {}

  /** MISP's type and category catalogue (describeTypes), what attribute writes are checked against. */
  catalogue(p: Principal | null): AttributeCatalogue {
    authorize(p, "attributes:read");
    return getAttributeCatalogue();
  }

  async list(p: Principal | null, filter: AttributeFilter, req: PageRequest): Promise<Page<AttributeView>> {
    authorize(p, "attributes:read");
    const params: unknown[] = [];
    const where = [readableSql(p, "e", ["a.distribution", "o.distribution"], params)];
    const add = (sql: string, value: unknown) => {
      params.push(value);
      where.push(sql.replace("?", `$${params.length}`));
    };
    if (filter.eventUuid) add("e.uuid = ?", filter.eventUuid);
    if (filter.type) add("a.type = ?", filter.type);
    if (filter.category) add("a.category = ?", filter.category);
    if (filter.value) add("a.value ILIKE ?", containsPattern(filter.value));
    if (filter.objectUuid) add("o.uuid = ?", filter.objectUuid);
    else where.push("a.object_id IS NULL");
    if (filter.deleted !== undefined) add("a.deleted = ?", filter.deleted);
    const { items, total } = await listAttributes(this.ctx.db.pool, where.join(" AND "), params, req.size, offsetOf(req));
    return pageOf(items, total, req);
  }

  /**
   * For each candidate, the live standalone attribute of the event MISP would call its duplicate
   * (MispAttribute::valueIsUnique: same type, the same value once normalised as a write stores it,
   * the same category when one is given), newest first, among those the caller may read; null when
   * there is none. One statement for the whole list.
   */
  async duplicates(p: Principal | null, given: z.input<typeof duplicatesContract>): Promise<{ key: DuplicateKey | null; existing: AttributeView | null }[]> {
    authorize(p, "attributes:read");
    const q = parseInput(duplicatesContract, given);
    const storable = (s: string) => !s.includes("\0") && s.length <= MAX_VALUE_LENGTH;
    const keys = q.candidates.map((c): DuplicateKey | null => {
      if (![c.type, c.value, c.category ?? ""].every(storable)) return null;
      const checked = validateAttributeValue(c.type, c.value);
      return { type: c.type, value: checked.ok ? checked.normalized : c.value, category: c.category ?? null };
    });
    const found = await standaloneDuplicates(this.ctx.db.pool, q.eventUuid, keys.filter((k) => k !== null), p);
    let next = 0;
    return keys.map((key) => ({ key, existing: key === null ? null : (found[next++] ?? null) }));
  }

  /** The same list for GraphQL: Prisma rows loaded with the selection the plugin planned, same rule and order. */
  async findPage(p: Principal | null, filter: AttributeFilter, req: PageRequest, selection: AttributeSelection): Promise<Page<AttributeRecord>> {
    authorize(p, "attributes:read");
    const where: Prisma.AttributeWhereInput = { AND: [readableAttributeWhere(p), attributeFilterWhere(filter)] };
    const [items, total] = await Promise.all([
      this.ctx.db.prisma.attribute.findMany({ ...selection, where, orderBy: NEWEST_FIRST, skip: offsetOf(req), take: req.size }),
      this.ctx.db.prisma.attribute.count({ where }),
    ]);
    return pageOf(items, total, req);
  }

  /**
   * The tags of attributes the caller has already read (GraphQL's Attribute.tags for a whole page in
   * one statement: as a nested Prisma select they were built for every attribute before the limit).
   */
  async tagsOf(p: Principal | null, attributeIds: readonly string[]): Promise<Map<string, TagView[]>> {
    authorize(p, "attributes:read");
    return tagsOfAttributes(this.ctx.db.pool, attributeIds);
  }

  /** One attribute for GraphQL (a soft-deleted one too); 404 when it is not readable. */
  async findOne(p: Principal | null, uuid: string, selection: AttributeSelection): Promise<AttributeRecord> {
    authorize(p, "attributes:read");
    const a = await this.ctx.db.prisma.attribute.findFirst({ ...selection, where: { AND: [readableAttributeWhere(p), { uuid }] } });
    if (!a) throw errors.notFound("Attribute");
    return a;
  }

  /**
   * An event's standalone attributes the caller may read, newest change first, at most `perEvent`
   * (1 to 1000): the relation query GraphQL loads with a page of events, in the same statement.
   * `deleted`: null for all, else only those whose flag matches.
   */
  standaloneOfEvent(p: Principal | null, opts: { perEvent: number; deleted: boolean | null }) {
    authorize(p, "attributes:read");
    if (!Number.isInteger(opts.perEvent) || opts.perEvent < 1 || opts.perEvent > MAX_ATTRIBUTES_PER_EVENT) {
      throw errors.invalidInput(["limit"], `must be from 1 to ${MAX_ATTRIBUTES_PER_EVENT}`, opts.perEvent);
    }
    const where: Prisma.AttributeWhereInput = { AND: [{ objectId: null }, opts.deleted === null ? {} : { deleted: opts.deleted }, readableAttributeWhere(p)] };
    return { where, orderBy: NEWEST_FIRST, take: opts.perEvent };
  }

  /**
   * Counts of the live attributes the caller may read whose last change lies in the range: by type,
   * category and tag (the most frequent `top` of each, with how many distinct keys there are).
   */
  async statistics(p: Principal | null, input: StatisticsInput): Promise<AttributeStatistics> {
    authorize(p, "attributes:read");
    return attributeStatistics(this.ctx, p, parseInput(statisticsContract, input));
  }

  /** 404 when missing or not readable (distribution): existence is not disclosed. Deleted ones are returned. */
  async get(p: Principal | null, uuid: string): Promise<AttributeView> {
    const [a] = await this.getMany(p, [uuid]);
    if (!a) throw errors.notFound("Attribute");
    return a;
  }

  /** The attributes of these uuids the caller may read, in the order asked (a page's reads in one statement); the others are left out. */
  async getMany(p: Principal | null, uuids: readonly string[]): Promise<AttributeView[]> {
    authorize(p, "attributes:read");
    const byUuid = new Map((await loadAttributesByUuid(this.ctx.db.pool, uuids)).filter((a) => canReadAttribute(p, a)).map((a) => [a.uuid, a]));
    return uuids.map((u) => byUuid.get(u)).filter((a): a is AttributeView => a !== undefined);
  }

  /** The uuid of the attribute with MISP's numeric id, or null; the read or write that follows checks access. */
  async uuidOf(p: Principal | null, id: number): Promise<string | null> {
    authorize(p);
    return attributeUuidById(this.ctx.db.pool, id);
  }

  async create(p: Principal | null, input: AttributeCreate): Promise<AttributeView> {
    authorize(p, "attributes:create");
    if (!input.eventUuid) throw errors.badRequest("Event UUID must be provided");
    const issues = new Issues();
    const row = prepareNewAttribute(issues, [], input);
    issues.throwIfAny();
    const matcher = await this.ctx.warninglists.matcher();
    return withTransaction(this.ctx.db.pool, async (client) => {
      const e = await writableEvent(client, p, input.eventUuid!);
      if (row!.sharingGroupId !== null) await checkAssignableSharingGroups(client, p, [{ id: row!.sharingGroupId, loc: ["sharingGroupId"] }]);
      let objectId: number | null = null;
      if (input.objectUuid) {
        const o = await client.query<{ id: number }>("SELECT id FROM objects WHERE uuid = $1 AND event_id = $2 FOR UPDATE", [input.objectUuid, e.id]);
        if (!o.rowCount) throw errors.invalidInput(["objectUuid"], "No object with this uuid in the event", input.objectUuid);
        objectId = o.rows[0].id;
      }
      const now = nowSeconds();
      await insertAttributes(client, e.id, [{ row: row!, objectId }], now, matcher);
      if (objectId !== null) await touchObject(client, objectId, now);
      await touchEvent(client, e.id, now);
      await recordChanges(client, p, [
        { kind: "attribute.created", entityType: "attribute", entityUuid: row!.uuid, eventUuid: e.uuid, payload: input.objectUuid ? { object_uuid: input.objectUuid } : null },
      ]);
      return (await loadAttribute(client, row!.uuid))!;
    });
  }

  async update(p: Principal | null, uuid: string, patch: AttributePatch): Promise<AttributeView> {
    authorize(p, "attributes:update");
    const matcher = await this.ctx.warninglists.matcher();
    return this.mutate(p, uuid, async (client, a, e, now) => {
      const issues = new Issues();
      const prepared = prepareAttributePatch(issues, [], a, patch);
      issues.throwIfAny();
      const { columns, fields } = prepared!;
      if (typeof columns.sharing_group_id === "number") await checkAssignableSharingGroups(client, p, [{ id: columns.sharing_group_id, loc: ["sharingGroupId"] }]);
      let objectId = a.objectId;
      let objectUuid = a.objectUuid;
      if (patch.objectUuid !== undefined && patch.objectUuid !== a.objectUuid) {
        objectUuid = patch.objectUuid;
        objectId = null;
        if (patch.objectUuid !== null) {
          const o = await client.query<{ id: number }>("SELECT id FROM objects WHERE uuid = $1 AND event_id = $2 FOR UPDATE", [patch.objectUuid, e.id]);
          if (!o.rowCount) throw errors.invalidInput(["objectUuid"], "No object with this uuid in the event", patch.objectUuid);
          objectId = o.rows[0].id;
        }
        columns.object_id = objectId;
        fields.push("object_uuid");
      }
      if (fields.length === 0) return [];
      await updateAttributeColumns(client, a.id, withHits(columns, a.type, matcher), now);
      for (const id of new Set([a.objectId, objectId])) if (id !== null) await touchObject(client, id, now);
      await touchEvent(client, e.id, now);
      if (columns.deleted === true) return [attributeDeletedChange(a, e, objectUuid)];
      return [{ kind: "attribute.updated", entityType: "attribute", entityUuid: a.uuid, eventUuid: e.uuid, payload: { ...objectPayload(objectUuid), fields } }];
    });
  }

  /**
   * Soft delete, as MISP: the row stays with `deleted = true` (PATCH `{"deleted": false}` restores
   * it). Deleting a deleted attribute changes nothing. `force`: the row goes for good (its tags,
   * sightings and pairs cascade); the change record keeps the levels for the notifier.
   */
  async delete(p: Principal | null, uuid: string, opts: AttributeDeleteOptions = {}): Promise<void> {
    authorize(p, "attributes:delete");
    await this.mutate(p, uuid, async (client, a, e, now) => {
      if (opts.force) {
        await client.query("DELETE FROM attributes WHERE id = $1", [a.id]);
        if (a.objectId !== null) await touchObject(client, a.objectId, now);
        await touchEvent(client, e.id, now);
        const change = attributeDeletedChange(a, e, a.objectUuid);
        // A soft-deleted one was announced when it was deleted: going for good is not news to followers.
        return [{ ...change, payload: { ...change.payload, distribution: a.distribution, object_distribution: a.objectDistribution, hard: true, announced: a.deleted } }];
      }
      if (a.deleted) return [];
      await updateAttributeColumns(client, a.id, { deleted: true }, now);
      if (a.objectId !== null) await touchObject(client, a.objectId, now);
      await touchEvent(client, e.id, now);
      return [attributeDeletedChange(a, e, a.objectUuid)];
    });
  }

  /** Tags an attribute; the tag is created when missing. Tagging twice changes nothing. */
  async tag(p: Principal | null, uuid: string, tagName: string, local = false): Promise<void> {
    authorize(p, "attributes:tag");
    const name = checkTagName(tagName, ["tag"]);
    await this.mutate(p, uuid, async (client, a, e, now) => {
      const carried = await client.query<{ name: string }>("SELECT t.name FROM attribute_tags at JOIN tags t ON t.id = at.tag_id WHERE at.attribute_id = $1", [a.id]);
      await checkExclusiveTags(client, name, carried.rows.map((r) => r.name));
      const ids = await ensureTags(client, [{ name, colour: null, exportable: true, local }], p);
      const inserted = await client.query("INSERT INTO attribute_tags (attribute_id, tag_id, local) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING", [a.id, ids.get(name), local]);
      if (!inserted.rowCount) return [];
      await updateAttributeColumns(client, a.id, {}, now);
      if (a.objectId !== null) await touchObject(client, a.objectId, now);
      await touchEvent(client, e.id, now);
      return [{ kind: "attribute.tagged", entityType: "attribute", entityUuid: a.uuid, eventUuid: e.uuid, payload: { ...objectPayload(a.objectUuid), tag: name } }];
    });
  }

  /** Removes a tag (name matched case-insensitively); 404 when the attribute does not carry it. */
  async untag(p: Principal | null, uuid: string, tagName: string): Promise<void> {
    authorize(p, "attributes:tag");
    const name = checkTagName(tagName, ["tag"]);
    await this.mutate(p, uuid, async (client, a, e, now) => {
      const removed = await client.query<{ name: string }>(
        "DELETE FROM attribute_tags at USING tags t WHERE at.tag_id = t.id AND at.attribute_id = $1 AND lower(t.name) = lower($2) RETURNING t.name",
        [a.id, name],
      );
      if (!removed.rowCount) throw errors.notFound("Tag on this attribute");
      await updateAttributeColumns(client, a.id, {}, now);
      if (a.objectId !== null) await touchObject(client, a.objectId, now);
      await touchEvent(client, e.id, now);
      return removed.rows.map((r) => ({
        kind: "attribute.untagged",
        entityType: "attribute" as const,
        entityUuid: a.uuid,
        eventUuid: e.uuid,
        payload: { ...objectPayload(a.objectUuid), tag: r.name },
      }));
    });
  }

  /**
   * Locks the attribute's event, then the attribute; checks read (404) and write (403) access;
   * runs `fn` and records its changes in the same transaction; returns the attribute as stored.
   */
  private mutate(
    p: Principal,
    uuid: string,
    fn: (client: pg.PoolClient, a: AttributeView, e: EventRef, now: number) => Promise<Change[]>,
  ): Promise<AttributeView> {
    return withTransaction(this.ctx.db.pool, async (client) => {
      const ref = await client.query<{ event_id: number }>("SELECT event_id FROM attributes WHERE uuid = $1", [uuid]);
      if (!ref.rowCount) throw errors.notFound("Attribute");
      const e = await lockEvent(client, { id: ref.rows[0].event_id });
      if (!e || !canReadEvent(p, e)) throw errors.notFound("Attribute");
      await client.query("SELECT 1 FROM attributes WHERE uuid = $1 FOR UPDATE", [uuid]);
      const a = await loadAttribute(client, uuid);
      if (!a || !canReadAttribute(p, a)) throw errors.notFound("Attribute");
      if (!canWriteEvent(p, e)) throw errors.forbidden("The event belongs to another organisation");
      const changes = await fn(client, a, e, nowSeconds());
      if (changes.length) await recordChanges(client, p, changes);
      return (await loadAttribute(client, uuid))!;
    });
  }
}

/** The distribution rule for one attribute: its event, its object and its own level. */
export function canReadAttribute(p: Principal, a: Pick<AttributeView, "event" | "distribution" | "sharingGroupId" | "objectDistribution" | "objectSharingGroupId">): boolean {
  return canReadInEvent(
    p,
    a.event,
    { distribution: a.distribution, sharingGroupId: a.sharingGroupId },
    a.objectDistribution === null ? null : { distribution: a.objectDistribution, sharingGroupId: a.objectSharingGroupId },
  );
}

/** Locks an event for a write: 404 when missing or unreadable, 403 when readable but not the caller's to change. */
export async function writableEvent(client: pg.PoolClient, p: Principal, eventUuid: string): Promise<EventRef> {
  const e = await lockEvent(client, { uuid: eventUuid });
  if (!e || !canReadEvent(p, e)) throw errors.notFound("Event");
  if (!canWriteEvent(p, e)) throw errors.forbidden("The event belongs to another organisation");
  return e;
}
