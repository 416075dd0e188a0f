import { Anchor, Badge, Button, Card, Group, NativeSelect, Paper, Stack, Switch, Text, TextInput, Title } from "@mantine/core";
import { useDebouncedValue } from "@mantine/hooks";
import { useEffect, useState } from "react";
import { useClient, useMutation, useQuery, useSubscription } from "urql";
import { Link } from "wouter";
import { describeNotificationType } from "../../app/NotificationBell.tsx";
import { Busy } from "../../components/Busy.tsx";
import { ErrorAlert } from "../../components/ErrorAlert.tsx";
import { Pager } from "../../components/Pager.tsx";
import { graphql } from "../../gql/index.ts";
import { NOTIFICATION_TYPES, viewOf, type NotificationItem } from "./notification-text.ts";

const PAGE_SIZE = 20;
const FRESH = { requestPolicy: "network-only" } as const;

const Notifications = graphql(`
  query Notifications($page: Int!, $size: Int!, $type: String, $read: Boolean, $filter: String) {
    notifications(page: $page, size: $size, type: $type, read: $read, filter: $filter) {
      total
      page
      pages
      items {
        id
        type
        read
        createdAt
        entityType
        entityUuid
        payload {
          __typename
          ... on HuntNotificationPayload {
            huntId
            huntName
            total
            previousTotal
            newHitCount
          }
          ... on EventNotificationPayload {
            eventName
            eventUuid
            organisationName
          }
          ... on AttributeNotificationPayload {
            attributeType
            attributeValue
            eventTitle
            eventUuid
          }
          ... on ObjectNotificationPayload {
            objectName
            eventTitle
            eventUuid
          }
          ... on SightingNotificationPayload {
            sightingType
            sightingValue
            attributeType
            organisation
            eventUuid
          }
          ... on CorrelationNotificationPayload {
            value
            targetAttributeType
            targetAttributeValue
            targetEventUuid
          }
        }
      }
    }
  }
`);

const Arrived = graphql(`
  subscription NotificationArrived {
    notificationCreated {
      id
    }
  }
`);

const MarkRead = graphql(`
  mutation MarkNotificationRead($id: String!) {
    markNotificationRead(id: $id)
  }
`);

const Delete = graphql(`
  mutation DeleteNotification($id: String!) {
    deleteNotification(id: $id)
  }
`);

const Unfollow = graphql(`
  mutation UnfollowNotification($id: Int!) {
    unfollowNotification(id: $id)
  }
`);

const Settings = graphql(`
  query NotificationSettings {
    userSetting(namespace: "notifications")
  }
`);

const SaveSettings = graphql(`
  mutation SaveNotificationSettings($value: JSON!) {
    setUserSetting(namespace: "notifications", value: $value)
  }
`);

type ReadFilter = "all" | "unread" | "read";

export default function NotificationsPage() {
  const [page, setPage] = useState(1);
  const [type, setType] = useState("");
  const [read, setRead] = useState<ReadFilter>("all");
  const [filter, setFilter] = useState("");
  const [debounced] = useDebouncedValue(filter.trim(), 300);
  const variables = { page, size: PAGE_SIZE, type: type || null, read: read === "all" ? null : read === "read", filter: debounced || null };
  const [{ data, fetching, error }, refetch] = useQuery({ query: Notifications, variables });
  const [arrived] = useSubscription({ query: Arrived });
  const [marked, markRead] = useMutation(MarkRead);
  const [removed, remove] = useMutation(Delete);
  const [unfollowed, unfollow] = useMutation(Unfollow);
  const [confirmAll, setConfirmAll] = useState(false);
  const list = data?.notifications;
  const actionError = marked.error ?? removed.error ?? unfollowed.error;

  // A notification arriving while the page is open shows at once.
  const arrivedId = arrived.data?.notificationCreated.id;
  useEffect(() => {
    if (arrivedId !== undefined) refetch(FRESH);
  }, [arrivedId, refetch]);

  const after = (done: Promise<{ error?: unknown }>) => void done.then((r) => !r.error && refetch(FRESH));
  const changeFilter = (apply: () => void) => {
    apply();
    setPage(1);
  };

  return (
    <Stack gap="md">
      <Title order={1}>Notifications</Title>
      <EmailSwitch />
      <Group align="flex-end" gap="sm" wrap="wrap">
        <NativeSelect
          label="Type"
          value={type}
          onChange={(e) => changeFilter(() => setType(e.currentTarget.value))}
          data={[{ value: "", label: "Any type" }, ...NOTIFICATION_TYPES.map((t) => ({ value: t, label: t }))]}
          w={240}
        />
        <NativeSelect
          label="Read or unread"
          value={read}
          onChange={(e) => changeFilter(() => setRead(e.currentTarget.value as ReadFilter))}
          data={[
            { value: "all", label: "Read and unread" },
            { value: "unread", label: "Unread only" },
            { value: "read", label: "Read only" },
          ]}
          w={180}
        />
        <TextInput label="Type contains" placeholder="hunt, sighting…" value={filter} onChange={(e) => changeFilter(() => setFilter(e.currentTarget.value))} w={200} />
      </Group>
      <Group gap="xs">
        <Button variant="default" onClick={() => after(markRead({ id: "all" }))} loading={marked.fetching} disabled={!list || list.total === 0}>
          Mark all read
        </Button>
        <Button variant="default" color="red" onClick={() => setConfirmAll(true)} disabled={!list || list.total === 0}>
          Delete all
        </Button>
      </Group>
      {confirmAll && (
        <Paper withBorder p="sm" role="group" aria-label="Confirm deleting all notifications">
          <Text mb="xs">Delete all of your notifications, of every type?</Text>
          <Group gap="xs">
            <Button
              color="red.9"
              onClick={() => {
                setConfirmAll(false);
                after(remove({ id: "all" }));
              }}
            >
              Delete all for good
            </Button>
            <Button variant="default" onClick={() => setConfirmAll(false)}>
              Cancel
            </Button>
          </Group>
        </Paper>
      )}
      {actionError && <ErrorAlert error={actionError} title="That did not work" />}
      {error && <ErrorAlert error={error} title="The notifications could not be loaded" />}
      {!list && fetching && <Busy label="Loading notifications" />}
      {list && list.total === 0 && (
        <Text c="dimmed">{type || debounced || read !== "all" ? "No notification matches these filters." : "No notifications. Follow events, or create hunts, to be told when they change."}</Text>
      )}
      {list && list.items.length > 0 && (
        <Stack gap="xs" component="ul" style={{ listStyle: "none", padding: 0, margin: 0 }} aria-label="Notifications">
          {list.items.map((n) => (
            <NotificationCard
              key={n.id}
              n={n}
              onRead={() => after(markRead({ id: String(n.id) }))}
              onDelete={() => after(remove({ id: String(n.id) }))}
              onUnfollow={() => after(unfollow({ id: n.id }))}
            />
          ))}
        </Stack>
      )}
      {list && list.total > 0 && <Pager page={list.page} pages={list.pages} total={list.total} noun="notifications" onChange={setPage} />}
    </Stack>
  );
}

function NotificationCard({ n, onRead, onDelete, onUnfollow }: { n: NotificationItem; onRead(): void; onDelete(): void; onUnfollow(): void }) {
  const view = viewOf(n);
  const what = `${describeNotificationType(n.type)}: ${view.text}`;
  return (
    <Card component="li" withBorder padding="sm" data-read={n.read} style={n.read ? undefined : { borderLeft: "4px solid var(--mantine-color-indigo-8)" }}>
      <Stack gap={4}>
        <Group gap="xs" wrap="wrap">
          {!n.read && (
            <Badge color="indigo.8" variant="filled" size="sm">
              Unread
            </Badge>
          )}
          <Text fw={600} size="sm">
            {describeNotificationType(n.type)}
          </Text>
          <Text size="sm" c="dimmed">
            {new Date(n.createdAt).toLocaleString()}
          </Text>
        </Group>
        {view.href ? (
          <Anchor component={Link} href={view.href} style={{ wordBreak: "break-word" }}>
            {view.text}
          </Anchor>
        ) : (
          <Text style={{ wordBreak: "break-word" }}>{view.text}</Text>
        )}
        <Group gap="xs">
          {!n.read && (
            <Button size="compact-sm" variant="default" onClick={onRead} aria-label={`Mark read: ${what}`}>
              Mark read
            </Button>
          )}
          {view.canUnfollow && (
            <Button size="compact-sm" variant="default" onClick={onUnfollow} aria-label={`Unfollow: ${what}`}>
              Unfollow
            </Button>
          )}
          <Button size="compact-sm" variant="default" color="red" onClick={onDelete} aria-label={`Delete: ${what}`}>
            Delete
          </Button>
        </Group>
      </Stack>
    </Card>
  );
}

/**
 * The user setting notifications.email_notifications (default on). The namespace is written whole, so
 * it is read afresh just before: follows changed meanwhile (an unfollow here, another tab) are kept.
 */
function EmailSwitch() {
  const client = useClient();
  const [{ data, error }, refetch] = useQuery({ query: Settings });
  const [saved, save] = useMutation(SaveSettings);
  const [reading, setReading] = useState(false);
  const on = (data?.userSetting as { email_notifications?: boolean } | null | undefined)?.email_notifications ?? true;

  async function change(checked: boolean) {
    setReading(true);
    const fresh = await client.query(Settings, {}, { requestPolicy: "network-only" }).toPromise();
    setReading(false);
    if (fresh.error) return;
    const value = (fresh.data?.userSetting ?? {}) as Record<string, unknown>;
    const res = await save({ value: { ...value, email_notifications: checked } });
    if (!res.error) refetch({ requestPolicy: "network-only" });
  }

  if (error) return <ErrorAlert error={error} title="Your e-mail setting could not be loaded" />;
  return (
    <Stack gap={4}>
      <Switch
        label="E-mail me my notifications"
        description="Sent to your account's address, at most the hourly limit an administrator sets"
        checked={on}
        disabled={!data || reading || saved.fetching}
        onChange={(e) => void change(e.currentTarget.checked)}
      />
      {saved.error && <ErrorAlert error={saved.error} title="Your e-mail setting was not saved" />}
    </Stack>
  );
}
