import { ActionIcon, Indicator } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { useEffect } from "react";
import { useSubscription } from "urql";
import { useLocation } from "wouter";
import { graphql } from "../gql/index.ts";

const UnreadCount = graphql(`
  subscription UnreadNotificationCount {
    unreadNotificationCount
  }
`);

const NotificationCreated = graphql(`
  subscription NotificationCreated {
    notificationCreated {
      id
      type
      entityType
      createdAt
    }
  }
`);

/** The header's unread counter and a toast per new notification, both live over graphql-ws. */
export function NotificationBell() {
  const [, navigate] = useLocation();
  const [{ data: count }] = useSubscription({ query: UnreadCount });
  const [{ data: created }] = useSubscription({ query: NotificationCreated });
  const unread = count?.unreadNotificationCount ?? 0;

  useEffect(() => {
    const n = created?.notificationCreated;
    if (!n) return;
    notifications.show({ id: `notification-${n.id}`, title: "New notification", message: describeNotificationType(n.type), autoClose: 8000, closeButtonProps: { "aria-label": "Dismiss notification" } });
  }, [created]);

  return (
    <Indicator label={unread > 99 ? "99+" : unread} size={18} disabled={unread === 0} offset={4} color="red">
      <ActionIcon
        variant="subtle"
        size="lg"
        aria-label={unread ? `Notifications: ${unread} unread` : "Notifications: none unread"}
        data-testid="unread-count"
        data-unread={unread}
        onClick={() => navigate("/notifications")}
      >
        <BellIcon />
      </ActionIcon>
    </Indicator>
  );
}

/** `hunt.result.changed` → "Hunt result changed". */
export function describeNotificationType(type: string): string {
  const words = type.replace(/[._]/g, " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function BellIcon() {
  return (
    <svg width="20" height="20" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2" aria-hidden="true">
      <path d="M18 8a6 6 0 0 0-12 0c0 7-3 9-3 9h18s-3-2-3-9" />
      <path d="M13.73 21a2 2 0 0 1-3.46 0" />
    </svg>
  );
}
