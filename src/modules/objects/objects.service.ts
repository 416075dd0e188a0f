import crypto from "node:crypto";
import type pg from "pg";
import type { AppContext } from "../../app-context.ts";
import { authorize, type Principal } from "../../auth/principal.ts";
import { withTransaction } from "../../platform/db/transaction.ts";
import { errors } from "../../platform/errors.ts";
import { offsetOf, pageOf, type Page, type PageRequest } from "../../platform/pagination.ts";
import { recordChanges, type Change } from "../changes/index.ts";
import { canReadEvent, canReadInEvent, canWriteEvent, readableAttributeWhere, readableObjectWhere, readableSql } from "../../auth/distribution.ts";
import type { Prisma } from "../../platform/db/index.ts";
import { loadAttribute, lockEvent, type AttributeView, type EventRef } from "../attributes/index.ts";
import {
  prepareAttributePatch,
  prepareNewAttribute,
  type AttributeCreate,
  type AttributeRow,
} from "../attributes/index.ts";
import { insertAttributes, touchEvent, updateAttributeColumns, withHits } from "../attributes/index.ts";
import { attributeDeletedChange, writableEvent } from "../attributes/index.ts";
import { checkDate, checkIntRange, checkText, checkUuidField, Issues, nowSeconds, type Loc } from "../attributes/index.ts";
import { listObjects, loadObject, type ObjectView, type ReferenceView } from "./object-reader.ts";
import { checkAssignableSharingGroups, type SharingGroupRef } from "../sharing-groups/index.ts";

/** The sharing groups a list of new attributes names, each at its place in the request. */
const groupsOf = (ids: (number | null)[], key: string): SharingGroupRef[] => ids.flatMap((id, i) => (id === null ? [] : [{ id, loc: [key, i, "sharingGroupId"] }]));

export type { ObjectCreate, ObjectFields, ObjectPatch, ReferenceCreate } from "./objects.contracts.ts";
import type { ObjectCreate, ObjectFields, ObjectPatch, ReferenceCreate } from "./objects.contracts.ts";

export interface ObjectFilter {
  eventUuid?: string;
  /** Default false. */
  deleted?: boolean;
  templateUuids?: string[];
}

/** What @pothos/plugin-prisma planned for the GraphQL selection: the relations and columns to load. */
export type ObjectSelection = Pick<Prisma.MispObjectFindManyArgs, "include" | "select">;
/** An object row as Prisma loads it, with whatever relations its selection included. */
export type ObjectRecord = Prisma.MispObjectGetPayload<object>;

function objectFilterWhere(filter: ObjectFilter): Prisma.MispObjectWhereInput {
  return {
    deleted: filter.deleted ?? false,
    ...(filter.eventUuid ? { event: { uuid: filter.eventUuid } } : {}),
    ...(filter.templateUuids?.length ? { templateUuid: { in: filter.templateUuids } } : {}),
  };
}

/** A live object lists its live attributes and references; a soft-deleted one all of them. */
const LIVE_UNLESS_OBJECT_DELETED = { OR: [{ deleted: false }, { object: { deleted: true } }] };

export const MAX_OBJECT_ATTRIBUTES = 5000;
export const MAX_OBJECT_REFERENCES = 1000;

const COLUMNS: Record<Exclude<keyof ObjectFields, "deleted">, string> = {
  name: "name",
  metaCategory: "meta_category",
  description: "description",
  templateUuid: "template_uuid",
  templateVersion: "template_version",
  distribution: "distribution",
  sharingGroupId: "sharing_group_id",
  comment: "comment",
  firstSeen: "first_seen",
  lastSeen: "last_seen",
};

const WIRE: Record<keyof ObjectFields, string> = { ...COLUMNS, deleted: "deleted" };

function checkObjectFields(issues: Issues, f: ObjectFields): void {
  const loc = (k: keyof ObjectFields): Loc => [k];
  if (f.name !== undefined) checkText(issues, loc("name"), f.name, 255, { singleLine: true, nonEmpty: true });
  if (f.metaCategory != null) checkText(issues, loc("metaCategory"), f.metaCategory, 255, { singleLine: true });
  if (f.description != null) checkText(issues, loc("description"), f.description, 65_535);
  if (f.templateUuid != null) checkUuidField(issues, loc("templateUuid"), f.templateUuid);
  if (f.templateVersion != null) checkIntRange(issues, loc("templateVersion"), f.templateVersion, 0, 2_147_483_647);
  if (f.distribution !== undefined) checkIntRange(issues, loc("distribution"), f.distribution, 0, 5);
  if (f.sharingGroupId != null) checkIntRange(issues, loc("sharingGroupId"), f.sharingGroupId, 1, 2_147_483_647);
  if (f.comment !== undefined) checkText(issues, loc("comment"), f.comment, 65_535);
  checkDate(issues, loc("firstSeen"), f.firstSeen);
  checkDate(issues, loc("lastSeen"), f.lastSeen);
  if (f.firstSeen && f.lastSeen && f.lastSeen.getTime() < f.firstSeen.getTime()) issues.add(loc("lastSeen"), "last_seen must not be before first_seen");
}

interface ReferenceRow {
  uuid: string;
  referencedUuid: string;
  referencedType: number | null;
  relationshipType: string;
  comment: string;
  deleted: boolean;
}

function prepareReferences(issues: Issues, refs: ReferenceCreate[], objectUuid: string, eventUuid: string): ReferenceRow[] {
  if (refs.length > MAX_OBJECT_REFERENCES) issues.add(["references"], `at most ${MAX_OBJECT_REFERENCES} references`, refs.length);
  const seen = new Set<string>();
  return refs.map((r, i) => {
    const loc: Loc = ["references", i];
    const uuid = r.uuid ?? crypto.randomUUID();
    if (seen.has(uuid)) issues.add([...loc, "uuid"], "uuid given twice in the request", uuid);
    seen.add(uuid);
    for (const [k, v, want] of [["objectUuid", r.objectUuid, objectUuid], ["sourceUuid", r.sourceUuid, objectUuid], ["eventUuid", r.eventUuid, eventUuid]] as const) {
      if (v != null && v.toLowerCase() !== want) issues.add([...loc, k], `must be ${want} (the object's own ${k === "eventUuid" ? "event" : "uuid"}) or absent`, v);
    }
    const referencedUuid = checkUuidField(issues, [...loc, "referencedUuid"], r.referencedUuid);
    if (r.referencedType != null) checkIntRange(issues, [...loc, "referencedType"], r.referencedType, 0, 1);
    checkText(issues, [...loc, "relationshipType"], r.relationshipType, 255, { singleLine: true, nonEmpty: true });
    if (r.comment !== undefined) checkText(issues, [...loc, "comment"], r.comment, 65_535);
    return {
      uuid,
      referencedUuid,
      referencedType: r.referencedType ?? null,
      relationshipType: r.relationshipType.trim(),
      comment: r.comment ?? "",
      deleted: r.deleted ?? false,
    };
  });
}

/** Validates attributes of an object; their event_uuid and object_uuid, when given, must be the object's. */
function prepareObjectAttributes(issues: Issues, key: string, list: AttributeCreate[], objectUuid: string, eventUuid: string, taken: Set<string>): AttributeRow[] {
  const rows: AttributeRow[] = [];
  list.forEach((a, i) => {
    const loc: Loc = [key, i];
    if (a.eventUuid != null && a.eventUuid.toLowerCase() !== eventUuid) issues.add([...loc, "eventUuid"], "must be the object's event or absent", a.eventUuid);
    if (a.objectUuid != null && a.objectUuid.toLowerCase() !== objectUuid) issues.add([...loc, "objectUuid"], "must be this object or absent", a.objectUuid);
    const row = prepareNewAttribute(issues, loc, a);
    if (!row) return;
    if (taken.has(row.uuid)) issues.add([...loc, "uuid"], "uuid given twice in the request", row.uuid);
    taken.add(row.uuid);
    rows.push(row);
  });
  return rows;
}

const objectChange = (kind: string, o: { uuid: string; name: string }, e: EventRef, extra: Record<string, unknown> = {}): Change => ({
  kind,
  entityType: "object",
  entityUuid: o.uuid,
  eventUuid: e.uuid,
  payload: { event_title: e.info, object_name: o.name, ...extra },
});

/**
 * MISP objects with their attributes and references. Access follows the object's event (read:
 * 404 when not readable; write: 403 when readable but another organisation's). Each request is
 * one transaction: an invalid attribute anywhere means nothing is written.
 */
export class ObjectsService {
  constructor(private readonly ctx: AppContext) {}

  async list(p: Principal | null, filter: ObjectFilter, req: PageRequest): Promise<Page<ObjectView>> {
    authorize(p, "objects:read");
    const params: unknown[] = [];
    const where = [readableSql(p, "e", ["o.distribution"], params)];
    if (filter.eventUuid) {
      params.push(filter.eventUuid);
      where.push(`e.uuid = $${params.length}`);
    }
    params.push(filter.deleted ?? false);
    where.push(`o.deleted = $${params.length}`);
    if (filter.templateUuids?.length) {
      params.push(filter.templateUuids);
      where.push(`o.template_uuid = ANY($${params.length}::text[])`);
    }
    const { items, total } = await listObjects(this.ctx.db.pool, where.join(" AND "), params, req.size, offsetOf(req), p);
    return pageOf(items, total, req);
  }

  /** The same list for GraphQL: Prisma rows loaded with the selection the plugin planned, same rule and order. */
  async findPage(p: Principal | null, filter: ObjectFilter, req: PageRequest, selection: ObjectSelection): Promise<Page<ObjectRecord>> {
    authorize(p, "objects:read");
    const where: Prisma.MispObjectWhereInput = { AND: [readableObjectWhere(p), objectFilterWhere(filter)] };
    const [items, total] = await Promise.all([
      this.ctx.db.prisma.mispObject.findMany({ ...selection, where, orderBy: [{ timestamp: "desc" }, { id: "desc" }], skip: offsetOf(req), take: req.size }),
      this.ctx.db.prisma.mispObject.count({ where }),
    ]);
    return pageOf(items, total, req);
  }

  /** One object for GraphQL (a soft-deleted one too); 404 when it is not readable. */
  async findOne(p: Principal | null, uuid: string, selection: ObjectSelection): Promise<ObjectRecord> {
    authorize(p, "objects:read");
    const o = await this.ctx.db.prisma.mispObject.findFirst({ ...selection, where: { AND: [readableObjectWhere(p), { uuid }] } });
    if (!o) throw errors.notFound("Object");
    return o;
  }

  /** The relation query of an object's attributes: those the caller may read, by id. */
  attributesOfObject(p: Principal | null) {
    authorize(p, "objects:read");
    const where: Prisma.AttributeWhereInput = { AND: [LIVE_UNLESS_OBJECT_DELETED, readableAttributeWhere(p)] };
    return { where, orderBy: { id: "asc" as const } };
  }

  /** The relation query of an object's references (readable with the object), by id. */
  referencesOfObject(p: Principal | null) {
    authorize(p, "objects:read");
    return { where: LIVE_UNLESS_OBJECT_DELETED, orderBy: { id: "asc" as const } };
  }

  /**
   * The uuid of the object with MISP's numeric id, or null. It says nothing about who may read the
   * object: the read or write the caller makes with the uuid checks that (and answers 404 alike).
   */
  async uuidOf(p: Principal | null, id: number): Promise<string | null> {
    authorize(p);
    const { rows } = await this.ctx.db.pool.query<{ uuid: string }>("SELECT uuid::text FROM objects WHERE id = $1", [id]);
    return rows[0]?.uuid ?? null;
  }

  async get(p: Principal | null, uuid: string): Promise<ObjectView> {
    authorize(p, "objects:read");
    const o = await loadObject(this.ctx.db.pool, uuid, p);
    if (!o || !canReadObject(p, o)) throw errors.notFound("Object");
    return o;
  }

  async create(p: Principal | null, input: ObjectCreate): Promise<ObjectView> {
    authorize(p, "objects:create");
    if (!input.eventUuid) throw errors.badRequest("Event UUID is required");
    const eventUuid = input.eventUuid.toLowerCase();
    const issues = new Issues();
    checkObjectFields(issues, input);
    const uuid = input.uuid === undefined ? crypto.randomUUID() : checkUuidField(issues, ["uuid"], input.uuid);
    const attributes = input.attributes ?? [];
    if (attributes.length > MAX_OBJECT_ATTRIBUTES) issues.add(["attributes"], `at most ${MAX_OBJECT_ATTRIBUTES} attributes`, attributes.length);
    const rows = prepareObjectAttributes(issues, "attributes", attributes, uuid, eventUuid, new Set());
    const refs = prepareReferences(issues, input.references ?? [], uuid, eventUuid);
    issues.throwIfAny();

    const matcher = await this.ctx.warninglists.matcher();
    return withTransaction(this.ctx.db.pool, async (client) => {
      const e = await writableEvent(client, p, eventUuid);
      await checkAssignableSharingGroups(client, p, [
        ...(input.sharingGroupId != null ? [{ id: input.sharingGroupId, loc: ["sharingGroupId"] }] : []),
        ...groupsOf(rows.map((r) => r.sharingGroupId), "attributes"),
      ]);
      const now = nowSeconds();
      const inserted = await client.query<{ id: number }>(
        `INSERT INTO objects (event_id, uuid, name, meta_category, description, template_uuid, template_version, timestamp, distribution,
                              sharing_group_id, comment, deleted, first_seen, last_seen)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
         ON CONFLICT (uuid) DO NOTHING RETURNING id`,
        [
          e.id,
          uuid,
          input.name.trim(),
          input.metaCategory ?? null,
          input.description ?? null,
          input.templateUuid?.toLowerCase() ?? null,
          input.templateVersion ?? null,
          now,
          input.distribution ?? 5,
          input.sharingGroupId ?? null,
          input.comment ?? "",
          input.deleted ?? false,
          input.firstSeen?.toISOString() ?? null,
          input.lastSeen?.toISOString() ?? null,
        ],
      );
      if (!inserted.rowCount) throw errors.conflict("An object with this uuid already exists");
      const objectId = inserted.rows[0].id;
      await insertAttributes(client, e.id, rows.map((row) => ({ row, objectId })), now, matcher);
      await insertReferences(client, e.id, objectId, refs, now);
      await touchEvent(client, e.id, now);
      await recordChanges(client, p, [
        objectChange("object.created", { uuid, name: input.name.trim() }, e),
        ...rows.map((r) => ({ kind: "attribute.created", entityType: "attribute" as const, entityUuid: r.uuid, eventUuid: e.uuid, payload: { object_uuid: uuid } })),
        ...refs.map((r) => referenceChange("object_reference.created", r, uuid, e)),
      ]);
      return (await loadObject(client, uuid, p))!;
    });
  }

  /** Object fields plus the peer's `new_attributes`, `update_attributes` and `delete_attributes`, in one transaction. */
  async update(p: Principal | null, uuid: string, patch: ObjectPatch): Promise<ObjectView> {
    authorize(p, "objects:update");
    const issues = new Issues();
    checkObjectFields(issues, patch);
    issues.throwIfAny();
    const matcher = await this.ctx.warninglists.matcher();
    return this.mutate(p, uuid, async (client, o, e, now) => {
      const changes: Change[] = [];
      const fields: string[] = [];
      const sets: string[] = [];
      const params: unknown[] = [o.id, now];
      for (const k of Object.keys(COLUMNS) as (keyof typeof COLUMNS)[]) {
        let v = patch[k];
        if (v === undefined) continue;
        if (k === "name" && typeof v === "string") v = v.trim();
        if (k === "templateUuid" && typeof v === "string") v = v.toLowerCase();
        params.push(v instanceof Date ? v.toISOString() : v);
        sets.push(`${COLUMNS[k]} = $${params.length}`);
        fields.push(WIRE[k]);
      }
      const firstSeen = patch.firstSeen !== undefined ? patch.firstSeen : o.firstSeen;
      const lastSeen = patch.lastSeen !== undefined ? patch.lastSeen : o.lastSeen;
      if (firstSeen && lastSeen && lastSeen.getTime() < firstSeen.getTime()) issues.add(["lastSeen"], "last_seen must not be before first_seen");

      // Attribute operations: validated all together before anything is written.
      const current = new Map(o.attributes.map((a) => [a.uuid, a]));
      const all = await client.query<{ uuid: string }>("SELECT uuid::text FROM attributes WHERE object_id = $1", [o.id]);
      const own = new Set(all.rows.map((r) => r.uuid));
      const taken = new Set<string>();
      const newAttributes = patch.newAttributes ?? [];
      const updates = patch.updateAttributes ?? [];
      const deletes = (patch.deleteAttributes ?? []).map((u, i) => checkUuidField(issues, ["deleteAttributes", i], u));
      const totalOps = newAttributes.length + updates.length + deletes.length;
      if (totalOps > MAX_OBJECT_ATTRIBUTES) issues.add([], `at most ${MAX_OBJECT_ATTRIBUTES} attribute operations`, totalOps);
      const newRows = prepareObjectAttributes(issues, "newAttributes", newAttributes, o.uuid, e.uuid, taken);
      const updatePlans: { a: AttributeView; columns: Record<string, unknown>; fields: string[]; index: number }[] = [];
      for (const [i, u] of updates.entries()) {
        const loc: Loc = ["updateAttributes", i];
        const id = checkUuidField(issues, [...loc, "uuid"], u.uuid);
        if (taken.has(id)) issues.add([...loc, "uuid"], "uuid given twice in the request", u.uuid);
        taken.add(id);
        if (!own.has(id)) {
          issues.add([...loc, "uuid"], "Not an attribute of this object", u.uuid);
          continue;
        }
        if (u.objectUuid !== undefined && u.objectUuid?.toLowerCase() !== o.uuid) issues.add([...loc, "objectUuid"], "must be this object or absent", u.objectUuid);
        const a = current.get(id) ?? (await loadAttribute(client, id))!;
        const plan = prepareAttributePatch(issues, loc, a, { ...u, objectUuid: undefined });
        if (plan && plan.fields.length) updatePlans.push({ a, ...plan, index: i });
      }
      for (const [i, id] of deletes.entries()) {
        if (taken.has(id)) issues.add(["deleteAttributes", i], "uuid given twice in the request", id);
        taken.add(id);
        if (!own.has(id)) issues.add(["deleteAttributes", i], "Not an attribute of this object", id);
      }
      issues.throwIfAny();
      if (sets.length === 0 && totalOps === 0 && patch.deleted === undefined) throw errors.invalidInput([], "Nothing to update");
      await checkAssignableSharingGroups(client, p, [
        ...(patch.sharingGroupId != null ? [{ id: patch.sharingGroupId, loc: ["sharingGroupId"] }] : []),
        ...groupsOf(newRows.map((r) => r.sharingGroupId), "newAttributes"),
        ...updatePlans.flatMap((u) => (typeof u.columns.sharing_group_id === "number" ? [{ id: u.columns.sharing_group_id, loc: ["updateAttributes", u.index, "sharingGroupId"] }] : [])),
      ]);

      await insertAttributes(client, e.id, newRows.map((row) => ({ row, objectId: o.id })), now, matcher);
      changes.push(...newRows.map((r) => ({ kind: "attribute.created", entityType: "attribute" as const, entityUuid: r.uuid, eventUuid: e.uuid, payload: { object_uuid: o.uuid } })));
      for (const u of updatePlans) {
        await updateAttributeColumns(client, u.a.id, withHits(u.columns, u.a.type, matcher), now);
        changes.push(
          u.columns.deleted === true
            ? attributeDeletedChange(u.a, e, o.uuid)
            : { kind: "attribute.updated", entityType: "attribute", entityUuid: u.a.uuid, eventUuid: e.uuid, payload: { object_uuid: o.uuid, fields: u.fields } },
        );
      }
      if (deletes.length) changes.push(...(await softDeleteAttributes(client, e, o.uuid, "uuid = ANY($1::uuid[]) AND NOT deleted", [deletes], now)));
      if (patch.deleted === true && !o.deleted) {
        changes.push(...(await softDeleteAttributes(client, e, o.uuid, "object_id = $1 AND NOT deleted", [o.id], now)));
        await client.query("UPDATE object_references SET deleted = true WHERE object_id = $1", [o.id]);
      }
      if (patch.deleted === false && o.deleted) {
        // A restored object comes back whole: what its delete flagged is unflagged (attributes
        // deleted one by one before it come back too: the rows do not say which were).
        changes.push(...(await restoreAttributes(client, e, o.uuid, o.id, now)));
        await client.query("UPDATE object_references SET deleted = false WHERE object_id = $1", [o.id]);
      }
      if (patch.deleted !== undefined && patch.deleted !== o.deleted) {
        sets.push(`deleted = ${patch.deleted ? "true" : "false"}`);
        fields.push("deleted");
      }
      sets.push("timestamp = GREATEST(timestamp + 1, $2)");
      await client.query(`UPDATE objects SET ${sets.join(", ")} WHERE id = $1`, params);
      await touchEvent(client, e.id, now);
      const name = typeof patch.name === "string" ? patch.name.trim() : o.name;
      const kind = patch.deleted === true && !o.deleted ? "object.deleted" : "object.updated";
      changes.unshift(objectChange(kind, { uuid: o.uuid, name }, e, kind === "object.updated" ? { fields } : {}));
      return changes;
    });
  }

  /** One more reference of a live object (MISP's objectReferences/add); the object and its event are touched. */
  async addReference(p: Principal | null, uuid: string, ref: ReferenceCreate): Promise<ReferenceView> {
    authorize(p, "objects:update");
    let added: ReferenceRow | null = null;
    const o = await this.mutate(p, uuid, async (client, o, e, now) => {
      if (o.deleted) throw errors.notFound("Object");
      const issues = new Issues();
      [added] = prepareReferences(issues, [ref], o.uuid, e.uuid);
      issues.throwIfAny();
      await insertReferences(client, e.id, o.id, [added], now);
      await client.query("UPDATE objects SET timestamp = GREATEST(timestamp + 1, $2) WHERE id = $1", [o.id, now]);
      await touchEvent(client, e.id, now);
      return [referenceChange("object_reference.created", added, o.uuid, e)];
    });
    return o.references.find((r) => r.uuid === added!.uuid)!;
  }

  /**
   * Soft delete of the object, each of its live attributes and its references; deleting a deleted
   * object changes nothing, and PATCH `{"deleted": false}` restores it whole.
   * `force`: the object goes for good, its attributes and references with it (foreign keys cascade);
   * the change records carry what consumers need once the rows are gone.
   */
  async delete(p: Principal | null, uuid: string, opts: { force?: boolean } = {}): Promise<void> {
    authorize(p, "objects:delete");
    await this.mutate(p, uuid, async (client, o, e, now) => {
      if (opts.force) return hardDeleteObject(client, o, e, now);
      if (o.deleted) return [];
      const changes = await softDeleteAttributes(client, e, o.uuid, "object_id = $1 AND NOT deleted", [o.id], now);
      await client.query("UPDATE object_references SET deleted = true WHERE object_id = $1", [o.id]);
      await client.query("UPDATE objects SET deleted = true, timestamp = GREATEST(timestamp + 1, $2) WHERE id = $1", [o.id, now]);
      await touchEvent(client, e.id, now);
      return [objectChange("object.deleted", o, e), ...changes];
    });
  }

  /** Locks the object's event, then the object; 404 unreadable, 403 not writable; one transaction. */
  private mutate(p: Principal, uuid: string, fn: (client: pg.PoolClient, o: ObjectView, e: EventRef, now: number) => Promise<Change[]>): Promise<ObjectView> {
    return withTransaction(this.ctx.db.pool, async (client) => {
      const ref = await client.query<{ event_id: number }>("SELECT event_id FROM objects WHERE uuid = $1", [uuid]);
      if (!ref.rowCount) throw errors.notFound("Object");
      const e = await lockEvent(client, { id: ref.rows[0].event_id });
      if (!e || !canReadEvent(p, e)) throw errors.notFound("Object");
      await client.query("SELECT 1 FROM objects WHERE uuid = $1 FOR UPDATE", [uuid]);
      const o = await loadObject(client, uuid, p);
      if (!o || !canReadObject(p, o)) throw errors.notFound("Object");
      if (!canWriteEvent(p, e)) throw errors.forbidden("The event belongs to another organisation");
      const changes = await fn(client, o, e, nowSeconds());
      if (changes.length) await recordChanges(client, p, changes);
      return (await loadObject(client, uuid, p))!;
    });
  }
}

/** The distribution rule for one object: its event and its own level. */
function canReadObject(p: Principal, o: Pick<ObjectView, "event" | "distribution" | "sharingGroupId">): boolean {
  return canReadInEvent(p, o.event, { distribution: o.distribution, sharingGroupId: o.sharingGroupId });
}

/** Deletes the object for good; followers already told of a soft delete are not told again. */
async function hardDeleteObject(client: pg.PoolClient, o: ObjectView, e: EventRef, now: number): Promise<Change[]> {
  const { rows } = await client.query<{ uuid: string; type: string; value: string; distribution: number; deleted: boolean }>(
    "SELECT uuid::text, type, value, distribution, deleted FROM attributes WHERE object_id = $1",
    [o.id],
  );
  await client.query("DELETE FROM objects WHERE id = $1", [o.id]);
  await touchEvent(client, e.id, now);
  const attributeChanges = rows.map((a) => {
    const change = attributeDeletedChange(a, e, o.uuid);
    return { ...change, payload: { ...change.payload, distribution: a.distribution, object_distribution: o.distribution, hard: true, announced: a.deleted } };
  });
  return [...(o.deleted ? [] : [objectChange("object.deleted", o, e, { distribution: o.distribution, hard: true })]), ...attributeChanges];
}

/** Unflags the object's soft-deleted attributes; their change records re-index and re-correlate them. */
async function restoreAttributes(client: pg.PoolClient, e: EventRef, objectUuid: string, objectId: number, now: number): Promise<Change[]> {
  const { rows } = await client.query<{ uuid: string }>(
    "UPDATE attributes SET deleted = false, timestamp = GREATEST(timestamp + 1, $2) WHERE object_id = $1 AND deleted RETURNING uuid::text",
    [objectId, now],
  );
  return rows.map((a) => ({ kind: "attribute.updated", entityType: "attribute" as const, entityUuid: a.uuid, eventUuid: e.uuid, payload: { object_uuid: objectUuid, fields: ["deleted"] } }));
}

/** Soft-deletes the matching attributes (a WHERE over `attributes`) and returns their change records. */
async function softDeleteAttributes(client: pg.PoolClient, e: EventRef, objectUuid: string, where: string, params: unknown[], now: number): Promise<Change[]> {
  params.push(now);
  const { rows } = await client.query<{ uuid: string; type: string; value: string }>(
    `UPDATE attributes SET deleted = true, timestamp = GREATEST(timestamp + 1, $${params.length}) WHERE ${where} RETURNING uuid::text, type, value`,
    params,
  );
  return rows.map((a) => attributeDeletedChange(a, e, objectUuid));
}

function referenceChange(kind: string, r: ReferenceRow, objectUuid: string, e: EventRef): Change {
  return {
    kind,
    entityType: "object_reference",
    entityUuid: r.uuid,
    eventUuid: e.uuid,
    payload: { object_uuid: objectUuid, referenced_uuid: r.referencedUuid, relationship_type: r.relationshipType },
  };
}

/** Inserts references; a missing `referenced_type` is inferred from what the uuid names in the event. 409 on a taken uuid. */
async function insertReferences(client: pg.PoolClient, eventId: number, objectId: number, refs: ReferenceRow[], now: number): Promise<void> {
  if (refs.length === 0) return;
  const unknown = refs.filter((r) => r.referencedType === null).map((r) => r.referencedUuid);
  if (unknown.length) {
    const { rows } = await client.query<{ uuid: string; kind: number }>(
      `SELECT uuid::text, 0 AS kind FROM attributes WHERE event_id = $1 AND uuid = ANY($2::uuid[])
       UNION ALL SELECT uuid::text, 1 FROM objects WHERE event_id = $1 AND uuid = ANY($2::uuid[])`,
      [eventId, unknown],
    );
    const kinds = new Map(rows.map((r) => [r.uuid, r.kind]));
    for (const r of refs) if (r.referencedType === null) r.referencedType = kinds.get(r.referencedUuid) ?? null;
  }
  const { rowCount } = await client.query(
    `INSERT INTO object_references (event_id, object_id, uuid, referenced_uuid, referenced_type, relationship_type, comment, timestamp, deleted)
     SELECT $1, $2, u, ru, rt, rel, c, $3, d FROM unnest($4::uuid[], $5::uuid[], $6::smallint[], $7::text[], $8::text[], $9::boolean[]) AS x(u, ru, rt, rel, c, d)
     ON CONFLICT (uuid) DO NOTHING`,
    [
      eventId,
      objectId,
      now,
      refs.map((r) => r.uuid),
      refs.map((r) => r.referencedUuid),
      refs.map((r) => r.referencedType),
      refs.map((r) => r.relationshipType),
      refs.map((r) => r.comment),
      refs.map((r) => r.deleted),
    ],
  );
  if (rowCount !== refs.length) throw errors.conflict("An object reference with this uuid already exists");
}
