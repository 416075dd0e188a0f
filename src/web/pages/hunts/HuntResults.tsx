import { Anchor, Badge, Card, Group, Stack, Text } from "@mantine/core";
import { useState } from "react";
import { Link } from "wouter";
import { Pager } from "../../components/Pager.tsx";
import type { HuntResultFieldsFragment } from "../../gql/graphql.ts";
import { formatDateTime } from "./format.ts";
import { describeDocument } from "./hunt-hits.ts";

type Hit = HuntResultFieldsFragment["hits"][number];
const PAGE = 20;

/** Background and text pairs that keep 4.5:1. */
const SEVERITY_COLORS: Record<string, { bg: string; c: string }> = {
  CRITICAL: { bg: "red.9", c: "white" },
  HIGH: { bg: "orange.9", c: "black" },
  MEDIUM: { bg: "yellow.4", c: "black" },
  LOW: { bg: "gray.7", c: "white" },
};

/**
 * The result set of a run, each hit in its shape: search documents (events, attributes,
 * correlations), CVEs of a CPE, detection rules of a vulnerability. The API answers the whole set
 * (a search hunt keeps its newest 100), so it is paged here.
 */
export function HuntResults({ result }: { result: HuntResultFieldsFragment }) {
  const [page, setPage] = useState(1);
  const pages = Math.ceil(result.hits.length / PAGE);
  const shown = result.hits.slice((page - 1) * PAGE, page * PAGE);
  const newCount = result.hits.filter((h) => h.isNew).length;
  return (
    <Stack gap="sm">
      <Text size="sm" aria-live="polite" data-testid="hunt-result-summary">
        {result.total} match{result.total === 1 ? "" : "es"} at {formatDateTime(result.runAt)}
        {newCount ? `, ${newCount} new` : ""}
        {result.hits.length < result.total ? ` (the newest ${result.hits.length} are kept)` : ""}
      </Text>
      {result.hits.length === 0 ? (
        <Text c="dimmed">The last run found nothing.</Text>
      ) : (
        <Stack gap="xs" component="ul" style={{ listStyle: "none", padding: 0, margin: 0 }} aria-label="Hits">
          {shown.map((hit, i) => (
            <Card key={`${page}-${i}`} component="li" withBorder padding="xs">
              <HitView hit={hit} />
            </Card>
          ))}
        </Stack>
      )}
      {pages > 1 && <Pager page={page} pages={pages} total={result.hits.length} noun="hits" nameButtons onChange={setPage} />}
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
