import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import type { Runtime } from "../runtime.ts";
import type { FollowList } from "../modules/notifications/index.ts";
import { notificationOut } from "../../rest-shim/serializers/notifications.ts";
import { toolResult } from "./results.ts";
import { ADDS_DATA, pageArg, pageSummary, READ_ONLY, sizeArg, UUID, wrap, type ToolContext } from "./tool-kit.ts";

const FOLLOW_LISTS = ["events", "attributes", "objects", "organisations"] as const satisfies readonly FollowList[];

const followShape = {
  uuid: UUID.describe("The uuid of the event (or attribute, object, organisation with `list`)."),
  list: z.enum(FOLLOW_LISTS).default("events").describe("What the uuid names (default events)."),
};

interface FollowArgs {
  uuid: string;
  list: FollowList;
}

/** The follow lists of the notifications settings (GraphQL followEntity / unfollowEntity). */
async function setFollow(on: boolean, args: FollowArgs, { services, principal }: ToolContext) {
  const uuid = args.uuid.toLowerCase();
  const list = await services.notifications.follow(principal, args.list, uuid, on);
  return toolResult(`${on ? "Following" : "No longer following"} ${args.list.replace(/s$/, "")} ${uuid}; you follow ${list.length} ${args.list}.`, {
    list: args.list,
    uuid,
    following: on,
    followed_count: list.length,
  });
}

/** The caller's own notifications and follow lists: nothing here is about anyone else. */
export function registerUserTools(server: McpServer, runtime: Runtime): void {
  server.registerTool(
    "get_notifications",
    {
      title: "Get your notifications",
      description:
        "Your notifications, newest first: changes to events, attributes, objects and organisations you follow, and hunt results " +
        "(type, entity_uuid, payload, read). 1 to 100 per page, with total and unread (all your unread notifications). Filter by read state or exact type " +
        '(e.g. "event.updated", "hunt.result.changed").',
      inputSchema: {
        read: z.boolean().optional().describe("true: only read ones; false: only unread ones."),
        type: z.string().min(1).max(200).optional().describe("Exact notification type."),
        page: pageArg,
        size: sizeArg(20),
      },
      annotations: READ_ONLY,
    },
    wrap(runtime, "get_notifications", async (args: { read?: boolean; type?: string; page: number; size: number }, { services, principal }) => {
      const page = await services.notifications.list(principal, { read: args.read, type: args.type }, { page: args.page, size: args.size });
      const unread = await services.notifications.unreadCount(principal);
      return toolResult(`${pageSummary("notifications", page, page.items.length)} ${unread} unread in all.`, {
        total: page.total,
        unread,
        page: page.page,
        size: page.size,
        notifications: page.items.map(notificationOut),
      });
    }),
  );

  server.registerTool(
    "follow",
    {
      title: "Follow an event",
      description:
        "CHANGES DATA (your notification settings): follow an event (or attribute, object, organisation) by uuid, to be notified when it changes. " +
        "Idempotent. Needs the user_settings:update scope in your credential itself.",
      inputSchema: followShape,
      annotations: { ...ADDS_DATA, idempotentHint: true },
    },
    wrap(runtime, "follow", (args: FollowArgs, ctx) => setFollow(true, args, ctx)),
  );

  server.registerTool(
    "unfollow",
    {
      title: "Stop following an event",
      description:
        "CHANGES DATA (your notification settings): stop following an event (or attribute, object, organisation) by uuid. Idempotent. " +
        "Needs the user_settings:update scope in your credential itself.",
      inputSchema: followShape,
      annotations: { ...ADDS_DATA, destructiveHint: true, idempotentHint: true },
    },
    wrap(runtime, "unfollow", (args: FollowArgs, ctx) => setFollow(false, args, ctx)),
  );
}
