import { Anchor, Button, Card, Group, SimpleGrid, Stack, Table, Text, Title } from "@mantine/core";
import { useCallback, useState } from "react";
import { useMutation, useQuery } from "urql";
import { Link, useParams, useSearch } from "wouter";
import { Busy } from "../../components/Busy.tsx";
import { ErrorAlert } from "../../components/ErrorAlert.tsx";
import { Pager } from "../../components/Pager.tsx";
import { Timestamp } from "../../components/Timestamp.tsx";
import { RUN_TONE, StateBadge } from "../../components/StateBadge.tsx";
import { TableScroll } from "../../components/TableScroll.tsx";
import { graphql } from "../../gql/index.ts";
import type { FeedQuery } from "../../gql/graphql.ts";
import { grants, useIdentity } from "../../lib/identity.ts";
import { DISTRIBUTIONS, FORMAT_LABEL } from "./feed-labels.ts";
import { FeedActions } from "./FeedActions.tsx";
import { FeedPreview } from "./FeedPreview.tsx";
import { RunProgress, runSummary } from "./RunProgress.tsx";

const RUNS_PAGE = 10;

const Feed = graphql(`
  query Feed($id: Int!, $runsPage: Int!, $runsSize: Int!, $withRuns: Boolean!) {
    feed(id: $id) {
      id
      name
      provider
      url
      sourceFormat
      inputSource
      enabled
      distribution
      fixedEvent
      eventUuid
      publish
      overrideIds
      skipWarninglisted
      tags
      settings
      lastFetchedAt
      createdAt
      runs(page: $runsPage, size: $runsSize) @include(if: $withRuns) {
        total
        page
        pages
        items {
          id
          status
          trigger
          queuedAt
          finishedAt
          result
          lastError
        }
      }
    }
  }
`);

const FetchFeed = graphql(`
  mutation FetchFeed($id: Int!) {
    fetchFeed(id: $id) {
      id
    }
  }
`);

type FeedData = FeedQuery["feed"];

export default function FeedPage() {
  const params = useParams<{ id: string }>();
  const id = Number(params.id);
  const search = new URLSearchParams(useSearch());
  const [runsPage, setRunsPage] = useState(1);
  const [runId, setRunId] = useState<string | null>(search.get("run"));
  const [previewing, setPreviewing] = useState(false);
  const [fetchState, fetchNow] = useMutation(FetchFeed);
  const identity = useIdentity();
  // Runs are task runs: reading them (the history, a fetch's progress) takes tasks:read.
  const readsRuns = identity ? grants(identity.scopes, "tasks:read") : false;
  const valid = Number.isInteger(id) && id > 0;
  const [{ data, fetching, error }, refetch] = useQuery({ query: Feed, variables: { id, runsPage, runsSize: RUNS_PAGE, withRuns: readsRuns }, pause: !valid || !identity });
  const refresh = useCallback(() => refetch({ requestPolicy: "network-only" }), [refetch]);

  if (!valid) return <ErrorAlert error="There is no feed at this address." title="Feed not found" />;
  if (error && !data) return <ErrorAlert error={error} title="The feed could not be loaded" />;
  if (!data) return <Busy label="Loading the feed" />;
  const feed = data.feed;
  const may = (scope: string) => (identity ? grants(identity.scopes, scope) : false);
  const mayFetch = may("feeds:fetch");
  const runs = feed.runs;

  return (
    <Stack gap="lg">
      <Stack gap={4}>
        <Anchor component={Link} href="/feeds" size="sm">
          All feeds
        </Anchor>
        <Title order={1}>{feed.name}</Title>
        <Text c="dimmed">{feed.provider}</Text>
      </Stack>
      <FeedDetails feed={feed} />

      <Card withBorder component="section" aria-labelledby="fetch-heading">
        <Stack gap="sm">
          <Group justify="space-between">
            <Title order={2} size="h3" id="fetch-heading">
              Fetch
            </Title>
            {mayFetch && (
              <Button
                loading={fetchState.fetching}
                onClick={() =>
                  void fetchNow({ id }).then((r) => {
                    if (r.data) setRunId(r.data.fetchFeed.id);
                  })
                }
              >
                Fetch now
              </Button>
            )}
          </Group>
          {fetchState.error && <ErrorAlert error={fetchState.error} title="The fetch was not started" />}
          {runId && readsRuns ? <RunProgress key={runId} runId={runId} onFinished={refresh} /> : <Text c="dimmed">Last fetched: <Timestamp value={feed.lastFetchedAt} empty="never" /></Text>}
        </Stack>
      </Card>

      <Card withBorder component="section" aria-labelledby="preview-heading">
        <Stack gap="sm">
          <Group justify="space-between">
            <Title order={2} size="h3" id="preview-heading">
              Preview
            </Title>
            <Button variant="default" onClick={() => setPreviewing((v) => !v)} aria-expanded={previewing}>
              {previewing ? "Hide preview" : "Preview the source"}
            </Button>
          </Group>
          {previewing ? <FeedPreview feed={feed} /> : <Text c="dimmed">What ingestion would read, without writing anything.</Text>}
        </Stack>
      </Card>

      <FeedActions feed={feed} mayUpdate={may("feeds:update")} mayDelete={may("feeds:delete")} onChanged={refresh} />

      <Stack gap="sm" component="section" aria-labelledby="runs-heading">
        <Title order={2} size="h3" id="runs-heading">
          Run history
        </Title>
        {error && <ErrorAlert error={error} title="The runs could not be refreshed" />}
        {!runs && <Text c="dimmed">Your role does not let you read task runs (tasks:read).</Text>}
        {runs && (runs.total === 0 ? <Text c="dimmed">No runs you can see yet.</Text> : <RunTable runs={runs.items} />)}
        {runs && runs.total > 0 && <Pager page={runsPage} pages={runs.pages} total={runs.total} onChange={setRunsPage} noun="runs" nameButtons />}
        {fetching && <Text size="sm" c="dimmed">Refreshing…</Text>}
      </Stack>
    </Stack>
  );
}

function FeedDetails({ feed }: { feed: FeedData }) {
  const local = feed.settings && typeof feed.settings === "object" ? (feed.settings as { localFile?: { filename: string; size: number } }).localFile : undefined;
  const rows: [string, React.ReactNode][] = [
    ["Format", FORMAT_LABEL[feed.sourceFormat]],
    ["Source", feed.inputSource === "LOCAL" ? `Uploaded file${local ? `: ${local.filename} (${local.size.toLocaleString()} bytes)` : ""}` : feed.url],
    ["Fetched on its schedule", feed.enabled ? "Yes" : "No"],
    ["Distribution", DISTRIBUTIONS.find((d) => d.value === String(feed.distribution))?.label ?? String(feed.distribution)],
    ["Publishes its events", feed.publish ? "Yes" : "No"],
    ["One fixed event", feed.fixedEvent ? (feed.eventUuid ? <Anchor component={Link} href={`/events/${feed.eventUuid}`}>Yes: open the event</Anchor> : "Yes") : "No"],
    ["Clears the IDS flag", feed.overrideIds ? "Yes" : "No"],
    ["Skips warninglisted values", feed.skipWarninglisted ? "Yes" : "No"],
    ["Tags", feed.tags.length ? feed.tags.join(", ") : "None"],
    ["Created", <Timestamp key="c" value={feed.createdAt} />],
  ];
  return (
    <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="xs" component="dl" m={0}>
      {rows.map(([label, value]) => (
        <div key={label}>
          <Text component="dt" size="sm" c="dimmed">
            {label}
          </Text>
          <Text component="dd" m={0} style={{ wordBreak: "break-all" }}>
            {value}
          </Text>
        </div>
      ))}
    </SimpleGrid>
  );
}

function RunTable({ runs }: { runs: NonNullable<FeedData["runs"]>["items"] }) {
  return (
    <TableScroll minWidth={640} label="Feed runs table">
      <Table striped>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Queued</Table.Th>
            <Table.Th>Trigger</Table.Th>
            <Table.Th>Status</Table.Th>
            <Table.Th>Counts</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {runs.map((r) => (
            <Table.Tr key={r.id}>
              <Table.Td>
                <Timestamp value={r.queuedAt} />
              </Table.Td>
              <Table.Td>{r.trigger}</Table.Td>
              <Table.Td>
                <StateBadge tone={RUN_TONE[r.status]}>{r.status.toLowerCase()}</StateBadge>
              </Table.Td>
              <Table.Td>{r.result ? runSummary(r.result as Record<string, unknown>) : (r.lastError ?? "—")}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </TableScroll>
  );
}
