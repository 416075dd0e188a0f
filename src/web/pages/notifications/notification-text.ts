import type { NotificationsQuery } from "../../gql/graphql.ts";

export type NotificationItem = NotificationsQuery["notifications"]["items"][number];

/** The types of spec 6.2, for the exact-type filter. */
export const NOTIFICATION_TYPES = [
  "event.created",
  "event.updated",
  "event.deleted",
  "organisation.event.created",
  "organisation.event.updated",
  "attribute.created",
  "attribute.updated",
  "attribute.deleted",
  "attribute.sighting.created",
  "attribute.correlation.created",
  "event.attribute.created",
  "event.attribute.updated",
  "event.attribute.deleted",
  "object.created",
  "object.updated",
  "event.object.created",
  "event.object.updated",
  "object.attribute.created",
  "hunt.result.first_run",
  "hunt.result.changed",
];

export interface NotificationView {
  /** What it says, one line. */
  text: string;
  /** Where it leads: the hunt or the event it is about; null when there is nothing to open. */
  href: string | null;
  /** Hunt notifications follow nothing: they cannot be unfollowed. */
  canUnfollow: boolean;
}

export function viewOf(n: NotificationItem): NotificationView {
  const p = n.payload;
  switch (p.__typename) {
    case "HuntNotificationPayload": {
      const change = p.previousTotal === null || p.previousTotal === undefined ? `${p.total} matches` : `${p.previousTotal} → ${p.total} matches`;
      return { text: `Hunt "${p.huntName}": ${change}, ${p.newHitCount} new`, href: `/hunts/${p.huntId}`, canUnfollow: false };
    }
    case "EventNotificationPayload":
      return { text: `Event "${p.eventName}" of ${p.organisationName}`, href: `/events/${p.eventUuid}`, canUnfollow: true };
    case "AttributeNotificationPayload":
      return { text: `${p.attributeType} ${p.attributeValue} in "${p.eventTitle}"`, href: `/events/${p.eventUuid}`, canUnfollow: true };
    case "ObjectNotificationPayload":
      return { text: `Object ${p.objectName} in "${p.eventTitle}"`, href: `/events/${p.eventUuid}`, canUnfollow: true };
    case "SightingNotificationPayload":
      return { text: `Sighting (${p.sightingType}) of ${p.attributeType} ${p.sightingValue} by ${p.organisation}`, href: `/events/${p.eventUuid}`, canUnfollow: true };
    case "CorrelationNotificationPayload":
      return { text: `${p.value} correlates with ${p.targetAttributeType} ${p.targetAttributeValue}`, href: `/events/${p.targetEventUuid}`, canUnfollow: true };
    default:
      return { text: n.type, href: null, canUnfollow: !n.type.startsWith("hunt.") };
  }
}
