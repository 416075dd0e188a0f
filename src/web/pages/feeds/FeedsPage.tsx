import { Anchor, Card, Group, Stack, Table, Text, Title } from "@mantine/core";
import { useMediaQuery } from "@mantine/hooks";
import { useState } from "react";
import { useQuery } from "urql";
import { Link } from "wouter";
import { Busy } from "../../components/Busy.tsx";
import { ErrorAlert } from "../../components/ErrorAlert.tsx";
import { Pager } from "../../components/Pager.tsx";
import { Timestamp } from "../../components/Timestamp.tsx";
import { StateBadge } from "../../components/StateBadge.tsx";
import { TableScroll } from "../../components/TableScroll.tsx";
import { graphql } from "../../gql/index.ts";
import type { FeedsQuery } from "../../gql/graphql.ts";
import { NewFeedForm } from "./NewFeedForm.tsx";
import { FORMAT_LABEL } from "./feed-labels.ts";

const PAGE_SIZE = 20;

const Feeds = graphql(`
  query Feeds($page: Int!, $size: Int!) {
    feeds(page: $page, size: $size) {
      total
      page
      pages
      items {
        id
        name
        provider
        sourceFormat
        inputSource
        enabled
        lastFetchedAt
      }
    }
  }
`);

type FeedItem = FeedsQuery["feeds"]["items"][number];

export default function FeedsPage() {
  const [page, setPage] = useState(1);
  const [{ data, fetching, error }] = useQuery({ query: Feeds, variables: { page, size: PAGE_SIZE } });
  const narrow = useMediaQuery("(max-width: 48em)");
  const feeds = data?.feeds;

  return (
    <Stack gap="lg">
      <Title order={1}>Feeds</Title>
      <Stack gap="sm" component="section" aria-labelledby="feed-list">
        <Title order={2} size="h3" id="feed-list">
          Your feeds
        </Title>
        {error && <ErrorAlert error={error} title="The feeds could not be loaded" />}
        {!feeds && fetching && <Busy label="Loading the feeds" />}
        {feeds && feeds.total === 0 && <Text c="dimmed">No feeds yet: add a network feed or upload a file below.</Text>}
        {feeds && feeds.items.length > 0 && (narrow ? <FeedCards feeds={feeds.items} /> : <FeedTable feeds={feeds.items} />)}
        {feeds && feeds.total > 0 && <Pager page={page} pages={feeds.pages} total={feeds.total} onChange={setPage} noun="feeds" />}
      </Stack>
      <NewFeedForm />
    </Stack>
  );
}

function FeedTable({ feeds }: { feeds: FeedItem[] }) {
  return (
    <TableScroll minWidth={720} label="Feeds table">
      <Table striped highlightOnHover>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Name</Table.Th>
            <Table.Th>Provider</Table.Th>
            <Table.Th>Format</Table.Th>
            <Table.Th>Source</Table.Th>
            <Table.Th>Scheduled</Table.Th>
            <Table.Th>Last fetched</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {feeds.map((f) => (
            <Table.Tr key={f.id}>
              <Table.Td>
                <Anchor component={Link} href={`/feeds/${f.id}`}>
                  {f.name}
                </Anchor>
              </Table.Td>
              <Table.Td>{f.provider}</Table.Td>
              <Table.Td>{FORMAT_LABEL[f.sourceFormat]}</Table.Td>
              <Table.Td>{f.inputSource === "LOCAL" ? "Uploaded file" : "Network"}</Table.Td>
              <Table.Td>{f.enabled ? "Yes" : "No"}</Table.Td>
              <Table.Td>
                <Timestamp value={f.lastFetchedAt} empty="Never" />
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </TableScroll>
  );
}

function FeedCards({ feeds }: { feeds: FeedItem[] }) {
  return (
    <Stack gap="xs">
      {feeds.map((f) => (
        <Card key={f.id} withBorder padding="sm">
          <Anchor component={Link} href={`/feeds/${f.id}`} fw={600}>
            {f.name}
          </Anchor>
          <Text size="sm">{f.provider}</Text>
          <Group gap="xs" mt={4}>
            <StateBadge tone="neutral">{FORMAT_LABEL[f.sourceFormat]}</StateBadge>
            <StateBadge tone="neutral">{f.inputSource === "LOCAL" ? "Uploaded file" : "Network"}</StateBadge>
          </Group>
          <Text size="sm" c="dimmed" mt={4}>
            Last fetched: <Timestamp value={f.lastFetchedAt} empty="never" />
          </Text>
        </Card>
      ))}
    </Stack>
  );
}
