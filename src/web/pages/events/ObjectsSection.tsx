import { Badge, Card, Group, Stack, Text, Title } from "@mantine/core";
import { useState } from "react";
import { useQuery } from "urql";
import { Busy } from "../../components/Busy.tsx";
import { ErrorAlert } from "../../components/ErrorAlert.tsx";
import { Pager } from "../../components/Pager.tsx";
import { graphql } from "../../gql/index.ts";

const ObjectsQuery = graphql(`
  query EventObjects($eventUuid: String!, $page: Int) {
    objects(eventUuid: $eventUuid, page: $page, size: 5, deleted: false) {
      total
      page
      pages
      items {
        uuid
        name
        metaCategory
        comment
        attributes {
          uuid
          objectRelation
          type
          category
          value
          toIds
        }
      }
    }
  }
`);

/** The event's MISP objects with their attributes, five a page (each holds several). */
export function ObjectsSection({ eventUuid }: { eventUuid: string }) {
  const [page, setPage] = useState(1);
  const [{ data, fetching, error }] = useQuery({ query: ObjectsQuery, variables: { eventUuid, page } });
  const objects = data?.objects;
  return (
    <Stack gap="xs" component="section" aria-labelledby="event-objects">
      <Title order={2} size="h4" id="event-objects">
        Objects
      </Title>
      {error && <ErrorAlert error={error} title="The objects could not be loaded" />}
      {!objects && fetching && <Busy label="Loading objects" minHeight={100} />}
      {objects && objects.total === 0 && (
        <Text c="dimmed" size="sm">
          No object.
        </Text>
      )}
      {objects?.items.map((o) => (
        <Card key={o.uuid} withBorder padding="sm" component="article" aria-label={`Object ${o.name}`}>
          <Group gap="xs" mb={4}>
            <Text fw={600}>{o.name}</Text>
            {o.metaCategory && (
              <Badge variant="outline" color="gray.8" tt="none">
                {o.metaCategory}
              </Badge>
            )}
            {o.comment && (
              <Text size="sm" c="dimmed">
                {o.comment}
              </Text>
            )}
          </Group>
          {/* A list rather than a table: it reads at phone width without scrolling sideways. */}
          <Stack gap={6} component="ul" aria-label={`Attributes of object ${o.name}`} style={{ listStyle: "none", padding: 0, margin: 0 }}>
            {o.attributes.map((a) => (
              <li key={a.uuid}>
                <Group gap={4} wrap="wrap">
                  <Text size="sm" fw={600}>
                    {a.objectRelation ?? a.type}
                  </Text>
                  <Badge variant="outline" color="indigo.9" tt="none">
                    {a.type}
                  </Badge>
                  <Badge variant="outline" color="teal.9" tt="none">
                    {a.category}
                  </Badge>
                  {a.toIds && <Badge color="red.9">IDS</Badge>}
                </Group>
                <Text size="sm" ff="monospace" lineClamp={4} title={a.value} style={{ overflowWrap: "anywhere" }}>
                  {a.value}
                </Text>
              </li>
            ))}
          </Stack>
        </Card>
      ))}
      {objects && objects.total > 0 && <Pager page={objects.page} pages={objects.pages} total={objects.total} onChange={setPage} noun="objects" nameButtons />}
    </Stack>
  );
}
