import { Anchor, Button, Group, Stack, Text, Title } from "@mantine/core";
import { useState } from "react";
import { useQuery } from "urql";
import { Link } from "wouter";
import { ErrorAlert } from "../../components/ErrorAlert.tsx";
import { graphql } from "../../gql/index.ts";

const STEP = 20;

// The field takes a limit only (no offset or total): one more than shown tells whether more exist.
const RelatedEventsQuery = graphql(`
  query EventRelated($uuid: String!, $limit: Int!) {
    event(uuid: $uuid) {
      uuid
      relatedEvents(limit: $limit) {
        uuid
        info
        date
        correlationCount
        org {
          id
          name
        }
      }
    }
  }
`);

/** The events this one correlates with, most pairs first, STEP at a time from the server. */
export function RelatedEvents({ eventUuid }: { eventUuid: string }) {
  const [shown, setShown] = useState(STEP);
  const [{ data, fetching, error }] = useQuery({ query: RelatedEventsQuery, variables: { uuid: eventUuid, limit: shown + 1 } });
  // While more load, the list so far stays (urql gives no data for the new variables yet).
  const [last, setLast] = useState<NonNullable<typeof data>["event"]["relatedEvents"]>([]);
  const related = data?.event.relatedEvents ?? last;
  if (data && data.event.relatedEvents !== last) setLast(data.event.relatedEvents);
  const more = related.length > shown;

  return (
    <Stack gap="xs" component="section" aria-labelledby="event-related">
      <Title order={2} size="h4" id="event-related">
        Related events
      </Title>
      {error && <ErrorAlert error={error} title="The related events could not be loaded" />}
      {related.length ? (
        <Stack gap={4} component="ul" aria-label="Related events" style={{ listStyle: "none", padding: 0, margin: 0 }}>
          {related.slice(0, shown).map((r) => (
            <li key={r.uuid}>
              <Anchor component={Link} href={`/events/${r.uuid}`}>
                {r.info}
              </Anchor>
              <Text span size="sm" c="dimmed">
                {` · ${r.date} · ${r.org.name} · ${r.correlationCount} correlating ${r.correlationCount === 1 ? "pair" : "pairs"}`}
              </Text>
            </li>
          ))}
        </Stack>
      ) : (
        !fetching &&
        !error && (
          <Text c="dimmed" size="sm">
            No related event.
          </Text>
        )
      )}
      {more && (
        <Group gap="xs">
          <Text size="sm" c="dimmed" aria-live="polite">
            {`The ${shown} with most pairs shown; more relate to this event.`}
          </Text>
          <Button variant="default" size="xs" loading={fetching} onClick={() => setShown((n) => n + STEP)}>
            Show {STEP} more
          </Button>
        </Group>
      )}
    </Stack>
  );
}
