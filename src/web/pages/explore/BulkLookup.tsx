import { Anchor, Badge, Button, Group, Paper, SegmentedControl, Stack, Table, Text, Textarea, Title } from "@mantine/core";
import { useMemo, useState } from "react";
import { useQuery } from "urql";
import { Link } from "wouter";
import { Busy } from "../../components/Busy.tsx";
import { ErrorAlert } from "../../components/ErrorAlert.tsx";
import { Pager } from "../../components/Pager.tsx";
import { TableScroll } from "../../components/TableScroll.tsx";
import { Timestamp } from "../../components/Timestamp.tsx";
import type { ExploreLookupIndicatorsQuery } from "../../gql/graphql.ts";
import { LookupIndicatorsQuery } from "./explore-documents.ts";
import { problemOf, valuesOf } from "./lookup-input.ts";

type Answer = ExploreLookupIndicatorsQuery["lookupIndicators"][number];
type Show = "all" | "found" | "absent";
const PAGE_SIZE = 50;
/** Darker than the theme's green.9 (4.4:1 under white text): 6.5:1, AA for the badge's small text. */
const FOUND_COLOUR = "#1e6b34";

/**
 * Bulk lookup: pasted indicators (defanged or not, one per line), refanged by the API as feeds
 * refang them, and which of them attributes the user may read hold: where, of which types, since
 * when. One request for the whole list; the answer is paged here.
 */
export function BulkLookup() {
  const [text, setText] = useState("");
  const [sent, setSent] = useState<string[] | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [result] = useQuery({ query: LookupIndicatorsQuery, variables: { values: sent ?? [] }, pause: sent === null, requestPolicy: "network-only" });
  const pasted = valuesOf(text).length;

  const submit = () => {
    const values = valuesOf(text);
    const why = problemOf(values);
    setProblem(why);
    if (!why) setSent(values);
  };

  return (
    <Stack gap="md">
      <Stack
        gap="xs"
        component="form"
        aria-label="Bulk lookup"
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        <Textarea
          label="Indicators, one per line"
          description="Defanged values are refanged as feeds refang them (hxxp://, [.], [at]); at most 1,000 at once."
          placeholder={"hxxp://evil[.]com\n1.2.3[.]4\n44d88612fea8a8f36de82e1278abb02f"}
          value={text}
          onChange={(e) => setText(e.currentTarget.value)}
          autosize
          minRows={6}
          maxRows={16}
          error={problem}
          styles={{ input: { fontFamily: "var(--mantine-font-family-monospace)" } }}
        />
        <Group gap="sm">
          <Button type="submit" loading={result.fetching}>
            Look up
          </Button>
          <Text size="sm" c="dimmed" aria-live="polite">
            {pasted === 1 ? "1 indicator" : `${pasted.toLocaleString("en")} indicators`}
          </Text>
        </Group>
      </Stack>
      {sent === null ? null : result.fetching ? (
        <Busy label="Looking up indicators" minHeight={120} />
      ) : result.error ? (
        <ErrorAlert error={result.error} title="The lookup failed" />
      ) : result.data ? (
        <LookupResults answers={result.data.lookupIndicators} />
      ) : null}
    </Stack>
  );
}

export function LookupResults({ answers }: { answers: readonly Answer[] }) {
  const [show, setShow] = useState<Show>("all");
  const [page, setPage] = useState(1);
  const found = answers.filter((a) => a.found).length;
  const shown = useMemo(() => answers.filter((a) => show === "all" || (show === "found") === a.found), [answers, show]);
  const pages = Math.max(1, Math.ceil(shown.length / PAGE_SIZE));
  const current = shown.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE);

  return (
    <Paper withBorder p="sm" component="section" aria-labelledby="lookup-results">
      <Group justify="space-between" gap="xs" mb="xs" wrap="wrap">
        <Title order={2} size="h4" id="lookup-results">
          Lookup results
        </Title>
        <Text size="sm" aria-live="polite" data-testid="lookup-summary">
          {`${found.toLocaleString("en")} of ${answers.length.toLocaleString("en")} found`}
        </Text>
      </Group>
      {answers.length === 0 ? (
        <Text size="sm">Nothing was looked up.</Text>
      ) : (
        <Stack gap="xs">
          <SegmentedControl
            aria-label="Show results"
            size="xs"
            value={show}
            onChange={(v) => {
              setShow(v as Show);
              setPage(1);
            }}
            data={[
              { value: "all", label: "All" },
              { value: "found", label: "Found" },
              { value: "absent", label: "Not found" },
            ]}
            style={{ alignSelf: "flex-start" }}
          />
          {shown.length === 0 ? (
            <Text size="sm">{show === "found" ? "None of these indicators was found." : "Every indicator was found."}</Text>
          ) : (
            <TableScroll minWidth={820} label="Lookup results table">
              <Table striped verticalSpacing="xs">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th scope="col">Indicator</Table.Th>
                    <Table.Th scope="col">Status</Table.Th>
                    <Table.Th scope="col">Events</Table.Th>
                    <Table.Th scope="col">Types</Table.Th>
                    <Table.Th scope="col">First seen</Table.Th>
                    <Table.Th scope="col">Last seen</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {current.map((a, i) => (
                    <LookupRow key={`${a.input}|${i}`} answer={a} />
                  ))}
                </Table.Tbody>
              </Table>
            </TableScroll>
          )}
          {shown.length > PAGE_SIZE && <Pager page={page} pages={pages} total={shown.length} onChange={setPage} noun="indicators" nameButtons />}
        </Stack>
      )}
    </Paper>
  );
}

function LookupRow({ answer: a }: { answer: Answer }) {
  const more = a.eventCount - a.events.length;
  return (
    <Table.Tr>
      <Table.Td style={{ overflowWrap: "anywhere", maxWidth: 280 }}>
        <Text size="sm" ff="monospace">
          {a.value}
        </Text>
        {a.value !== a.input.trim() && (
          <Text size="xs" c="dimmed">
            given as {a.input}
          </Text>
        )}
        {a.detectedType && (
          <Text size="xs" c="dimmed">
            {a.detectedType}
          </Text>
        )}
      </Table.Td>
      <Table.Td>
        {a.found ? (
          <Badge color={FOUND_COLOUR} variant="filled" miw="max-content">
            Found
          </Badge>
        ) : (
          <Badge color="gray.7" variant="filled" miw="max-content">
            Not found
          </Badge>
        )}
      </Table.Td>
      <Table.Td>
        {a.events.length === 0 ? (
          "—"
        ) : (
          <Stack gap={2}>
            {a.events.map((e) => (
              <Text size="sm" key={e.uuid}>
                <Anchor component={Link} href={`/events/${e.uuid}`}>
                  {e.info || e.uuid}
                </Anchor>{" "}
                <Text span size="xs" c="dimmed">
                  {e.organisation}
                </Text>
              </Text>
            ))}
            {more > 0 && (
              <Text size="xs" c="dimmed">
                and {more.toLocaleString("en")} more {more === 1 ? "event" : "events"}
              </Text>
            )}
          </Stack>
        )}
      </Table.Td>
      <Table.Td>
        {a.types.length ? a.types.join(", ") : "—"}
        {a.count > 1 && (
          <Text size="xs" c="dimmed">
            {a.count.toLocaleString("en")} attributes
          </Text>
        )}
      </Table.Td>
      <Table.Td>
        <Timestamp value={a.firstSeen} />
      </Table.Td>
      <Table.Td>
        <Timestamp value={a.lastSeen} />
      </Table.Td>
    </Table.Tr>
  );
}
