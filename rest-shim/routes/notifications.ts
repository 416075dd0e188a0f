import { z } from "zod";
import { defineRoute } from "../route.ts";
import { intId, pageQueryFields, queryBool } from "../schemas.ts";
import { notificationListContract, notificationTargetContract } from "../../src/modules/notifications/index.ts";
import { NotificationPageSchema, NotificationStatusSchema, notificationOut } from "../serializers/notifications.ts";

/** Kept for the MCP tools, which import it from here; new code imports ../serializers/notifications.ts. */

/** A notification id, or `all` where the route allows it (the contract's); anything else is a 422 naming the parameter. */
const idOrAll = z.object({ notification_id: notificationTargetContract.shape.id }).strict();
const idOnly = z.object({ notification_id: intId }).strict();
const list = notificationListContract.shape;
const ok = { status: "success" as const };

export const notificationRoutes = [
  defineRoute({
    method: "GET", path: "/notifications", operationId: "listNotifications", tag: "notifications",
    summary: "Your notifications, newest first (page/size; type exact, read true|false, filter: substring of the type)",
    scopes: ["notifications:read"], status: 200, response: NotificationPageSchema,
    query: z.object({ ...pageQueryFields, type: list.type, read: queryBool.optional().describe(list.read.description ?? ""), filter: list.filter }).strict(),
    handler: async ({ principal, query, services }) => {
      const { page, size, ...filter } = query;
      const res = await services.notifications.list(principal, filter, { page, size });
      return { ...res, items: res.items.map(notificationOut) };
    },
  }),
  defineRoute({
    method: "PATCH", path: "/notifications/{notification_id}/read", operationId: "markNotificationRead", tag: "notifications",
    summary: "Mark one notification read, or all of yours with the id `all`",
    scopes: ["notifications:update"], status: 200, response: NotificationStatusSchema, params: idOrAll,
    handler: async ({ principal, params, services }) => {
      await services.notifications.markRead(principal, params.notification_id);
      return ok;
    },
  }),
  defineRoute({
    method: "PATCH", path: "/notifications/{notification_id}/unfollow", operationId: "unfollowNotificationSubject", tag: "notifications",
    summary: "Stop following what the notification is about and delete it, in one step ({status: error} for hunt notifications, which follow nothing)",
    scopes: ["notifications:update"], status: 200, response: NotificationStatusSchema, params: idOnly,
    handler: ({ principal, params, services }) => services.notifications.unfollow(principal, params.notification_id),
  }),
  defineRoute({
    method: "DELETE", path: "/notifications/{notification_id}", operationId: "deleteNotification", tag: "notifications",
    summary: "Delete one notification, or all of yours with the id `all`",
    scopes: ["notifications:update"], status: 200, response: NotificationStatusSchema, params: idOrAll,
    handler: async ({ principal, params, services }) => {
      await services.notifications.delete(principal, params.notification_id);
      return ok;
    },
  }),
];
