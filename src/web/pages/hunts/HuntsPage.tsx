import { Anchor, Badge, Button, Card, Group, Stack, Table, Text, TextInput, Title } from "@mantine/core";
import { useDebouncedValue, useMediaQuery } from "@mantine/hooks";
import { useState } from "react";
import { useQuery } from "urql";
import { Link } from "wouter";
import { Busy } from "../../components/Busy.tsx";
import { ErrorAlert } from "../../components/ErrorAlert.tsx";
import { Pager } from "../../components/Pager.tsx";
import { graphql } from "../../gql/index.ts";
import type { HuntsQuery } from "../../gql/graphql.ts";
import { HUNT_TYPE_SHORT } from "./hunt-types.ts";
import { formatDateTime, scheduleLabel } from "./format.ts";

const PAGE_SIZE = 20;

const Hunts = graphql(`
  query Hunts($page: Int!, $size: Int!, $filter: String) {
    hunts(page: $page, size: $size, filter: $filter) {
      total
      page
      pages
      items {
        id
        name
        huntType
        status
        lastRunAt
        lastRunStatus
        lastMatchCount
        schedule
        nextRunAt
      }
    }
  }
`);

type HuntItem = HuntsQuery["hunts"]["items"][number];

export default function HuntsPage() {
  const [page, setPage] = useState(1);
  const [filter, setFilter] = useState("");
  const [debounced] = useDebouncedValue(filter.trim(), 300);
  const [{ data, fetching, error }] = useQuery({ query: Hunts, variables: { page, size: PAGE_SIZE, filter: debounced || null }, requestPolicy: "cache-and-network" });
  const narrow = useMediaQuery("(max-width: 48em)");
  const hunts = data?.hunts;

  return (
    <Stack gap="md">
      <Group justify="space-between">
        <Title order={1}>Hunts</Title>
        <Button component={Link} href="/hunts/new">
          New hunt
        </Button>
      </Group>
      <TextInput
        label="Filter hunts by name"
        placeholder="Part of the name"
        value={filter}
        onChange={(e) => {
          setFilter(e.currentTarget.value);
          setPage(1);
        }}
        maw={360}
      />
      {error && <ErrorAlert error={error} title="The hunts could not be loaded" />}
      {!hunts && fetching && <Busy label="Loading hunts" />}
      {hunts && hunts.total === 0 && (
        <Text c="dimmed">{debounced ? "No hunt has that in its name." : "No hunts yet. Create one, or save a query from Explore as a hunt."}</Text>
      )}
      {hunts && hunts.items.length > 0 && (narrow ? <HuntCards hunts={hunts.items} /> : <HuntTable hunts={hunts.items} />)}
      {hunts && hunts.total > 0 && <Pager page={hunts.page} pages={hunts.pages} total={hunts.total} noun="hunts" onChange={setPage} />}
    </Stack>
  );
}

function StatusBadge({ status }: { status: HuntItem["status"] }) {
  return (
    <Badge color={status === "ACTIVE" ? "teal.9" : "gray.7"} variant="filled">
      {status === "ACTIVE" ? "Active" : "Paused"}
    </Badge>
  );
}

function lastRun(h: HuntItem): string {
  if (!h.lastRunAt) return "Never";
  return `${formatDateTime(h.lastRunAt)}${h.lastRunStatus === "failed" ? " (failed)" : ""}`;
}

function HuntTable({ hunts }: { hunts: HuntItem[] }) {
  return (
    <Table.ScrollContainer minWidth={760} type="native" tabIndex={0} role="region" aria-label="Hunts">
      <Table striped highlightOnHover>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Name</Table.Th>
            <Table.Th>Status</Table.Th>
            <Table.Th>Type</Table.Th>
            <Table.Th>Last run</Table.Th>
            <Table.Th>Last match count</Table.Th>
            <Table.Th>Schedule</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {hunts.map((h) => (
            <Table.Tr key={h.id}>
              <Table.Td>
                <Anchor component={Link} href={`/hunts/${h.id}`}>
                  {h.name}
                </Anchor>
              </Table.Td>
              <Table.Td>
                <StatusBadge status={h.status} />
              </Table.Td>
              <Table.Td>{HUNT_TYPE_SHORT[h.huntType]}</Table.Td>
              <Table.Td>{lastRun(h)}</Table.Td>
              <Table.Td>{h.lastMatchCount ?? "—"}</Table.Td>
              <Table.Td>{scheduleLabel(h.schedule, h.nextRunAt)}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

function HuntCards({ hunts }: { hunts: HuntItem[] }) {
  return (
    <Stack gap="sm" component="ul" style={{ listStyle: "none", padding: 0, margin: 0 }}>
      {hunts.map((h) => (
        <Card key={h.id} withBorder component="li" padding="sm">
          <Group justify="space-between" wrap="nowrap" gap="xs">
            <Anchor component={Link} href={`/hunts/${h.id}`} fw={600}>
              {h.name}
            </Anchor>
            <StatusBadge status={h.status} />
          </Group>
          <Text size="sm">
            {HUNT_TYPE_SHORT[h.huntType]} · last run {lastRun(h)} · {h.lastMatchCount ?? "no"} matches
          </Text>
          <Text size="sm" c="dimmed">
            {scheduleLabel(h.schedule, h.nextRunAt)}
          </Text>
        </Card>
      ))}
    </Stack>
  );
}
