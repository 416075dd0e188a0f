import { Anchor, Badge, Card, Group, Stack, Text } from "@mantine/core";
import { useState } from "react";
import { useQuery } from "urql";
import { Link } from "wouter";
import { Busy } from "../../components/Busy.tsx";
import { ErrorAlert } from "../../components/ErrorAlert.tsx";
import { Pager } from "../../components/Pager.tsx";
import { graphql } from "../../gql/index.ts";
import type { HuntResultsPageQuery } from "../../gql/graphql.ts";
import { formatDateTime } from "./format.ts";
import { describeDocument } from "./hunt-hits.ts";

const HuntResultsPage = graphql(`
  query HuntResultsPage($id: Int!, $page: Int!, $size: Int!) {
    huntResults(id: $id, page: $page, size: $size) {
      total
      hitCount
      runAt
      hits {
        __typename
        ... on HuntDocumentHit {
          uuid
          docKind
          isNew
          document
        }
        ... on HuntCveHit {
          cveId
          severity
          description
          isNew
        }
        ... on HuntRuleHit {
          title
          detailUrl
          isNew
          rule
        }
      }
    }
  }
`);

type Hit = HuntResultsPageQuery["huntResults"]["hits"][number];
const PAGE = 20;

/** Background and text pairs that keep 4.5:1. */
const SEVERITY_COLORS: Record<string, { bg: string; c: string }> = {
  CRITICAL: { bg: "red.9", c: "white" },
  HIGH: { bg: "orange.9", c: "black" },
  MEDIUM: { bg: "yellow.4", c: "black" },
  LOW: { bg: "gray.7", c: "white" },
};

/**
 * The cached result set of the hunt's last successful run, a page at a time from the server, each
 * hit in its shape: search documents (events, attributes, correlations), CVEs of a CPE, detection
 * rules of a vulnerability. `newHitCount` is the last run's, when the page knows it.
 */
export function HuntResults({ huntId, newHitCount }: { huntId: number; newHitCount?: number | null }) {
  const [page, setPage] = useState(1);
  const [{ data, error }] = useQuery({ query: HuntResultsPage, variables: { id: huntId, page, size: PAGE }, requestPolicy: "network-only" });
  if (error) return <ErrorAlert error={error} title="The results could not be loaded" />;
  if (!data) return <Busy label="Loading the results" minHeight={80} />;
  const result = data.huntResults;
  return (
    <Stack gap="sm">
      <Text size="sm" aria-live="polite" data-testid="hunt-result-summary">
        {result.total} match{result.total === 1 ? "" : "es"} at {formatDateTime(result.runAt)}
        {newHitCount ? `, ${newHitCount} new` : ""}
        {result.hitCount < result.total ? ` (the newest ${result.hitCount} are kept)` : ""}
      </Text>
      {result.hitCount === 0 ? (
        <Text c="dimmed">The last run found nothing.</Text>
      ) : (
        <Stack gap="xs" component="ul" style={{ listStyle: "none", padding: 0, margin: 0 }} aria-label="Hits">
          {result.hits.map((hit, i) => (
            <Card key={`${page}-${i}`} component="li" withBorder padding="xs">
              <HitView hit={hit} />
            </Card>
          ))}
        </Stack>
      )}
      {result.hitCount > PAGE && <Pager page={page} pages={Math.ceil(result.hitCount / PAGE)} total={result.hitCount} noun="hits" nameButtons onChange={setPage} />}
    </Stack>
  );
}

function NewBadge({ isNew }: { isNew: boolean }) {
  return isNew ? (
    <Badge color="red.9" variant="filled" size="sm">
      New
    </Badge>
  ) : null;
}

function HitView({ hit }: { hit: Hit }) {
  switch (hit.__typename) {
    case "HuntDocumentHit": {
      const d = describeDocument(hit.document, hit.docKind, hit.uuid);
      return (
        <Stack gap={2}>
          <Group gap="xs" wrap="wrap">
            <Badge variant="outline" size="sm" color="indigo.8">
              {d.kind}
            </Badge>
            <NewBadge isNew={hit.isNew} />
            {d.eventUuid ? (
              <Anchor component={Link} href={`/events/${d.eventUuid}`} style={{ wordBreak: "break-all" }}>
                {d.title}
              </Anchor>
            ) : (
              <Text style={{ wordBreak: "break-all" }}>{d.title}</Text>
            )}
          </Group>
          {d.detail && (
            <Text size="sm" c="dimmed" style={{ wordBreak: "break-all" }}>
              {d.detail}
            </Text>
          )}
        </Stack>
      );
    }
    case "HuntCveHit":
      return (
        <Stack gap={2}>
          <Group gap="xs">
            <Text fw={600}>{hit.cveId}</Text>
            {hit.severity && (
              <Badge color={(SEVERITY_COLORS[hit.severity] ?? SEVERITY_COLORS.LOW).bg} c={(SEVERITY_COLORS[hit.severity] ?? SEVERITY_COLORS.LOW).c} variant="filled" size="sm">
                {hit.severity}
              </Badge>
            )}
            <NewBadge isNew={hit.isNew} />
          </Group>
          <Text size="sm" lineClamp={3}>
            {hit.description}
          </Text>
        </Stack>
      );
    case "HuntRuleHit": {
      const rule = hit.rule && typeof hit.rule === "object" ? (hit.rule as Record<string, unknown>) : {};
      const format = typeof rule.format === "string" ? rule.format : null;
      return (
        <Group gap="xs" wrap="wrap">
          {format && (
            <Badge variant="outline" size="sm" color="indigo.8">
              {format}
            </Badge>
          )}
          <NewBadge isNew={hit.isNew} />
          {hit.detailUrl && /^https?:\/\//.test(hit.detailUrl) ? (
            <Anchor href={hit.detailUrl} target="_blank" rel="noopener noreferrer">
              {hit.title ?? hit.detailUrl}
            </Anchor>
          ) : (
            <Text>{hit.title ?? "Untitled rule"}</Text>
          )}
        </Group>
      );
    }
    default:
      return null;
  }
}
