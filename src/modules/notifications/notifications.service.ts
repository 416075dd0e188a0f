import type { AppContext } from "../../app-context.ts";
import { authorize, requireUser, type Principal } from "../../auth/principal.ts";
import { withTransaction, type Sql } from "../../platform/db/transaction.ts";
import { errors, parseInput } from "../../platform/errors.ts";
import { likeLiteral } from "../../platform/db/like.ts";
import type { Notification, Prisma } from "../../generated/prisma/client.ts";
import { offsetOf, pageOf, type Page, type PageRequest } from "../../platform/pagination.ts";
import { MAX_FOLLOWS_PER_LIST } from "../settings/index.ts";
import { userSettingsTopic } from "../settings/index.ts";
import type { FollowList } from "./notification-rules.ts";
import { followContract, notificationListContract, notificationTargetContract, type NotificationListInput, type NotificationTarget } from "./notifications.contracts.ts";
import { notificationsTopic } from "./notifier.ts";

/** A notification as stored (its payload an object: every writer stores one). */
export type NotificationRecord = Notification & { payload: Record<string, unknown> };
/** What a GraphQL selection asks to load with notifications (@pothos/plugin-prisma's query). */
export type NotificationSelection = Pick<Prisma.NotificationFindManyArgs, "include" | "select">;

const COLUMNS = `id, user_id AS "userId", type, entity_type AS "entityType", entity_uuid::text AS "entityUuid", payload, read, dedupe_key AS "dedupeKey", created_at AS "createdAt"`;
const NEWEST_FIRST = [{ createdAt: "desc" }, { id: "desc" }] satisfies Prisma.NotificationOrderByWithRelationInput[];

/** What a notification's unfollow removes: the list and the uuid (null for hunts: nothing to unfollow). */
function followOf(n: NotificationRecord): { list: FollowList; uuid: string } | null {
  const p = n.payload;
  const at = (k: string) => (typeof p[k] === "string" ? (p[k] as string) : null);
  let target: { list: FollowList; uuid: string | null } | null = null;
  if (n.type.startsWith("organisation.")) target = { list: "organisations", uuid: at("organisation_uuid") };
  else if (n.type.startsWith("event.")) target = { list: "events", uuid: at("event_uuid") };
  else if (n.type.startsWith("attribute.")) target = { list: "attributes", uuid: n.entityUuid };
  else if (n.type === "object.attribute.created") target = { list: "objects", uuid: at("object_uuid") };
  else if (n.type.startsWith("object.")) target = { list: "objects", uuid: n.entityUuid };
  return target?.uuid ? { list: target.list, uuid: target.uuid } : null;
}

/** The caller's own notifications (another user's id is not found) and their follow lists. */
export class NotificationsService {
  constructor(private readonly ctx: AppContext) {}

  /** The caller's notifications, newest first; `query` is what a GraphQL selection loads with them. */
  async list(p: Principal | null, given: NotificationListInput, req: PageRequest, query: NotificationSelection = {}): Promise<Page<NotificationRecord>> {
    authorize(p, "notifications:read");
    requireUser(p);
    const f = parseInput(notificationListContract, given);
    const where: Prisma.NotificationWhereInput = {
      userId: p.userId,
      AND: [
        f.type ? { type: f.type } : {},
        f.read === undefined ? {} : { read: f.read },
        f.filter ? { type: { contains: likeLiteral(f.filter), mode: "insensitive" } } : {},
      ],
    };
    const [items, total] = await Promise.all([
      this.ctx.db.prisma.notification.findMany({ ...query, where, orderBy: NEWEST_FIRST, skip: offsetOf(req), take: req.size }),
      this.ctx.db.prisma.notification.count({ where }),
    ]);
    return pageOf(items as NotificationRecord[], total, req);
  }

  async get(p: Principal | null, id: number, query: NotificationSelection = {}): Promise<NotificationRecord> {
    authorize(p, "notifications:read");
    requireUser(p);
    const row = await this.ctx.db.prisma.notification.findFirst({ ...query, where: { id, userId: p.userId } });
    if (!row) throw errors.notFound("Notification");
    return row as NotificationRecord;
  }

  async unreadCount(p: Principal | null): Promise<number> {
    authorize(p, "notifications:read");
    requireUser(p);
    const { rows } = await this.ctx.db.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM notifications WHERE user_id = $1 AND NOT read", [p.userId]);
    return rows[0].n;
  }

  /** One notification (by id) or all of the caller's. */
  markRead(p: Principal | null, id: NotificationTarget): Promise<void> {
    return this.changeOwn(p, id, "UPDATE notifications SET read = true WHERE user_id = $1 AND NOT read", "UPDATE notifications SET read = true WHERE user_id = $1 AND id = $2");
  }

  delete(p: Principal | null, id: NotificationTarget): Promise<void> {
    return this.changeOwn(p, id, "DELETE FROM notifications WHERE user_id = $1", "DELETE FROM notifications WHERE user_id = $1 AND id = $2");
  }

  /** Runs `all` over the caller's rows, or `one` over one of them (404 when it is not theirs), and announces the change. */
  private async changeOwn(p: Principal | null, given: NotificationTarget, all: string, one: string): Promise<void> {
    authorize(p, "notifications:update");
    requireUser(p);
    const { id } = parseInput(notificationTargetContract, { id: given });
    const { rowCount } = await this.ctx.db.pool.query(id === "all" ? all : one, id === "all" ? [p.userId] : [p.userId, id]);
    if (id !== "all" && !rowCount) throw errors.notFound("Notification");
    await this.changed(p.userId);
  }

  /**
   * Removes the followed uuid the notification is about from the caller's list and deletes the
   * notification, in one transaction. Hunt notifications follow nothing: `{status: "error"}`, as the peer.
   */
  async unfollow(p: Principal | null, id: number): Promise<{ status: "success" | "error" }> {
    authorize(p, "notifications:update");
    requireUser(p);
    return withTransaction(this.ctx.db.pool, async (client) => {
      const { rows } = await client.query<NotificationRecord>(`SELECT ${COLUMNS} FROM notifications WHERE id = $1 AND user_id = $2 FOR UPDATE`, [id, p.userId]);
      if (!rows[0]) throw errors.notFound("Notification");
      if (rows[0].type.startsWith("hunt.")) return { status: "error" as const };
      const target = followOf(rows[0]);
      if (target) await setFollow(client, p.userId, target.list, target.uuid, false);
      await client.query("DELETE FROM notifications WHERE id = $1", [id]);
      await this.ctx.pubsub.publish(userSettingsTopic(p.userId), { namespace: "notifications" }, client);
      await this.ctx.pubsub.publish(notificationsTopic(p.userId), { changed: true }, client);
      return { status: "success" as const };
    });
  }

  /** Follow or unfollow one uuid (it need not exist yet). */
  async follow(p: Principal | null, list: FollowList, uuid: string, on: boolean): Promise<string[]> {
    authorize(p, "user_settings:update");
    requireUser(p);
    const target = parseInput(followContract, { list, uuid });
    return withTransaction(this.ctx.db.pool, async (client) => {
      const list_ = await setFollow(client, p.userId, target.list, target.uuid, on);
      await this.ctx.pubsub.publish(userSettingsTopic(p.userId), { namespace: "notifications" }, client);
      return list_;
    });
  }

  private async changed(userId: number): Promise<void> {
    await this.ctx.pubsub.publish(notificationsTopic(userId), { changed: true });
  }
}

/** Adds or removes a uuid in one follow list of the user's `notifications` setting; returns the list. */
async function setFollow(sql: Sql, userId: number, list: FollowList, uuid: string, on: boolean): Promise<string[]> {
  const { rows } = await sql.query<{ value: { follow?: Partial<Record<FollowList, string[]>>; email_notifications?: boolean } }>(
    "SELECT value FROM user_settings WHERE user_id = $1 AND namespace = 'notifications' FOR UPDATE",
    [userId],
  );
  const value = rows[0]?.value ?? { follow: {}, email_notifications: true };
  const follow = { events: [], attributes: [], objects: [], organisations: [], ...(value.follow ?? {}) } as Record<FollowList, string[]>;
  const current = follow[list].filter((u) => u !== uuid);
  if (on) current.push(uuid);
  if (current.length > MAX_FOLLOWS_PER_LIST) throw errors.invalidInput(["uuid"], `a follow list holds at most ${MAX_FOLLOWS_PER_LIST} uuids`);
  follow[list] = current;
  const next = { email_notifications: value.email_notifications ?? true, ...value, follow };
  await sql.query(
    `INSERT INTO user_settings (user_id, namespace, value) VALUES ($1, 'notifications', $2)
     ON CONFLICT (user_id, namespace) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`,
    [userId, JSON.stringify(next)],
  );
  return current;
}
