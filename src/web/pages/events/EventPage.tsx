import { Alert, Anchor, Badge, Button, Group, Modal, SimpleGrid, Stack, Text, Title } from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import { useState } from "react";
import { useMutation, useQuery, type CombinedError } from "urql";
import { Link, useParams } from "wouter";
import { Busy } from "../../components/Busy.tsx";
import { ErrorAlert } from "../../components/ErrorAlert.tsx";
import { graphql } from "../../gql/index.ts";
import { downloadFile } from "../../lib/download.ts";
import { grants, useIdentity } from "../../lib/identity.ts";
import { AttributesSection } from "./AttributesSection.tsx";
import { ANALYSIS_LEVELS, ATTACK_GALAXY, DISTRIBUTIONS, THREAT_LEVELS, galaxyCluster } from "./event-labels.ts";
import { ObjectsSection } from "./ObjectsSection.tsx";
import { EventTags } from "./EventTags.tsx";
import { RelatedEvents } from "./RelatedEvents.tsx";
import { RetentionBadge } from "./RetentionBadge.tsx";

const EventQuery = graphql(`
  query EventDetail($uuid: String!) {
    event(uuid: $uuid) {
      uuid
      info
      date
      threatLevel
      analysis
      distribution
      published
      publishTimestamp
      deleted
      timestamp
      attributeCount
      objectCount
      org {
        id
        name
      }
      orgc {
        id
        name
      }
      tags {
        id
        name
        colour
        isGalaxy
      }
      retention {
        status
        expiresInDays
      }
      reports {
        uuid
        name
        content
      }
    }
    userSetting(namespace: "notifications")
  }
`);

const FollowMutation = graphql(`
  mutation FollowEvent($uuid: String!) {
    follow(list: EVENTS, uuid: $uuid)
  }
`);
const UnfollowMutation = graphql(`
  mutation UnfollowEvent($uuid: String!) {
    unfollow(list: EVENTS, uuid: $uuid)
  }
`);
const PublishMutation = graphql(`
  mutation PublishEvent($uuid: String!, $published: Boolean!) {
    setEventPublished(uuid: $uuid, published: $published) {
      uuid
      published
      publishTimestamp
    }
  }
`);
const DeleteMutation = graphql(`
  mutation DeleteEvent($uuid: String!) {
    deleteEvent(uuid: $uuid)
  }
`);
const RestoreMutation = graphql(`
  mutation RestoreEvent($uuid: String!) {
    restoreEvent(uuid: $uuid) {
      uuid
      deleted
    }
  }
`);

/** The followed event UUIDs of the notifications settings (spec 2.5: follow.events). */
function followedEvents(setting: unknown): string[] {
  const events = (setting as { follow?: { events?: unknown } } | null)?.follow?.events;
  return Array.isArray(events) ? events.filter((e): e is string => typeof e === "string") : [];
}

const seconds = (s: number) => new Date(s * 1000).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });

function Field({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div>
      <Text size="xs" c="dimmed" component="dt">
        {label}
      </Text>
      <Text size="sm" component="dd" m={0}>
        {children}
      </Text>
    </div>
  );
}

export default function EventPage() {
  const { uuid = "" } = useParams<{ uuid: string }>();
  const identity = useIdentity();
  const [{ data, fetching, error }, refetch] = useQuery({ query: EventQuery, variables: { uuid } });
  const [followState, follow] = useMutation(FollowMutation);
  const [unfollowState, unfollow] = useMutation(UnfollowMutation);
  const [publishState, publish] = useMutation(PublishMutation);
  const [deleteState, deleteEvent] = useMutation(DeleteMutation);
  const [restoreState, restore] = useMutation(RestoreMutation);
  const [confirming, confirm] = useDisclosure(false);
  const [followed, setFollowed] = useState<string[] | null>(null);
  const [exportError, setExportError] = useState<string | null>(null);
  const [exporting, setExporting] = useState(false);

  if (error && !data) return <ErrorAlert error={error} title="The event could not be loaded" />;
  if (!data) return <Busy label="Loading the event" />;
  const e = data.event;
  const scopes = identity?.scopes ?? [];
  const following = (followed ?? followedEvents(data.userSetting)).includes(e.uuid);
  const reload = () => refetch({ requestPolicy: "network-only" });
  const actionError: CombinedError | undefined = followState.error ?? unfollowState.error ?? publishState.error ?? deleteState.error ?? restoreState.error;

  const galaxyTags = e.tags.filter((t) => galaxyCluster(t.name));
  const techniques = galaxyTags.filter((t) => galaxyCluster(t.name)?.galaxy === ATTACK_GALAXY);
  const clusters = galaxyTags.filter((t) => galaxyCluster(t.name)?.galaxy !== ATTACK_GALAXY);
  const plainTags = e.tags.filter((t) => !galaxyCluster(t.name));

  async function toggleFollow() {
    const res = following ? await unfollow({ uuid: e.uuid }) : await follow({ uuid: e.uuid });
    const list = res.data && ("follow" in res.data ? res.data.follow : res.data.unfollow);
    if (list) setFollowed(list);
  }

  async function exportEvent() {
    setExporting(true);
    setExportError(null);
    try {
      await downloadFile(`/events/${e.uuid}/export?format=misp`, `event-${e.uuid}.json`);
    } catch (err) {
      setExportError((err as Error).message);
    } finally {
      setExporting(false);
    }
  }

  async function softDelete() {
    const res = await deleteEvent({ uuid: e.uuid });
    confirm.close();
    if (!res.error) reload();
  }

  return (
    <Stack gap="lg">
      <Stack gap="xs">
        <Anchor component={Link} href="/events" size="sm">
          ← All events
        </Anchor>
        <Title order={1} style={{ overflowWrap: "anywhere" }}>
          {e.info}
        </Title>
        <Group gap="xs">
          {e.published ? <Badge color="teal.9">published</Badge> : <Badge color="gray.7">unpublished</Badge>}
          {e.deleted && <Badge color="red.9">deleted</Badge>}
          <RetentionBadge retention={e.retention} />
        </Group>
      </Stack>

      <SimpleGrid cols={{ base: 2, sm: 4 }} spacing="sm" component="dl" m={0}>
        <Field label="Organisation">{e.org.name}</Field>
        <Field label="Created by">{e.orgc.name}</Field>
        <Field label="Date">{e.date}</Field>
        <Field label="Threat level">{THREAT_LEVELS[e.threatLevel] ?? e.threatLevel}</Field>
        <Field label="Analysis">{ANALYSIS_LEVELS[e.analysis] ?? e.analysis}</Field>
        <Field label="Distribution">{DISTRIBUTIONS[e.distribution] ?? e.distribution}</Field>
        <Field label="Last change">{seconds(e.timestamp)}</Field>
        <Field label="Published at">{e.publishTimestamp ? seconds(e.publishTimestamp) : "never"}</Field>
      </SimpleGrid>

      <Group gap="xs" wrap="wrap">
        <Button variant="default" onClick={() => void toggleFollow()} loading={followState.fetching || unfollowState.fetching} aria-pressed={following}>
          {following ? "Unfollow event" : "Follow event"}
        </Button>
        {grants(scopes, "events:publish") && !e.deleted && (
          <Button variant="default" onClick={() => void publish({ uuid: e.uuid, published: !e.published })} loading={publishState.fetching}>
            {e.published ? "Unpublish event" : "Publish event"}
          </Button>
        )}
        {grants(scopes, "events:update") && !e.deleted && (
          <Button variant="default" component={Link} href={`/events/${e.uuid}/edit`}>
            Edit event
          </Button>
        )}
        <Button variant="default" onClick={() => void exportEvent()} loading={exporting}>
          Export MISP JSON
        </Button>
        {grants(scopes, "events:delete") &&
          (e.deleted ? (
            <Button color="teal.9" onClick={() => void restore({ uuid: e.uuid }).then(reload)} loading={restoreState.fetching}>
              Restore event
            </Button>
          ) : (
            <Button color="red.9" onClick={confirm.open}>
              Delete event
            </Button>
          ))}
      </Group>
      {actionError && <ErrorAlert error={actionError} title="The action failed" />}
      {exportError && <ErrorAlert error={exportError} title="The export failed" />}

      <Modal closeButtonProps={{ "aria-label": "Close without deleting" }} opened={confirming} onClose={confirm.close} title="Delete this event?">
        <Text size="sm" mb="md">
          It is soft-deleted: left out of search, hunts and correlations, and restorable from this page.
        </Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={confirm.close}>
            Cancel
          </Button>
          <Button color="red.9" onClick={() => void softDelete()} loading={deleteState.fetching}>
            Delete
          </Button>
        </Group>
      </Modal>

      <Stack gap="xs" component="section" aria-labelledby="event-tags">
        <Title order={2} size="h4" id="event-tags">
          Tags
        </Title>
        <EventTags uuid={e.uuid} tags={plainTags} canTag={grants(scopes, "events:tag") && !e.deleted} onChanged={reload} />
      </Stack>

      <Stack gap="xs" component="section" aria-labelledby="event-techniques">
        <Title order={2} size="h4" id="event-techniques">
          ATT&amp;CK techniques
        </Title>
        {techniques.length ? (
          <Group gap={6}>
            {techniques.map((t) => (
              <Badge key={t.id} variant="outline" color="indigo.9" tt="none" maw="100%">
                {galaxyCluster(t.name)?.value}
              </Badge>
            ))}
          </Group>
        ) : (
          <Text c="dimmed" size="sm">
            No ATT&amp;CK technique attached.
          </Text>
        )}
        {clusters.length > 0 && (
          <>
            <Title order={3} size="h5">
              Other galaxy clusters
            </Title>
            <Group gap={6}>
              {clusters.map((t) => {
                const c = galaxyCluster(t.name);
                return (
                  <Badge key={t.id} variant="outline" color="grape.9" tt="none" maw="100%">
                    {c ? `${c.galaxy}: ${c.value}` : t.name}
                  </Badge>
                );
              })}
            </Group>
          </>
        )}
      </Stack>

      {fetching && <Text size="xs" c="dimmed">Refreshing…</Text>}
      <AttributesSection eventUuid={e.uuid} canWrite={grants(scopes, "attributes:create") && !e.deleted} canSight={grants(scopes, "sightings:create")} />
      <ObjectsSection eventUuid={e.uuid} />

      <RelatedEvents eventUuid={e.uuid} />

      {e.reports.length > 0 && (
        <Stack gap="xs" component="section" aria-labelledby="event-reports">
          <Title order={2} size="h4" id="event-reports">
            Reports
          </Title>
          {e.reports.map((r) => (
            <Alert key={r.uuid} color="gray" title={r.name} variant="outline">
              {/* Markdown shown as its text: never interpreted as HTML. */}
              <Text size="sm" style={{ whiteSpace: "pre-wrap", overflowWrap: "anywhere" }} ff="monospace" data-report-content>
                {r.content}
              </Text>
            </Alert>
          ))}
        </Stack>
      )}
    </Stack>
  );
}
