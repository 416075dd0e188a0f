/** The notifications area's front door: what the REST shim, GraphQL, MCP, jobs and other areas may use. */
export { SEND_EMAIL_ATTEMPTS, scheduleDigest } from "./mail.ts";
export type { FollowList } from "./notification-rules.ts";
export { NOTIFICATION_DOC, NOTIFICATION_TYPES_DOC } from "./notifications.docs.ts";
export { NotificationsService } from "./notifications.service.ts";
export type { NotificationRecord, NotificationSelection } from "./notifications.service.ts";
export { followContract, notificationListContract, notificationTargetContract } from "./notifications.contracts.ts";
export type { NotificationListInput, NotificationTarget } from "./notifications.contracts.ts";
export { notifyChangeRange, notifyHuntResult } from "./notifier.ts";
