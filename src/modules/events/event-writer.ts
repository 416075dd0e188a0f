import crypto from "node:crypto";
import type pg from "pg";
import { hasScope, type Principal } from "../../auth/principal.ts";
import { errors } from "../../platform/errors.ts";
import { recordChanges, type Change } from "../changes/index.ts";
import { upsertReportDrafts } from "../reports/index.ts";
import type { AttributeDraft, EventDraft, ObjectDraft, SharingGroupDraft, SightingDraft, TagDraft } from "./event-draft.ts";
import type { SharingGroupsService } from "../sharing-groups/index.ts";
import type { WarninglistMatcher } from "../warninglists/index.ts";

const CHUNK = 5000;

export interface WriteResult {
  eventId: number;
  eventUuid: string;
  created: boolean;
  /** False when the stored event is as new as the draft (re-import of the same or an older version). */
  changed: boolean;
  attributes: { created: number; updated: number; unchanged: number };
  objects: { created: number; updated: number; unchanged: number };
}

export interface WriteOptions {
  ownerOrgId: number;
  /** Called with the stored event's owner org before it is updated: throws when the caller may not. */
  assertCanUpdate(existingOrgId: number): void;
  /** The enabled warninglists: each written attribute stores its hits. */
  matcher: WarninglistMatcher;
  /** Captures the groups the draft's SharingGroup blocks name (who uses, updates and creates one is its rule). */
  sharingGroups: Pick<SharingGroupsService, "captureImported">;
  /** The draft comes from a server pull (MISP's captureSG with a server: the puller's organisation joins its groups). */
  pulled?: boolean;
  /** A creation (`POST /events/`): an event of this uuid stored meanwhile is a conflict, not an update. */
  createOnly?: boolean;
}

/**
 * Stores an event graph in the caller's transaction with set-based SQL (a few statements per 5 000
 * attributes, never one per row). Upserts are keyed by uuid and only take a newer `timestamp`, so a
 * re-import never duplicates anything and never moves data backwards. A uuid that already belongs to
 * another event is a conflict (409). Every stored change gets its change record.
 *
 * Who the event is from: a caller holding `events:sync` imports for other organisations, as MISP's
 * sync users do: the file's Orgc and sighting organisations are kept (by uuid, else by name; created
 * when unknown). Anyone else writes as their own organisation whatever the file says: a new event's
 * Orgc and every sighting are theirs, a stored event keeps its Orgc, and no organisation is created.
 * The creator is always the caller.
 */
export async function writeEventDraft(client: pg.PoolClient, actor: Principal, draft: EventDraft, opts: WriteOptions): Promise<WriteResult> {
  const sync = hasScope(actor, "events:sync");
  // Writes of one event (a feed and a pull, a client's retry) queue here: the later one then finds
  // the event stored instead of failing on its uuid (FOR UPDATE below locks no row not yet committed).
  await client.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [`event:${draft.uuid}`]);
  const existing = (
    await client.query<{ id: number; timestamp: string; org_id: number; orgc_id: number }>(
      "SELECT id, timestamp, org_id, orgc_id FROM events WHERE uuid = $1 FOR UPDATE",
      [draft.uuid],
    )
  ).rows[0];
  const empty = { created: 0, updated: 0, unchanged: 0 };
  if (existing) {
    if (opts.createOnly) throw errors.conflict("An event with this uuid already exists");
    opts.assertCanUpdate(existing.org_id);
    if (Number(existing.timestamp) >= draft.timestamp) {
      return { eventId: existing.id, eventUuid: draft.uuid, created: false, changed: false, attributes: { ...empty }, objects: { ...empty } };
    }
  }
  await placeInSharingGroups(client, actor, draft, opts);
  // Only a sync import names the creator; one that names none (a MISP events/edit) keeps the stored event's.
  const orgcId = sync && draft.orgc ? await resolveOrganisation(client, draft.orgc.uuid, draft.orgc.name, actor) : (existing?.orgc_id ?? opts.ownerOrgId);
  const eventId = existing ? await updateEvent(client, existing.id, draft, orgcId) : await insertEvent(client, draft, opts.ownerOrgId, orgcId, actor);
  await assertUuidsFree(client, eventId, draft);

  const tagIds = await ensureTags(client, collectTags(draft), actor);
  await replaceEventTags(client, eventId, draft.tags, tagIds);

  const changes: Change[] = [{ kind: existing ? "event.updated" : "event.created", entityType: "event", entityUuid: draft.uuid, eventUuid: draft.uuid }];
  const objects = await upsertObjects(client, eventId, draft.objects);
  for (const o of objects.changed) {
    changes.push({ kind: o.inserted ? "object.created" : "object.updated", entityType: "object", entityUuid: o.uuid, eventUuid: draft.uuid });
  }
  const objectIdByUuid = objects.idByUuid;
  const withObject = [
    ...draft.attributes.map((a) => ({ a, objectUuid: null as string | null })),
    ...draft.objects.flatMap((o) => o.attributes.map((a) => ({ a, objectUuid: o.uuid }))),
  ];
  const attrStats = { created: 0, updated: 0, unchanged: 0 };
  for (let i = 0; i < withObject.length; i += CHUNK) {
    const chunk = withObject.slice(i, i + CHUNK);
    const changed = await upsertAttributes(client, eventId, chunk, objectIdByUuid, opts.matcher);
    const byUuid = new Map(chunk.map((c) => [c.a.uuid, c]));
    if (changed.length < chunk.length) {
      const written = new Set(changed.map((r) => r.uuid));
      await assertAttributesFree(client, eventId, chunk.map((c) => c.a.uuid).filter((u) => !written.has(u)));
    }
    const changedDrafts = changed.map((r) => ({ row: r, entry: byUuid.get(r.uuid)! }));
    await replaceAttributeTags(client, changedDrafts.map((c) => ({ id: c.row.id, inserted: c.row.inserted, tags: c.entry.a.tags })), tagIds);
    changes.push(...(await insertSightings(client, eventId, draft.uuid, changedDrafts.map((c) => ({ id: c.row.id, attribute: c.entry.a })), actor, sync)));
    for (const c of changedDrafts) {
      if (c.row.inserted) attrStats.created++;
      else attrStats.updated++;
      changes.push({
        kind: c.row.inserted ? "attribute.created" : "attribute.updated",
        entityType: "attribute",
        entityUuid: c.row.uuid,
        eventUuid: draft.uuid,
        payload: c.entry.objectUuid ? { object_uuid: c.entry.objectUuid } : null,
      });
    }
    attrStats.unchanged += chunk.length - changed.length;
  }
  changes.push(...(await upsertReferences(client, eventId, draft.uuid, draft.objects, objectIdByUuid)));
  if (draft.reports) changes.push(...(await upsertReportDrafts(client, { id: eventId, uuid: draft.uuid, info: draft.info }, draft.reports)));
  await client.query(
    `UPDATE events SET updated_at = now() WHERE id = $1`,
    [eventId],
  );
  await recordChanges(client, actor, changes);
  return {
    eventId,
    eventUuid: draft.uuid,
    created: !existing,
    changed: true,
    attributes: attrStats,
    objects: { created: objects.changed.filter((o) => o.inserted).length, updated: objects.changed.filter((o) => !o.inserted).length, unchanged: draft.objects.length - objects.changed.length },
  };
}

/**
 * Gives the event and everything in it that names a SharingGroup block the local group of that
 * uuid (SharingGroupsService.captureImported: MISP's captureSG, which decides who uses, updates and
 * creates one), else none: distribution 4 without a group reads as the owners' only.
 */
async function placeInSharingGroups(client: pg.PoolClient, actor: Principal, draft: EventDraft, opts: WriteOptions): Promise<void> {
  const attributes = [...draft.attributes, ...draft.objects.flatMap((o) => o.attributes)];
  const items: { sharingGroup: SharingGroupDraft | null; sharingGroupId: number | null }[] = [draft, ...draft.objects, ...attributes, ...(draft.reports ?? [])];
  const blocks = items.flatMap((i) => (i.sharingGroup ? [i.sharingGroup] : []));
  if (blocks.length === 0) return;
  const ids = await opts.sharingGroups.captureImported(actor, blocks, { organisation: (o) => resolveOrganisation(client, o.uuid, o.name, actor), pulled: opts.pulled ?? false }, client);
  for (const item of items) if (item.sharingGroup) item.sharingGroupId = ids.get(item.sharingGroup.uuid) ?? null;
}

/** Finds an organisation by uuid, else by name; creates it when unknown (MISP's Orgc of foreign events). */
export async function resolveOrganisation(client: pg.PoolClient, uuid: string | null, name: string, actor: Principal): Promise<number> {
  if (uuid) {
    const byUuid = await client.query<{ id: number }>("SELECT id FROM organisations WHERE uuid = $1", [uuid]);
    if (byUuid.rows[0]) return byUuid.rows[0].id;
  }
  const byName = await client.query<{ id: number }>("SELECT id FROM organisations WHERE name = $1", [name]);
  if (byName.rows[0]) return byName.rows[0].id;
  // Every unique index arbitrates: with the name's alone, a writer creating the same organisation at
  // the same moment failed on the uuid's index (answered 409) instead of waiting for the other.
  const created = await client.query<{ id: number }>(
    "INSERT INTO organisations (uuid, name, local, created_by) VALUES ($1, $2, false, $3) ON CONFLICT DO NOTHING RETURNING id",
    [uuid ?? crypto.randomUUID(), name, actor.userId],
  );
  if (created.rows[0]) return created.rows[0].id;
  const stored = await client.query<{ id: number }>("SELECT id FROM organisations WHERE uuid = $1 OR name = $2 ORDER BY uuid = $1 DESC LIMIT 1", [uuid, name]);
  return stored.rows[0].id;
}

function eventColumns(d: EventDraft) {
  return [d.info, d.date, d.threatLevel, d.analysis, d.distribution, d.sharingGroupId, d.published, d.publishTimestamp, d.timestamp, d.sightingTimestamp, d.locked, d.proposalEmailLock, d.protected, d.disableCorrelation, d.extendsUuid, JSON.stringify(d.galaxies)];
}

async function insertEvent(client: pg.PoolClient, d: EventDraft, orgId: number, orgcId: number, actor: Principal): Promise<number> {
  const { rows } = await client.query<{ id: number }>(
    `INSERT INTO events (info, date, threat_level, analysis, distribution, sharing_group_id, published, publish_timestamp, timestamp,
                         sighting_timestamp, locked, proposal_email_lock, protected, disable_correlation, extends_uuid, galaxies,
                         uuid, org_id, orgc_id, user_id)
     VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19,$20) RETURNING id`,
    [...eventColumns(d), d.uuid, orgId, orgcId, actor.userId],
  );
  return rows[0].id;
}

async function updateEvent(client: pg.PoolClient, id: number, d: EventDraft, orgcId: number): Promise<number> {
  await client.query(
    `UPDATE events SET info=$1, date=$2, threat_level=$3, analysis=$4, distribution=$5, sharing_group_id=$6, published=$7,
            publish_timestamp=$8, timestamp=$9, sighting_timestamp=$10, locked=$11, proposal_email_lock=$12, protected=$13,
            disable_correlation=$14, extends_uuid=$15, galaxies=$16, orgc_id=$17
      WHERE id = $18`,
    [...eventColumns(d), orgcId, id],
  );
  return id;
}

/**
 * Objects, references, and any uuid an event holds. Attributes of other events are found by
 * `assertAttributesFree` after their upsert, among the rows it left alone: the upsert probes the
 * uuid index anyway, and a feed's new attributes need no second probe.
 */
async function assertUuidsFree(client: pg.PoolClient, eventId: number, d: EventDraft): Promise<void> {
  const attributeUuids = [...d.attributes, ...d.objects.flatMap((o) => o.attributes)].map((a) => a.uuid);
  const objectUuids = d.objects.map((o) => o.uuid);
  const referenceUuids = d.objects.flatMap((o) => o.references.map((r) => r.uuid));
  const { rows } = await client.query<{ uuid: string; kind: string }>(
    `SELECT uuid::text, 'object' AS kind FROM objects WHERE uuid = ANY($2::uuid[]) AND event_id <> $4
     UNION ALL SELECT uuid::text, 'object reference' FROM object_references WHERE uuid = ANY($3::uuid[]) AND event_id <> $4
     UNION ALL SELECT uuid::text, 'event' FROM events WHERE uuid = ANY($1::uuid[] || $2::uuid[] || $3::uuid[])
     LIMIT 20`,
    [attributeUuids, objectUuids, referenceUuids, eventId],
  );
  throwIfTaken(rows);
}

/**
 * Of the attributes an upsert neither inserted nor updated (stored no older, or held by another
 * event: its `WHERE` skips both), those of another event: a conflict, and the transaction rolls back.
 */
async function assertAttributesFree(client: pg.PoolClient, eventId: number, untouched: string[]): Promise<void> {
  if (untouched.length === 0) return;
  const { rows } = await client.query<{ uuid: string; kind: string }>(
    "SELECT uuid::text, 'attribute' AS kind FROM attributes WHERE uuid = ANY($1::uuid[]) AND event_id <> $2 LIMIT 20",
    [untouched, eventId],
  );
  throwIfTaken(rows);
}

function throwIfTaken(rows: { uuid: string; kind: string }[]): void {
  if (rows.length) {
    throw errors.conflict(`These uuids already belong to another event: ${rows.map((r) => `${r.kind} ${r.uuid}`).join(", ")}`);
  }
}

function collectTags(d: EventDraft): TagDraft[] {
  const all = new Map<string, TagDraft>();
  const add = (t: TagDraft) => {
    if (!all.has(t.name)) all.set(t.name, t);
  };
  d.tags.forEach(add);
  for (const a of [...d.attributes, ...d.objects.flatMap((o) => o.attributes)]) a.tags.forEach(add);
  return [...all.values()];
}

/**
 * Creates missing tags (colour from the document, else derived from the name, as the peer does).
 * In name order: two imports creating the same new tags in their documents' orders each waited on
 * the other's uncommitted row, a deadlock.
 */
export async function ensureTags(client: pg.PoolClient, tags: TagDraft[], actor: Principal | null): Promise<Map<string, number>> {
  if (tags.length === 0) return new Map();
  const names = tags.map((t) => t.name);
  await client.query(
    `INSERT INTO tags (name, colour, exportable, is_galaxy, user_id)
     SELECT n, c, e, n LIKE 'misp-galaxy:%', $4 FROM unnest($1::text[], $2::text[], $3::boolean[]) AS t(n, c, e)
     ORDER BY n COLLATE "C"
     ON CONFLICT (name) DO NOTHING`,
    [names, tags.map((t) => t.colour ?? tagColour(t.name)), tags.map((t) => t.exportable), actor?.userId ?? null],
  );
  const { rows } = await client.query<{ id: number; name: string }>("SELECT id, name FROM tags WHERE name = ANY($1::text[])", [names]);
  return new Map(rows.map((r) => [r.name, r.id]));
}

export function tagColour(name: string): string {
  return `#${crypto.createHash("md5").update(name).digest("hex").slice(0, 6)}`;
}

async function replaceEventTags(client: pg.PoolClient, eventId: number, tags: TagDraft[], ids: Map<string, number>): Promise<void> {
  const tagIds = tags.map((t) => ids.get(t.name)!);
  await client.query("DELETE FROM event_tags WHERE event_id = $1 AND NOT (tag_id = ANY($2::int[]))", [eventId, tagIds]);
  if (tagIds.length) {
    await client.query(
      `INSERT INTO event_tags (event_id, tag_id, local) SELECT $1, t, l FROM unnest($2::int[], $3::boolean[]) AS x(t, l)
       ON CONFLICT (event_id, tag_id) DO UPDATE SET local = EXCLUDED.local`,
      [eventId, tagIds, tags.map((t) => t.local)],
    );
  }
}

async function upsertObjects(client: pg.PoolClient, eventId: number, objects: ObjectDraft[]) {
  const changed: { id: number; uuid: string; inserted: boolean }[] = [];
  for (let i = 0; i < objects.length; i += CHUNK) {
    const c = objects.slice(i, i + CHUNK);
    const { rows } = await client.query<{ id: number; uuid: string; inserted: boolean }>(
      `INSERT INTO objects (event_id, uuid, name, meta_category, description, template_uuid, template_version, timestamp,
                            distribution, sharing_group_id, comment, deleted, first_seen, last_seen)
       SELECT $1, * FROM unnest($2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[], $7::int[], $8::bigint[], $9::smallint[],
                                $10::int[], $11::text[], $12::boolean[], $13::timestamptz[], $14::timestamptz[])
       ON CONFLICT (uuid) DO UPDATE SET name = EXCLUDED.name, meta_category = EXCLUDED.meta_category, description = EXCLUDED.description,
         template_uuid = EXCLUDED.template_uuid, template_version = EXCLUDED.template_version, timestamp = EXCLUDED.timestamp,
         distribution = EXCLUDED.distribution, sharing_group_id = EXCLUDED.sharing_group_id, comment = EXCLUDED.comment,
         deleted = EXCLUDED.deleted, first_seen = EXCLUDED.first_seen, last_seen = EXCLUDED.last_seen
       WHERE objects.event_id = EXCLUDED.event_id AND objects.timestamp < EXCLUDED.timestamp
       RETURNING id, uuid::text, (xmax = 0) AS inserted`,
      [
        eventId,
        c.map((o) => o.uuid),
        c.map((o) => o.name),
        c.map((o) => o.metaCategory),
        c.map((o) => o.description),
        c.map((o) => o.templateUuid),
        c.map((o) => o.templateVersion),
        c.map((o) => o.timestamp),
        c.map((o) => o.distribution),
        c.map((o) => o.sharingGroupId),
        c.map((o) => o.comment),
        c.map((o) => o.deleted),
        c.map((o) => o.firstSeen?.toISOString() ?? null),
        c.map((o) => o.lastSeen?.toISOString() ?? null),
      ],
    );
    changed.push(...rows);
  }
  const idByUuid = new Map<string, number>();
  if (objects.length) {
    const { rows } = await client.query<{ id: number; uuid: string }>("SELECT id, uuid::text FROM objects WHERE event_id = $1", [eventId]);
    for (const r of rows) idByUuid.set(r.uuid, r.id);
  }
  return { changed, idByUuid };
}

async function upsertAttributes(
  client: pg.PoolClient,
  eventId: number,
  chunk: { a: AttributeDraft; objectUuid: string | null }[],
  objectIds: Map<string, number>,
  matcher: WarninglistMatcher,
): Promise<{ id: string; uuid: string; inserted: boolean }[]> {
  const col = <T>(f: (a: AttributeDraft) => T) => chunk.map((c) => f(c.a));
  const { rows } = await client.query<{ id: string; uuid: string; inserted: boolean }>(
    `INSERT INTO attributes (event_id, uuid, object_id, object_relation, type, category, value, value1, value2, to_ids, comment,
                             distribution, sharing_group_id, timestamp, first_seen, last_seen, deleted, disable_correlation, warnings)
     SELECT $1, * FROM unnest($2::uuid[], $3::int[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[],
                              $10::boolean[], $11::text[], $12::smallint[], $13::int[], $14::bigint[], $15::timestamptz[],
                              $16::timestamptz[], $17::boolean[], $18::boolean[], $19::jsonb[])
     ON CONFLICT (uuid) DO UPDATE SET object_id = EXCLUDED.object_id, object_relation = EXCLUDED.object_relation, type = EXCLUDED.type,
       category = EXCLUDED.category, value = EXCLUDED.value, value1 = EXCLUDED.value1, value2 = EXCLUDED.value2,
       to_ids = EXCLUDED.to_ids, comment = EXCLUDED.comment, distribution = EXCLUDED.distribution,
       sharing_group_id = EXCLUDED.sharing_group_id, timestamp = EXCLUDED.timestamp, first_seen = EXCLUDED.first_seen,
       last_seen = EXCLUDED.last_seen, deleted = EXCLUDED.deleted, disable_correlation = EXCLUDED.disable_correlation,
       warnings = EXCLUDED.warnings
     WHERE attributes.event_id = EXCLUDED.event_id AND attributes.timestamp < EXCLUDED.timestamp
     RETURNING id::text, uuid::text, (xmax = 0) AS inserted`,
    [
      eventId,
      col((a) => a.uuid),
      chunk.map((c) => (c.objectUuid ? objectIds.get(c.objectUuid)! : null)),
      col((a) => a.objectRelation),
      col((a) => a.type),
      col((a) => a.category),
      col((a) => a.value),
      col((a) => a.value1),
      col((a) => a.value2),
      col((a) => a.toIds),
      col((a) => a.comment),
      col((a) => a.distribution),
      col((a) => a.sharingGroupId),
      col((a) => a.timestamp),
      col((a) => a.firstSeen?.toISOString() ?? null),
      col((a) => a.lastSeen?.toISOString() ?? null),
      col((a) => a.deleted),
      col((a) => a.disableCorrelation),
      col((a) => JSON.stringify(matcher.match(a.type, a.value1, a.value2))),
    ],
  );
  return rows;
}

async function replaceAttributeTags(client: pg.PoolClient, items: { id: string; inserted: boolean; tags: TagDraft[] }[], ids: Map<string, number>): Promise<void> {
  if (items.length === 0) return;
  // A row inserted by this statement has no tags yet: only updated rows need the old ones removed.
  const updated = items.filter((i) => !i.inserted).map((i) => i.id);
  if (updated.length) await client.query("DELETE FROM attribute_tags WHERE attribute_id = ANY($1::bigint[])", [updated]);
  const attr: string[] = [];
  const tag: number[] = [];
  const local: boolean[] = [];
  for (const i of items) {
    for (const t of i.tags) {
      attr.push(i.id);
      tag.push(ids.get(t.name)!);
      local.push(t.local);
    }
  }
  if (attr.length) {
    await client.query(
      `INSERT INTO attribute_tags (attribute_id, tag_id, local) SELECT * FROM unnest($1::bigint[], $2::int[], $3::boolean[])
       ON CONFLICT DO NOTHING`,
      [attr, tag, local],
    );
  }
}

const SIGHTING_TYPES = ["sighting", "false-positive", "expiration"];

/**
 * Inserts the sightings of stored attributes (known uuids are skipped) and returns their change
 * records. Without `sync` every sighting is the caller's organisation's.
 */
async function insertSightings(
  client: pg.PoolClient,
  eventId: number,
  eventUuid: string,
  items: { id: string; attribute: AttributeDraft }[],
  actor: Principal,
  sync: boolean,
): Promise<Change[]> {
  const all = items.flatMap((i) => i.attribute.sightings.map((s) => ({ attributeId: i.id, a: i.attribute, s })));
  if (all.length === 0) return [];
  const own = sync ? null : await callerOrganisation(client, actor);
  const key = (s: SightingDraft) => `${s.orgUuid ?? ""}|${s.orgName}`;
  const named = new Map<string, number>();
  if (!own) {
    for (const { s } of all) {
      if (s.orgName && !named.has(key(s))) named.set(key(s), await resolveOrganisation(client, s.orgUuid, s.orgName, actor));
    }
  }
  const orgIdOf = (s: SightingDraft) => (own ? own.id : s.orgName ? named.get(key(s))! : null);
  const orgNameOf = (s: SightingDraft) => (own ? own.name : s.orgName);
  const { rows } = await client.query<{ uuid: string }>(
    `INSERT INTO sightings (uuid, attribute_id, event_id, type, source, org_id, date_sighting)
     SELECT u, a, $1, t, s, o, d FROM unnest($2::uuid[], $3::bigint[], $4::smallint[], $5::text[], $6::int[], $7::bigint[]) AS x(u, a, t, s, o, d)
     ON CONFLICT (uuid) DO NOTHING
     RETURNING uuid::text`,
    [
      eventId,
      all.map((x) => x.s.uuid),
      all.map((x) => x.attributeId),
      all.map((x) => x.s.type),
      all.map((x) => x.s.source),
      all.map((x) => orgIdOf(x.s)),
      all.map((x) => x.s.dateSighting),
    ],
  );
  const inserted = new Set(rows.map((r) => r.uuid));
  return all
    .filter((x) => inserted.has(x.s.uuid))
    .map((x) => ({
      kind: "sighting.created",
      entityType: "sighting" as const,
      entityUuid: x.s.uuid,
      eventUuid,
      payload: { attribute_uuid: x.a.uuid, sighting_type: SIGHTING_TYPES[x.s.type], value: x.a.value, organisation: orgNameOf(x.s), timestamp: x.s.dateSighting },
    }));
}

async function callerOrganisation(client: pg.PoolClient, actor: Principal): Promise<{ id: number; name: string }> {
  const { rows } = await client.query<{ id: number; name: string }>("SELECT id, name FROM organisations WHERE id = $1", [actor.orgId]);
  if (!rows[0]) throw errors.forbidden("Only users of an organisation can import sightings");
  return rows[0];
}

/** Upserts references (newer timestamp wins) and returns a change record for each one stored. */
async function upsertReferences(client: pg.PoolClient, eventId: number, eventUuid: string, objects: ObjectDraft[], objectIds: Map<string, number>): Promise<Change[]> {
  const refs = objects.flatMap((o) => o.references.map((r) => ({ r, objectUuid: o.uuid, objectId: objectIds.get(o.uuid)! })));
  if (refs.length === 0) return [];
  const { rows } = await client.query<{ uuid: string; inserted: boolean }>(
    `INSERT INTO object_references (event_id, uuid, object_id, referenced_uuid, referenced_type, relationship_type, comment, timestamp, deleted)
     SELECT $1, * FROM unnest($2::uuid[], $3::int[], $4::uuid[], $5::smallint[], $6::text[], $7::text[], $8::bigint[], $9::boolean[])
     ON CONFLICT (uuid) DO UPDATE SET referenced_uuid = EXCLUDED.referenced_uuid, referenced_type = EXCLUDED.referenced_type,
       relationship_type = EXCLUDED.relationship_type, comment = EXCLUDED.comment, timestamp = EXCLUDED.timestamp, deleted = EXCLUDED.deleted
     WHERE object_references.event_id = EXCLUDED.event_id AND object_references.timestamp < EXCLUDED.timestamp
     RETURNING uuid::text, (xmax = 0) AS inserted`,
    [
      eventId,
      refs.map((x) => x.r.uuid),
      refs.map((x) => x.objectId),
      refs.map((x) => x.r.referencedUuid),
      refs.map((x) => x.r.referencedType),
      refs.map((x) => x.r.relationshipType),
      refs.map((x) => x.r.comment),
      refs.map((x) => x.r.timestamp),
      refs.map((x) => x.r.deleted),
    ],
  );
  const byUuid = new Map(refs.map((x) => [x.r.uuid, x]));
  return rows.map((row) => {
    const x = byUuid.get(row.uuid)!;
    return {
      kind: row.inserted ? "object_reference.created" : "object_reference.updated",
      entityType: "object_reference" as const,
      entityUuid: row.uuid,
      eventUuid,
      payload: { object_uuid: x.objectUuid, referenced_uuid: x.r.referencedUuid, relationship_type: x.r.relationshipType },
    };
  });
}
