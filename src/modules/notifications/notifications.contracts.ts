import { z } from "zod";
import { NOTIFICATION_DOC } from "./notifications.docs.ts";

/**
 * The input contracts of the notification operations, in the service's vocabulary: the service
 * checks its parameters with them (REST derives its query and path parameters, GraphQL and MCP pass
 * theirs as given).
 */
const MAX_ID = 2_147_483_647;
const FOLLOW_LISTS = ["events", "attributes", "objects", "organisations"] as const;

export const notificationListContract = z
  .object({
    type: z.string().max(200).optional().describe(`Only this type (exact): ${NOTIFICATION_DOC.type}`),
    read: z.boolean().optional().describe("Only read (true) or unread (false) ones"),
    filter: z.string().max(200).optional().describe("Part of the type, case-insensitive"),
  })
  .strict();

/** A notification's id, as a number or its decimal text (a path, a GraphQL string), or `all` where an operation allows it. */
const notificationId = z.union([z.int().min(1).max(MAX_ID), z.string().regex(/^[0-9]{1,10}$/).transform(Number).pipe(z.int().min(1).max(MAX_ID))]);
export const notificationTargetContract = z
  .object({ id: z.union([z.literal("all"), notificationId], { error: "must be a notification id or all" }).describe(`${NOTIFICATION_DOC.id}, or all for every one of yours`) })
  .strict();

export const followContract = z
  .object({
    list: z.enum(FOLLOW_LISTS).describe("The follow list: events, attributes, objects or organisations"),
    uuid: z.guid({ error: "must be a UUID" }).transform((u) => u.toLowerCase()).describe("What to follow: an event, attribute, object or organisation UUID (it need not exist yet)"),
  })
  .strict();

export type NotificationListInput = z.input<typeof notificationListContract>;
export type NotificationTarget = z.input<typeof notificationTargetContract>["id"];
