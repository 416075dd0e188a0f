import { Alert, Anchor, Button, Drawer, Group, NativeSelect, Paper, Stack, Table, Text, Title } from "@mantine/core";
import { useState } from "react";
import { useClient, useQuery } from "urql";
import { Link } from "wouter";
import { Busy } from "../../components/Busy.tsx";
import { apiMessage, ErrorAlert } from "../../components/ErrorAlert.tsx";
import { JsonTree } from "../../components/JsonTree.tsx";
import { Pager } from "../../components/Pager.tsx";
import { Timestamp } from "../../components/Timestamp.tsx";
import { downloadFile } from "../../lib/download.ts";
import { ExportUrlQuery, SearchAttributesQuery, SearchEventsQuery } from "./documents.ts";

export type Target = "events" | "attributes";

export const PAGE_SIZE = 20;
const PAGE_SIZES = ["10", "20", "50", "100"];
/** The analyst's rows per page, per section, kept in the browser across searches and reloads. */
const pageSizeKey = (target: Target) => `explore.page_size.${target}`;
function storedPageSize(target: Target): number {
  const stored = window.localStorage.getItem(pageSizeKey(target));
  return stored && PAGE_SIZES.includes(stored) ? Number(stored) : PAGE_SIZE;
}
/** The API pages no deeper than 10 000 documents (OpenSearch's result window). */
const WINDOW = 10_000;

interface Hit {
  id: string;
  source: unknown;
}

const NOUN: Record<Target, { one: string; many: string; title: string }> = {
  events: { one: "event", many: "events", title: "Events" },
  attributes: { one: "attribute", many: "attributes", title: "Attributes" },
};

const text = (v: unknown): string => (v === null || v === undefined ? "" : typeof v === "object" ? JSON.stringify(v) : String(v));
const field = (source: unknown, path: string): unknown =>
  path.split(".").reduce<unknown>((o, k) => (o !== null && typeof o === "object" ? (o as Record<string, unknown>)[k] : undefined), source);
/** A cell's text: long values (a whole HTML page stored as an attribute) are cut; the drawer shows them whole. */
const cut = (s: string, max = 160): string => (s.length > max ? `${s.slice(0, max)}…` : s);
const tagNames = (source: unknown): string[] => {
  const tags = field(source, "tags");
  return Array.isArray(tags) ? tags.map((t) => text(field(t, "name"))).filter(Boolean) : [];
};

/** The documents of one index matching the effective query, a page at a time, with a drawer per document and the export. */
export function ResultSection({ target, query }: { target: Target; query: string }) {
  const [page, setPage] = useState(1);
  const [size, setSize] = useState(() => storedPageSize(target));
  const [open, setOpen] = useState<Hit | null>(null);
  const noun = NOUN[target];
  const variables = { query, page, size };
  const changeSize = (value: string) => {
    window.localStorage.setItem(pageSizeKey(target), value);
    setSize(Number(value));
    setPage(1);
  };
  const [events] = useQuery({ query: SearchEventsQuery, variables, pause: target !== "events" });
  const [attributes] = useQuery({ query: SearchAttributesQuery, variables, pause: target !== "attributes" });
  const result = target === "events" ? events : attributes;
  const data = (target === "events" ? events.data?.searchEvents : attributes.data?.searchAttributes) ?? null;
  // A query the parser rejects is shown once, at the query box (the page's parse check).
  const rejected = result.error?.graphQLErrors.some((e) => e.extensions?.code === "invalid_query") ?? false;
  const total = data?.total ?? 0;
  const totalText = data ? `${total.toLocaleString("en")}${data.totalRelation === "gte" ? "+" : ""}` : "…";
  const pages = Math.ceil(Math.min(total, WINDOW) / size);

  return (
    <Paper withBorder p="sm" component="section" aria-labelledby={`explore-${target}`}>
      <Group justify="space-between" mb="xs" wrap="wrap" gap="xs">
        <Group gap="xs">
          <Title order={2} size="h4" id={`explore-${target}`}>
            {noun.title}
          </Title>
          <Text size="sm" data-testid={`${target}-total`} aria-live="polite">
            {data ? `${totalText} ${total === 1 ? "match" : "matches"}` : ""}
          </Text>
        </Group>
        <Group gap="xs">
          <NativeSelect
            size="xs"
            aria-label={`${noun.title} per page`}
            data={PAGE_SIZES}
            value={String(size)}
            onChange={(e) => changeSize(e.currentTarget.value)}
          />
          <ExportButton target={target} query={query} disabled={!data || total === 0} />
        </Group>
      </Group>
      {result.fetching && !data ? (
        <Busy label={`Searching ${noun.many}`} minHeight={120} />
      ) : result.error && !rejected ? (
        <ErrorAlert error={result.error} title={`The ${noun.many} search failed`} />
      ) : rejected ? (
        <Text size="sm" c="dimmed">
          Not searched: the query has an error.
        </Text>
      ) : !data || data.hits.length === 0 ? (
        <Text size="sm" c="dimmed">
          No {noun.many} match.
        </Text>
      ) : (
        <Stack gap="xs">
          <Table.ScrollContainer minWidth={target === "events" ? 760 : 720}>
            <Table striped highlightOnHover verticalSpacing={4} fz="sm" aria-labelledby={`explore-${target}`}>
              {target === "events" ? <EventHead /> : <AttributeHead />}
              <Table.Tbody>
                {data.hits.map((h) => (target === "events" ? <EventRow key={h.id} hit={h} onOpen={setOpen} /> : <AttributeRow key={h.id} hit={h} onOpen={setOpen} />))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
          {/* The page shown is the one the server answered: a next page still loading keeps the last one's number. */}
          <Pager page={data.page} pages={pages} total={total} onChange={setPage} noun={noun.many} nameButtons />
        </Stack>
      )}
      <Drawer opened={open !== null} onClose={() => setOpen(null)} position="right" size="lg" title={`${noun.title.slice(0, -1)} document`} closeButtonProps={{ "aria-label": "Close the document" }}>
        {open && <DocumentView target={target} hit={open} />}
      </Drawer>
    </Paper>
  );
}

function DocumentView({ target, hit }: { target: Target; hit: Hit }) {
  const eventUuid = target === "events" ? hit.id : text(field(hit.source, "event_uuid"));
  return (
    <Stack gap="sm">
      {eventUuid && (
        <Anchor component={Link} href={`/events/${eventUuid}`}>
          Open the event page
        </Anchor>
      )}
      <JsonTree value={hit.source} label={`The ${target === "events" ? "event" : "attribute"} document ${hit.id}`} />
    </Stack>
  );
}

function EventHead() {
  return (
    <Table.Thead>
      <Table.Tr>
        <Table.Th>Info</Table.Th>
        <Table.Th>Date</Table.Th>
        <Table.Th>Creator</Table.Th>
        <Table.Th>Tags</Table.Th>
        <Table.Th>Published</Table.Th>
        <Table.Th>Last change</Table.Th>
      </Table.Tr>
    </Table.Thead>
  );
}

function EventRow({ hit, onOpen }: { hit: Hit; onOpen(h: Hit): void }) {
  const s = hit.source;
  const info = cut(text(field(s, "info")) || hit.id);
  const tags = tagNames(s);
  return (
    <Table.Tr>
      <Table.Td>
        <Anchor component="button" type="button" size="sm" ta="left" onClick={() => onOpen(hit)} aria-label={`Open the event document: ${info}`}>
          {info}
        </Anchor>
      </Table.Td>
      <Table.Td>{text(field(s, "date"))}</Table.Td>
      <Table.Td>{text(field(s, "orgc.name"))}</Table.Td>
      <Table.Td>{tags.length > 3 ? `${tags.slice(0, 3).join(", ")} +${tags.length - 3}` : tags.join(", ")}</Table.Td>
      <Table.Td>{field(s, "published") ? "Yes" : "No"}</Table.Td>
      <Table.Td>
        <Timestamp value={text(field(s, "@timestamp"))} />
      </Table.Td>
    </Table.Tr>
  );
}

function AttributeHead() {
  return (
    <Table.Thead>
      <Table.Tr>
        <Table.Th>Value</Table.Th>
        <Table.Th>Type</Table.Th>
        <Table.Th>Category</Table.Th>
        <Table.Th>IDS</Table.Th>
        <Table.Th>Tags</Table.Th>
        <Table.Th>Last change</Table.Th>
      </Table.Tr>
    </Table.Thead>
  );
}

function AttributeRow({ hit, onOpen }: { hit: Hit; onOpen(h: Hit): void }) {
  const s = hit.source;
  const value = cut(text(field(s, "value")) || hit.id);
  const tags = tagNames(s);
  return (
    <Table.Tr>
      <Table.Td style={{ maxWidth: 320, overflowWrap: "anywhere" }}>
        <Anchor component="button" type="button" size="sm" ta="left" ff="monospace" onClick={() => onOpen(hit)} aria-label={`Open the attribute document: ${value}`}>
          {value}
        </Anchor>
      </Table.Td>
      <Table.Td>{text(field(s, "type"))}</Table.Td>
      <Table.Td>{text(field(s, "category"))}</Table.Td>
      <Table.Td>{field(s, "to_ids") ? "Yes" : "No"}</Table.Td>
      <Table.Td>{tags.length > 3 ? `${tags.slice(0, 3).join(", ")} +${tags.length - 3}` : tags.join(", ")}</Table.Td>
      <Table.Td>
        <Timestamp value={text(field(s, "@timestamp"))} />
      </Table.Td>
    </Table.Tr>
  );
}

/** Every matching document of the section as one JSON file, streamed from the export route. */
function ExportButton({ target, query, disabled }: { target: Target; query: string; disabled: boolean }) {
  const client = useClient();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = async () => {
    setBusy(true);
    setError(null);
    try {
      const answer = await client.query(ExportUrlQuery, { target: target === "events" ? "EVENTS" : "ATTRIBUTES", query }, { requestPolicy: "network-only" }).toPromise();
      if (answer.error || !answer.data) throw answer.error ?? new Error("No export URL");
      await downloadFile(answer.data.exploreExportUrl, `${target}-export.json`);
    } catch (err) {
      setError(apiMessage(err instanceof Error ? err : String(err)));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Stack gap={4} align="flex-end">
      <Button size="xs" variant="default" loading={busy} disabled={disabled} onClick={() => void run()}>
        Export {target} as JSON
      </Button>
      {error && (
        <Alert role="alert" color="red" p="xs">
          {error}
        </Alert>
      )}
    </Stack>
  );
}
