import { Anchor, Badge, Box, Button, Card, Group, Select, SimpleGrid, Stack, Table, TagsInput, Text, TextInput, Title } from "@mantine/core";
import { useDebouncedValue } from "@mantine/hooks";
import { useState } from "react";
import { useQuery } from "urql";
import { Link } from "wouter";
import { Busy } from "../../components/Busy.tsx";
import { ErrorAlert } from "../../components/ErrorAlert.tsx";
import { Pager } from "../../components/Pager.tsx";
import { graphql } from "../../gql/index.ts";
import { grants, useIdentity } from "../../lib/identity.ts";
import { THREAT_LEVELS } from "./event-labels.ts";
import { ImportEventForm } from "./ImportEventForm.tsx";
import { RetentionBadge } from "./RetentionBadge.tsx";
import { TagBadge } from "./TagBadge.tsx";

const PAGE_SIZE = 20;

const EventsQuery = graphql(`
  query EventsList($page: Int, $size: Int, $info: String, $tags: [String!], $orgId: Int, $published: Boolean, $deleted: Boolean) {
    events(page: $page, size: $size, info: $info, tags: $tags, orgId: $orgId, published: $published, deleted: $deleted) {
      total
      page
      pages
      items {
        uuid
        info
        date
        published
        deleted
        threatLevel
        attributeCount
        org {
          id
          name
        }
        tags {
          id
          name
          colour
        }
        retention {
          status
          expiresInDays
        }
      }
    }
  }
`);

const OrganisationsQuery = graphql(`
  query EventOrganisations {
    organisations(size: 100) {
      items {
        id
        name
      }
    }
  }
`);

/** "" is "any": the Select's value for an unset filter. */
const tristate = (v: string | null): boolean | undefined => (v === "true" ? true : v === "false" ? false : undefined);

export default function EventsPage() {
  const identity = useIdentity();
  const [info, setInfo] = useState("");
  const [debouncedInfo] = useDebouncedValue(info.trim(), 300);
  const [tags, setTags] = useState<string[]>([]);
  const [orgId, setOrgId] = useState<string | null>(null);
  const [published, setPublished] = useState<string | null>("");
  const [deleted, setDeleted] = useState<string | null>("false");
  const [page, setPage] = useState(1);
  const filtered = <T,>(set: (v: T) => void) => (v: T) => {
    set(v);
    setPage(1);
  };

  const [{ data, fetching, error }, refetch] = useQuery({
    query: EventsQuery,
    variables: {
      page,
      size: PAGE_SIZE,
      info: debouncedInfo || undefined,
      tags: tags.length ? tags : undefined,
      orgId: orgId ? Number(orgId) : undefined,
      published: tristate(published),
      deleted: tristate(deleted),
    },
  });
  const [orgs] = useQuery({ query: OrganisationsQuery });
  const canCreate = identity ? grants(identity.scopes, "events:create") : false;
  const events = data?.events;

  return (
    <Stack gap="md">
      <Group justify="space-between" wrap="wrap">
        <Title order={1}>Events</Title>
        {canCreate && (
          <Button component={Link} href="/events/new">
            New event
          </Button>
        )}
      </Group>
      {canCreate && <ImportEventForm onImported={() => refetch({ requestPolicy: "network-only" })} />}

      <SimpleGrid cols={{ base: 1, sm: 2, lg: 5 }} spacing="sm" component="form" role="search" aria-label="Filter events" onSubmit={(e) => e.preventDefault()}>
        <TextInput label="Info" placeholder="Part of the title" value={info} onChange={(e) => filtered(setInfo)(e.currentTarget.value)} />
        <TagsInput label="Tags" placeholder="Exact tag names" value={tags} onChange={filtered(setTags)} clearable maxTags={10} />
        <Select
          label="Organisation"
          placeholder={orgs.error ? "Organisations unavailable" : "Any"}
          data={(orgs.data?.organisations.items ?? []).map((o) => ({ value: String(o.id), label: o.name }))}
          value={orgId}
          onChange={filtered(setOrgId)}
          searchable
          clearable
        />
        <Select
          label="Published"
          data={[
            { value: "", label: "Any" },
            { value: "true", label: "Published" },
            { value: "false", label: "Unpublished" },
          ]}
          value={published}
          onChange={filtered(setPublished)}
          allowDeselect={false}
        />
        <Select
          label="Deleted"
          data={[
            { value: "false", label: "Live events" },
            { value: "true", label: "Deleted events" },
            { value: "", label: "Both" },
          ]}
          value={deleted}
          onChange={filtered(setDeleted)}
          allowDeselect={false}
        />
      </SimpleGrid>

      {error && <ErrorAlert error={error} title="The events could not be listed" />}
      {!events && fetching && <Busy label="Loading events" />}
      {events && events.total === 0 && <Text c="dimmed">No event matches these filters.</Text>}
      {events && events.total > 0 && (
        <>
          <Box visibleFrom="sm">
            <Table.ScrollContainer minWidth={900}>
              <Table striped highlightOnHover aria-label="Events" verticalSpacing="xs">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Info</Table.Th>
                    <Table.Th>Date</Table.Th>
                    <Table.Th>Organisation</Table.Th>
                    <Table.Th>Threat level</Table.Th>
                    <Table.Th>Attributes</Table.Th>
                    <Table.Th>Tags</Table.Th>
                    <Table.Th>State</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {events.items.map((e) => (
                    <Table.Tr key={e.uuid}>
                      <Table.Td maw={360}>
                        <Anchor component={Link} href={`/events/${e.uuid}`}>
                          {e.info}
                        </Anchor>
                      </Table.Td>
                      <Table.Td>{e.date}</Table.Td>
                      <Table.Td>{e.org.name}</Table.Td>
                      <Table.Td>{THREAT_LEVELS[e.threatLevel] ?? e.threatLevel}</Table.Td>
                      <Table.Td>{e.attributeCount}</Table.Td>
                      <Table.Td maw={320}>
                        <Group gap={4}>
                          {e.tags.slice(0, 4).map((t) => (
                            <TagBadge key={t.id} name={t.name} colour={t.colour} />
                          ))}
                          {e.tags.length > 4 && <Text size="xs">+{e.tags.length - 4} more</Text>}
                        </Group>
                      </Table.Td>
                      <Table.Td>
                        <Group gap={4} wrap="nowrap">
                          {e.published ? <Badge color="teal.9">published</Badge> : <Badge color="gray.7">unpublished</Badge>}
                          {e.deleted && <Badge color="red.9">deleted</Badge>}
                          <RetentionBadge retention={e.retention} />
                        </Group>
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          </Box>
          {/* At phone width the same events as cards: every field readable without scrolling sideways. */}
          <Stack gap="xs" hiddenFrom="sm" component="ul" aria-label="Events" style={{ listStyle: "none", padding: 0, margin: 0 }}>
            {events.items.map((e) => (
              <Card key={e.uuid} withBorder padding="sm" component="li">
                <Anchor component={Link} href={`/events/${e.uuid}`} fw={600} style={{ overflowWrap: "anywhere" }}>
                  {e.info}
                </Anchor>
                <Text size="sm" c="dimmed">
                  {`${e.date} · ${e.org.name} · ${THREAT_LEVELS[e.threatLevel] ?? e.threatLevel} · ${e.attributeCount} attributes`}
                </Text>
                <Group gap={4} mt={4}>
                  {e.published ? <Badge color="teal.9">published</Badge> : <Badge color="gray.7">unpublished</Badge>}
                  {e.deleted && <Badge color="red.9">deleted</Badge>}
                  <RetentionBadge retention={e.retention} />
                  {e.tags.slice(0, 3).map((t) => (
                    <TagBadge key={t.id} name={t.name} colour={t.colour} />
                  ))}
                  {e.tags.length > 3 && <Text size="xs">+{e.tags.length - 3} more</Text>}
                </Group>
              </Card>
            ))}
          </Stack>
          <Pager page={events.page} pages={events.pages} total={events.total} onChange={setPage} noun="events" />
        </>
      )}
    </Stack>
  );
}
