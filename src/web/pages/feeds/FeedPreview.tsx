import { Stack, Table, Text } from "@mantine/core";
import { useState } from "react";
import { useQuery } from "urql";
import { Busy } from "../../components/Busy.tsx";
import { ErrorAlert } from "../../components/ErrorAlert.tsx";
import { Pager } from "../../components/Pager.tsx";
import { StateBadge } from "../../components/StateBadge.tsx";
import { TableScroll } from "../../components/TableScroll.tsx";
import { graphql } from "../../gql/index.ts";
import type { FeedFormat, FeedInputSource } from "../../gql/graphql.ts";

const Preview = graphql(`
  query FeedPreview($format: FeedPreviewFormat!, $inputSource: FeedInputSource!, $url: String!, $settings: JSON) {
    feedPreview(format: $format, inputSource: $inputSource, url: $url, settings: $settings, limit: 20) {
      where
      value
      type
      error
    }
  }
`);

const Manifest = graphql(`
  query FeedManifest($id: Int!, $page: Int!) {
    feedExplore(id: $id, page: $page, size: 20) {
      total
      page
      pages
      items {
        uuid
        entry
      }
    }
  }
`);

export interface PreviewedFeed {
  id: number;
  sourceFormat: FeedFormat;
  inputSource: FeedInputSource;
  url: string;
  settings?: unknown;
}

/** What ingestion would read: the first rows of a csv, json or freetext source; a MISP feed's manifest. */
export function FeedPreview({ feed }: { feed: PreviewedFeed }) {
  return feed.sourceFormat === "SHARING" || feed.sourceFormat === "MISP" ? <ManifestPreview id={feed.id} /> : <RowPreview feed={feed} />;
}

/** The first rows of a csv, json or freetext source (a URL, or an upload's key before any feed exists). */
export function RowPreview({ feed }: { feed: Omit<PreviewedFeed, "id"> }) {
  const format = feed.sourceFormat as "CSV" | "JSON" | "FREETEXT";
  const [{ data, fetching, error }] = useQuery({ query: Preview, variables: { format, inputSource: feed.inputSource, url: feed.url, settings: feed.settings ?? null }, requestPolicy: "network-only" });
  if (error) return <ErrorAlert error={error} title="The preview could not be read" />;
  if (!data || fetching) return <Busy label="Reading the first rows" minHeight={80} />;
  if (data.feedPreview.length === 0) return <Text c="dimmed">The source holds no rows.</Text>;
  return (
    <TableScroll minWidth={480} label="Preview rows table">
      <Table>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Where</Table.Th>
            <Table.Th>Value</Table.Th>
            <Table.Th>Type</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {data.feedPreview.map((r) => (
            <Table.Tr key={r.where}>
              <Table.Td>{r.where}</Table.Td>
              <Table.Td style={{ wordBreak: "break-all" }}>{r.value ?? <Text c="red.8">{r.error}</Text>}</Table.Td>
              <Table.Td>{r.type ? <StateBadge tone="neutral">{r.type}</StateBadge> : "rejected"}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </TableScroll>
  );
}

function ManifestPreview({ id }: { id: number }) {
  const [page, setPage] = useState(1);
  const [{ data, fetching, error }] = useQuery({ query: Manifest, variables: { id, page } });
  if (error) return <ErrorAlert error={error} title="The feed's manifest could not be read" />;
  if (!data) return <Busy label="Reading the feed's manifest" minHeight={80} />;
  const m = data.feedExplore;
  return (
    <Stack gap="xs">
      {m.total === 0 ? (
        <Text c="dimmed">The manifest lists no events.</Text>
      ) : (
        <TableScroll minWidth={560} label="Manifest events table">
          <Table aria-busy={fetching}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Event</Table.Th>
                <Table.Th>Date</Table.Th>
                <Table.Th>UUID</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {m.items.map((e) => {
                const entry = e.entry as { info?: unknown; date?: unknown };
                return (
                  <Table.Tr key={e.uuid}>
                    <Table.Td>{String(entry.info ?? "")}</Table.Td>
                    <Table.Td>{String(entry.date ?? "")}</Table.Td>
                    <Table.Td style={{ wordBreak: "break-all" }}>{e.uuid}</Table.Td>
                  </Table.Tr>
                );
              })}
            </Table.Tbody>
          </Table>
        </TableScroll>
      )}
      {m.total > 0 && <Pager page={m.page} pages={m.pages} total={m.total} onChange={setPage} noun="manifest events" nameButtons />}
    </Stack>
  );
}
