import { builder, caller } from "../../graphql/builder.ts";
import { cost } from "../../graphql/cost-limits.ts";
import { authorize, requireUser } from "../../auth/principal.ts";
import { errors } from "../../platform/errors.ts";
import { mapSubscription } from "../../platform/pubsub.ts";
import type { FollowList } from "./notification-rules.ts";
import { notificationsTopic } from "./notifier.ts";
import type { NotificationRow } from "./notifications.service.ts";
import { checkPageSize } from "../../platform/paging.ts";

const NotificationType = builder.objectRef<NotificationRow>("Notification").implement({
  fields: (t) => ({
    id: t.exposeInt("id"),
    type: t.exposeString("type"),
    entityType: t.string({ resolve: (n) => n.entity_type }),
    entityUuid: t.string({ nullable: true, resolve: (n) => n.entity_uuid }),
    read: t.exposeBoolean("read"),
    payload: t.field({ type: "JSON", resolve: (n) => n.payload }),
    createdAt: t.field({ type: "DateTime", resolve: (n) => n.created_at }),
  }),
});

const Page = builder.objectRef<{ items: NotificationRow[]; total: number; page: number; size: number; pages: number }>("NotificationPage").implement({
  fields: (t) => ({
    items: t.field({ type: [NotificationType], resolve: (p) => p.items }),
    total: t.exposeInt("total"),
    page: t.exposeInt("page"),
    size: t.exposeInt("size"),
    pages: t.exposeInt("pages"),
  }),
});

const FollowListEnum = builder.enumType("FollowList", { values: ["events", "attributes", "objects", "organisations"] as const });

/** `all` or a positive id: anything else is a 422 naming the argument. */
function idOrAll(id: string): number | "all" {
  if (id === "all") return "all";
  if (!/^[0-9]{1,10}$/.test(id) || Number(id) < 1 || Number(id) > 2_147_483_647) throw errors.invalidField(["args", "id"], "must be a notification id or all", id.slice(0, 50));
  return Number(id);
}

builder.queryFields((t) => ({
  notifications: t.field({
    extensions: cost.page("size"),
    type: Page,
    args: { page: t.arg.int({ defaultValue: 1 }), size: t.arg.int({ defaultValue: 50 }), type: t.arg.string(), read: t.arg.boolean(), filter: t.arg.string() },
    resolve: (_r, a, ctx) =>
      ctx.services.notifications.list(caller(ctx), { type: a.type ?? undefined, read: a.read ?? undefined, filter: a.filter ?? undefined }, checkPageSize(a, 50)),
  }),
  unreadNotificationCount: t.int({ resolve: (_r, _a, ctx) => ctx.services.notifications.unreadCount(caller(ctx)) }),
}));

builder.mutationFields((t) => ({
  markNotificationRead: t.boolean({
    description: "Mark one notification read, or all of yours with the id `all`",
    args: { id: t.arg.string({ required: true }) },
    resolve: async (_r, a, ctx) => {
      await ctx.services.notifications.markRead(caller(ctx), idOrAll(a.id));
      return true;
    },
  }),
  deleteNotification: t.boolean({
    description: "Delete one notification, or all of yours with the id `all`",
    args: { id: t.arg.string({ required: true }) },
    resolve: async (_r, a, ctx) => {
      await ctx.services.notifications.delete(caller(ctx), idOrAll(a.id));
      return true;
    },
  }),
  unfollowNotification: t.string({
    description: "Stop following what the notification is about and delete it: success, or error for hunt notifications",
    args: { id: t.arg.int({ required: true }) },
    resolve: async (_r, a, ctx) => (await ctx.services.notifications.unfollow(caller(ctx), a.id)).status,
  }),
  follow: t.stringList({
    description: "Follow a uuid (it need not exist yet); returns the list",
    args: { list: t.arg({ type: FollowListEnum, required: true }), uuid: t.arg.string({ required: true }) },
    resolve: (_r, a, ctx) => ctx.services.notifications.follow(caller(ctx), a.list as FollowList, a.uuid, true),
  }),
  unfollow: t.stringList({
    description: "Stop following a uuid; returns the list",
    args: { list: t.arg({ type: FollowListEnum, required: true }), uuid: t.arg.string({ required: true }) },
    resolve: (_r, a, ctx) => ctx.services.notifications.follow(caller(ctx), a.list as FollowList, a.uuid, false),
  }),
}));

builder.subscriptionFields((t) => ({
  notificationCreated: t.field({
    type: NotificationType,
    description: "Your new notifications as they are created, from any process",
    subscribe: (_r, _a, ctx) => {
      const p = caller(ctx);
      authorize(p, "notifications:read");
      requireUser(p);
      const messages = ctx.pubsub.subscribe(notificationsTopic(p.userId)) as AsyncIterator<{ id?: number }> & { return(): Promise<IteratorResult<{ id?: number }>> };
      return mapSubscription(messages, async (m) => (typeof m.id === "number" ? ((await ctx.services.notifications.get(p, m.id).catch(() => null)) ?? undefined) : undefined));
    },
    resolve: (n) => n,
  }),
  unreadNotificationCount: t.int({
    description: "Your unread count: now, then after every change",
    subscribe: (_r, _a, ctx) => {
      const p = caller(ctx);
      authorize(p, "notifications:read");
      requireUser(p);
      const messages = ctx.pubsub.subscribe(notificationsTopic(p.userId)) as AsyncIterator<unknown> & { return(): Promise<IteratorResult<unknown>> };
      const count = () => ctx.services.notifications.unreadCount(p);
      return mapSubscription(messages, count, count);
    },
    resolve: (n) => n,
  }),
}));
