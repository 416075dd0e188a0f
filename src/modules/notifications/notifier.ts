import type pg from "pg";
import type { PgPubSub } from "../../platform/pubsub.ts";
import { withTransaction } from "../../platform/db/transaction.ts";
import { hasScope } from "../../auth/principal.ts";
import { userPrincipal } from "../../auth/run-as.ts";
import { canReadInEvent } from "../../auth/distribution.ts";
import { queueEmails, type NewNotification } from "./mail.ts";
import { candidatesOf, type Candidate, type ChangeRecord, type Context, type EventAccess, type FollowList } from "./notification-rules.ts";
import { sharingGroupIdsSql } from "../../auth/sharing-group-membership.ts";

/** Topic on which a user's new notifications are announced (ids only; subscribers read the rows). */
export const notificationsTopic = (userId: number) => `notifications:${userId}`;

interface Recipient {
  id: number;
  orgId: number;
  scopes: string[];
  sharingGroupIds: number[];
}

/**
 * Turns change records `firstId..lastId` into notifications: one row per follower and type, created
 * exactly once (the dedupe key), for recipients who still may read what it is about (enabled, with
 * notifications:read and, for anything in an event, events:read and read access by the distribution
 * rule to the event and to every object and attribute the notification shows). The rows and their
 * announcements commit together. Returns the number of rows created.
 */
export async function notifyChangeRange(pool: pg.Pool, pubsub: PgPubSub, firstId: number, lastId: number, mail?: { publicUrl: string }): Promise<number> {
  // Most ranges (a feed, an import) arrive while nobody follows anything: then no record is read.
  if (!(await anyoneFollows(pool))) return 0;
  const { rows } = await pool.query<ChangeRecord>(
    "SELECT id::int, kind, entity_type, entity_uuid::text, event_uuid::text, payload FROM change_records WHERE id BETWEEN $1 AND $2 ORDER BY id",
    [firstId, lastId],
  );
  if (rows.length === 0) return 0;
  const { ctx, candidates, followers } = await followedCandidates(pool, rows);
  if (candidates.length === 0) return 0;
  const recipientIds = [...new Set([...followers.values()].flat())];
  if (recipientIds.length === 0) return 0;
  const recipients = await loadRecipients(pool, recipientIds);
  const out: { userId: number; c: Candidate }[] = [];
  for (const c of candidates) {
    for (const userId of followers.get(followKey(c)) ?? []) {
      const u = recipients.get(userId);
      if (u && mayReceive(u, c, ctx)) out.push({ userId, c });
    }
  }
  if (out.length === 0) return 0;
  return withTransaction(pool, async (client) => {
    // The key ledger outlives the rows (a user may delete a notification before a job is retried).
    const inserted = await client.query<NewNotification>(
      // In the changes' order (ORDER BY n.ord): one job's notifications share created_at, so their ids
      // order them newest first, and a hash join's order had put a batch's last change before others.
      `WITH n AS (SELECT * FROM unnest($1::int[], $2::text[], $3::text[], $4::uuid[], $5::jsonb[], $6::text[]) WITH ORDINALITY AS n(user_id, type, entity_type, entity_uuid, payload, dedupe_key, ord)),
            fresh AS (INSERT INTO notification_keys (key) SELECT dedupe_key FROM n ON CONFLICT (key) DO NOTHING RETURNING key)
       INSERT INTO notifications (user_id, type, entity_type, entity_uuid, payload, dedupe_key)
       SELECT n.user_id, n.type, n.entity_type, n.entity_uuid, n.payload, n.dedupe_key FROM n JOIN fresh ON fresh.key = n.dedupe_key ORDER BY n.ord
       ON CONFLICT (dedupe_key) DO NOTHING RETURNING id, user_id, type, payload`,
      [
        out.map((o) => o.userId),
        out.map((o) => o.c.type),
        out.map((o) => o.c.entityType),
        out.map((o) => o.c.entityUuid),
        out.map((o) => JSON.stringify(o.c.payload)),
        out.map((o) => `${o.c.changeId}:${o.userId}:${o.c.type}`),
      ],
    );
    for (const r of inserted.rows) await pubsub.publish(notificationsTopic(r.user_id), { id: r.id }, client);
    if (mail) await queueEmails(client, inserted.rows, mail.publicUrl);
    return inserted.rows.length;
  });
}

function mayReceive(u: Recipient, c: Candidate, ctx: Context): boolean {
  const p = userPrincipal(u, [u.scopes]);
  if (!hasScope(p, "notifications:read")) return false;
  if (c.eventUuid === null && c.reads.length === 0) return true;
  if (!hasScope(p, "events:read") || c.reads.length === 0) return false;
  return c.reads.every((r) => {
    // Changes inside a soft-deleted event are not news: it is out of search, hunts and correlations too.
    if (ctx.events.get(r.eventUuid)?.deleted) return false;
    // An event that is gone is judged by the access its deletion recorded; without that, nobody hears.
    const e = ctx.events.get(r.eventUuid) ?? ctx.deletedEvents.get(r.eventUuid);
    return e !== undefined && canReadInEvent(p, e, ...r.items);
  });
}

const followKey = (c: Candidate) => `${c.list}:${c.followed}`;

/**
 * The candidates of the records someone follows, with the context they need. The follow keys are
 * found first from what the records carry and their events (one small read per distinct event), so
 * that the attributes and objects of a range nobody follows are never read: only the records with a
 * follower, and those whose keys the rows could change, get their context and their candidates.
 */
async function followedCandidates(pool: pg.Pool, rows: ChangeRecord[]): Promise<{ ctx: Context; candidates: Candidate[]; followers: Map<string, number[]> }> {
  const eventUuids = eventUuidsOf(rows);
  const events = await loadEvents(pool, eventUuids);
  const skeleton: Context = { events, deletedEvents: deletedEventsOf(rows), attributes: new Map(), objects: new Map() };
  const withObjectFollowers = await eventsWithFollowedObjects(pool, [...eventUuids]);
  const keys = rows.map((r) => candidatesOf(r, skeleton).map(followKey));
  const followers = await followersOf(pool, keys.flat());
  const selected = rows.filter((r, i) => keysMayChange(r, withObjectFollowers) || keys[i].some((k) => followers.has(k)));
  if (selected.length === 0) return { ctx: skeleton, candidates: [], followers };
  const ctx = await loadItems(pool, selected, skeleton);
  const candidates = selected.flatMap((r) => candidatesOf(r, ctx));
  const known = new Set(keys.flat());
  const more = await followersOf(pool, candidates.map(followKey).filter((k) => !known.has(k)));
  for (const [k, v] of more) followers.set(k, v);
  return { ctx, candidates, followers };
}

/**
 * Whether a record's follow keys may differ once its attribute or object row is read: an attribute
 * names its object from the row (writers do not all put `object_uuid` in the payload), which only
 * matters in an event holding an object someone follows; a record without its event takes the event
 * from the row. Attributes and objects never change event, so a record's event is the row's.
 */
function keysMayChange(r: ChangeRecord, withObjectFollowers: Set<string>): boolean {
  if (r.kind === "attribute.correlation.created" || r.kind === "sighting.created") return false;
  if (r.entity_type !== "attribute" && r.entity_type !== "object") return false;
  return r.event_uuid === null || (r.entity_type === "attribute" && withObjectFollowers.has(r.event_uuid));
}

function eventUuidsOf(rows: ChangeRecord[]): Set<string> {
  const out = new Set<string>();
  for (const r of rows) {
    if (r.event_uuid) out.add(r.event_uuid);
    if (r.entity_type === "event") out.add(r.entity_uuid);
    for (const k of ["source_event_uuid", "target_event_uuid"]) {
      const v = r.payload?.[k];
      if (typeof v === "string") out.add(v);
    }
  }
  return out;
}

/** Those of `eventUuids` that hold an object on somebody's follow list. */
async function eventsWithFollowedObjects(pool: pg.Pool, eventUuids: string[]): Promise<Set<string>> {
  const { rows } = await pool.query<{ uuid: string }>(
    `SELECT DISTINCT e.uuid::text FROM user_settings s, LATERAL jsonb_array_elements_text(CASE WHEN jsonb_typeof(s.value->'follow'->'objects') = 'array' THEN s.value->'follow'->'objects' END) AS f(uuid)
       JOIN objects o ON o.uuid = CASE WHEN f.uuid ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' THEN f.uuid::uuid END
       JOIN events e ON e.id = o.event_id
      WHERE s.namespace = 'notifications' AND e.uuid = ANY($1::uuid[])`,
    [eventUuids],
  );
  return new Set(rows.map((r) => r.uuid));
}

/** Events deleted in the range: their access as the deletion recorded it (for every record of the range). */
function deletedEventsOf(rows: ChangeRecord[]): Map<string, EventAccess> {
  const deletedEvents = new Map<string, EventAccess>();
  for (const r of rows) {
    const p = r.payload ?? {};
    if (r.kind === "event.deleted" && typeof p.distribution === "number" && typeof p.org_id === "number" && typeof p.orgc_id === "number") {
      const sharingGroupId = typeof p.sharing_group_id === "number" ? p.sharing_group_id : null;
      deletedEvents.set(r.entity_uuid, { distribution: p.distribution, sharingGroupId, orgId: p.org_id, orgcId: p.orgc_id });
    }
  }
  return deletedEvents;
}

async function loadEvents(pool: pg.Pool, eventUuids: Set<string>): Promise<Context["events"]> {
  const { rows } = await pool.query<{
    uuid: string;
    info: string;
    orgc_uuid: string;
    orgc_name: string;
    distribution: number;
    sharing_group_id: number | null;
    org_id: number;
    orgc_id: number;
    deleted: boolean;
  }>(
    `SELECT e.uuid::text, e.info, o.uuid::text AS orgc_uuid, o.name AS orgc_name, e.distribution, e.sharing_group_id, e.org_id, e.orgc_id, e.deleted
       FROM events e JOIN organisations o ON o.id = e.orgc_id WHERE e.uuid = ANY($1::uuid[])`,
    [[...eventUuids]],
  );
  return new Map(
    rows.map((e) => [
      e.uuid,
      { info: e.info, orgcUuid: e.orgc_uuid, orgcName: e.orgc_name, distribution: e.distribution, sharingGroupId: e.sharing_group_id, orgId: e.org_id, orgcId: e.orgc_id, deleted: e.deleted },
    ]),
  );
}

/** `base` with the attributes and objects `rows` touch, and their events if `base` lacks them. */
async function loadItems(pool: pg.Pool, rows: ChangeRecord[], base: Context): Promise<Context> {
  const attributeUuids = new Set<string>();
  const objectUuids = new Set<string>();
  for (const r of rows) {
    if (r.entity_type === "attribute") attributeUuids.add(r.entity_uuid);
    if (r.entity_type === "object") objectUuids.add(r.entity_uuid);
    for (const k of ["attribute_uuid", "source_attribute_uuid", "target_attribute_uuid"]) {
      const v = r.payload?.[k];
      if (typeof v === "string") attributeUuids.add(v);
    }
  }
  const [attrs, objs] = await Promise.all([
    pool.query<{
      uuid: string;
      type: string;
      value: string;
      object_uuid: string | null;
      event_uuid: string;
      distribution: number;
      sharing_group_id: number | null;
      object_distribution: number | null;
      object_sharing_group_id: number | null;
    }>(
      `SELECT a.uuid::text, a.type, a.value, o.uuid::text AS object_uuid, e.uuid::text AS event_uuid, a.distribution, a.sharing_group_id,
              o.distribution AS object_distribution, o.sharing_group_id AS object_sharing_group_id
         FROM attributes a JOIN events e ON e.id = a.event_id LEFT JOIN objects o ON o.id = a.object_id WHERE a.uuid = ANY($1::uuid[])`,
      [[...attributeUuids]],
    ),
    pool.query<{ uuid: string; name: string; event_uuid: string; distribution: number; sharing_group_id: number | null }>(
      "SELECT o.uuid::text, o.name, e.uuid::text AS event_uuid, o.distribution, o.sharing_group_id FROM objects o JOIN events e ON e.id = o.event_id WHERE o.uuid = ANY($1::uuid[])",
      [[...objectUuids]],
    ),
  ]);
  const missing = new Set([...attrs.rows, ...objs.rows].map((x) => x.event_uuid).filter((u) => !base.events.has(u)));
  const events = missing.size === 0 ? base.events : new Map([...base.events, ...(await loadEvents(pool, missing))]);
  return {
    deletedEvents: base.deletedEvents,
    events,
    attributes: new Map(
      attrs.rows.map((a) => [
        a.uuid,
        {
          type: a.type,
          value: a.value,
          objectUuid: a.object_uuid,
          eventUuid: a.event_uuid,
          level: { distribution: a.distribution, sharingGroupId: a.sharing_group_id },
          objectLevel: a.object_distribution === null ? null : { distribution: a.object_distribution, sharingGroupId: a.object_sharing_group_id },
        },
      ]),
    ),
    objects: new Map(objs.rows.map((o) => [o.uuid, { name: o.name, eventUuid: o.event_uuid, level: { distribution: o.distribution, sharingGroupId: o.sharing_group_id } }])),
  };
}

/** Whether any follow list of any user holds a uuid (the settings are one small row per user). */
async function anyoneFollows(pool: pg.Pool): Promise<boolean> {
  const { rows } = await pool.query<{ any: boolean }>(
    `SELECT EXISTS (
       SELECT 1 FROM user_settings s, jsonb_each(CASE WHEN jsonb_typeof(s.value->'follow') = 'object' THEN s.value->'follow' END) AS f(list, uuids)
        WHERE s.namespace = 'notifications' AND jsonb_typeof(f.uuids) = 'array' AND jsonb_array_length(f.uuids) > 0) AS any`,
  );
  return rows[0].any;
}

/** `<list>:<uuid>` → the users whose follow list holds it (GIN indexes per list). */
async function followersOf(pool: pg.Pool, keys: string[]): Promise<Map<string, number[]>> {
  const byList = new Map<FollowList, Set<string>>();
  for (const key of keys) {
    const [list, followed] = key.split(":") as [FollowList, string];
    (byList.get(list) ?? byList.set(list, new Set()).get(list)!).add(followed);
  }
  const out = new Map<string, number[]>();
  for (const [list, uuids] of byList) {
    // The list name is spelled out (one of four constants) so the per-list GIN index applies.
    const { rows } = await pool.query<{ user_id: number; uuid: string }>(
      `SELECT s.user_id, f.uuid FROM user_settings s, LATERAL jsonb_array_elements_text(s.value->'follow'->'${list}') AS f(uuid)
        WHERE s.namespace = 'notifications' AND (s.value->'follow'->'${list}') ?| $1::text[] AND f.uuid = ANY($1::text[])`,
      [[...uuids]],
    );
    for (const r of rows) {
      const key = `${list}:${r.uuid}`;
      (out.get(key) ?? out.set(key, []).get(key)!).push(r.user_id);
    }
  }
  return out;
}

async function loadRecipients(pool: pg.Pool, ids: number[]): Promise<Map<number, Recipient>> {
  const { rows } = await pool.query<{ id: number; org_id: number; scopes: string[]; sharing_group_ids: number[] }>(
    `SELECT u.id, u.org_id, r.scopes, ${sharingGroupIdsSql("u.org_id")} AS sharing_group_ids
       FROM users u JOIN roles r ON r.id = u.role_id WHERE u.id = ANY($1::int[]) AND NOT u.disabled`,
    [ids],
  );
  return new Map(rows.map((r) => [r.id, { id: r.id, orgId: r.org_id, scopes: r.scopes, sharingGroupIds: r.sharing_group_ids }]));
}

export interface HuntAlert {
  type: "hunt.result.first_run" | "hunt.result.changed";
  /** Hunt notifications go to the owner, no follow needed (spec 6.1 item 4). */
  ownerId: number;
  huntId: number;
  /** The run, so that a retried recording notifies once. */
  runId: string;
  payload: { hunt_id: number; hunt_name: string; total: number; previous_total: number | null } & Record<string, unknown>;
}

/**
 * A hunt run's alert (the hunts module decides whether there is one): one row for the owner, once
 * per run, announced to live subscribers and mailed like any notification. Call it in the run's
 * transaction.
 */
export async function notifyHuntResult(sql: Pick<pg.PoolClient, "query">, pubsub: PgPubSub, alert: HuntAlert, mail?: { publicUrl: string }): Promise<boolean> {
  const key = `hunt:${alert.huntId}:${alert.runId}:${alert.ownerId}:${alert.type}`;
  const { rows } = await sql.query<{ id: number }>(
    `WITH fresh AS (INSERT INTO notification_keys (key) VALUES ($1) ON CONFLICT (key) DO NOTHING RETURNING key)
     INSERT INTO notifications (user_id, type, entity_type, entity_uuid, payload, dedupe_key)
     SELECT $2, $3, 'hunt', NULL, $4, key FROM fresh RETURNING id`,
    [key, alert.ownerId, alert.type, JSON.stringify(alert.payload)],
  );
  if (rows[0]) {
    await pubsub.publish(notificationsTopic(alert.ownerId), { id: rows[0].id }, sql);
    if (mail) await queueEmails(sql, [{ id: rows[0].id, user_id: alert.ownerId, type: alert.type, payload: alert.payload }], mail.publicUrl);
  }
  return rows.length > 0;
}
