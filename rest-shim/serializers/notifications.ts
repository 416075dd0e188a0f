import { z } from "zod";
import { NOTIFICATION_DOC, NOTIFICATION_TYPES_DOC, type NotificationRecord } from "../../src/modules/notifications/index.ts";
import { named, pageSchema, timestamp } from "../contract.ts";

export const NotificationSchema = named(
  "Notification",
  z.object({
    id: z.int().describe(NOTIFICATION_DOC.id),
    user_id: z.int().describe(NOTIFICATION_DOC.user_id),
    type: z.string().describe(NOTIFICATION_DOC.type),
    entity_type: z.string().describe(NOTIFICATION_DOC.entity_type),
    entity_uuid: z.guid().nullable().describe(NOTIFICATION_DOC.entity_uuid),
    read: z.boolean().describe(NOTIFICATION_DOC.read),
    payload: z
      .record(z.string(), z.unknown())
      .describe(
        `${NOTIFICATION_DOC.payload}, all strings: event (event_uuid, event_name, organisation_uuid, organisation_name), attribute (event_uuid, event_title, attribute_value, attribute_type), ` +
          "correlation (source_event_uuid, target_event_uuid, target_attribute_uuid, target_attribute_type, target_attribute_value); hunts: hunt_id, hunt_name, total, previous_total; " +
          "free-form because each notification type adds its own fields",
      ),
    created_at: timestamp,
    updated_at: z.null().describe("Always null: notifications are not edited (the peer's field)"),
  }),
  NOTIFICATION_TYPES_DOC.Notification,
);

export const NotificationPageSchema = pageSchema("NotificationPage", NotificationSchema);

export function notificationOut(n: NotificationRecord): z.output<typeof NotificationSchema> {
  return {
    id: n.id,
    user_id: n.userId,
    type: n.type,
    entity_type: n.entityType,
    entity_uuid: n.entityUuid,
    read: n.read,
    payload: n.payload,
    created_at: n.createdAt.toISOString(),
    updated_at: null,
  };
}

export const NotificationStatusSchema = named(
  "NotificationStatus",
  z.object({ status: z.enum(["success", "error"]).describe("error: the notification is about a hunt, which follows nothing (unfollow only)") }),
  "The outcome of a notification operation, as the peer answers it",
);
