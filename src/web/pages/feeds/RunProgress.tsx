import { Alert, Group, Progress, SimpleGrid, Stack, Text } from "@mantine/core";
import { useEffect, useRef } from "react";
import { useQuery } from "urql";
import { ErrorAlert } from "../../components/ErrorAlert.tsx";
import { RUN_TONE, StateBadge } from "../../components/StateBadge.tsx";
import { graphql } from "../../gql/index.ts";
import type { TaskRunStatus } from "../../gql/graphql.ts";
import { RUN_COUNTS } from "./feed-labels.ts";

const Run = graphql(`
  query FeedRun($id: String!) {
    taskRun(id: $id) {
      id
      status
      progress
      result
      lastError
      startedAt
      finishedAt
    }
  }
`);

const ACTIVE: TaskRunStatus[] = ["QUEUED", "RUNNING"];

/**
 * A fetch run as it goes: the API has no subscription for task runs, so the run is read again every
 * second while it is queued or running, and `onFinished` is told once when it ends.
 */
export function RunProgress({ runId, onFinished }: { runId: string; onFinished(): void }) {
  const [{ data, error }, reexecute] = useQuery({ query: Run, variables: { id: runId }, requestPolicy: "network-only" });
  const run = data?.taskRun;
  const active = !run || ACTIVE.includes(run.status);
  const told = useRef(false);

  useEffect(() => {
    if (!active || error) return;
    const timer = setInterval(() => reexecute({ requestPolicy: "network-only" }), 1000);
    return () => clearInterval(timer);
  }, [active, error, reexecute]);
  useEffect(() => {
    if (run && !active && !told.current) {
      told.current = true;
      onFinished();
    }
  }, [run, active, onFinished]);

  if (error) return <ErrorAlert error={error} title="The run's state could not be read" />;
  const counts = (run?.result ?? run?.progress ?? null) as Record<string, unknown> | null;
  return (
    <Stack gap="xs" aria-live="polite">
      <Group gap="xs">
        <Text fw={600}>Fetch run</Text>
        <StateBadge tone={run ? RUN_TONE[run.status] : "neutral"}>{run ? run.status.toLowerCase() : "starting"}</StateBadge>
      </Group>
      {active && (
        <Progress.Root size="lg">
          <Progress.Section value={100} animated aria-label="Fetch progress" />
        </Progress.Root>
      )}
      {run?.lastError && (
        <Alert role="alert" color="red" title={run.status === "FAILED" ? "The fetch failed" : "The last attempt failed"}>
          {run.lastError}
        </Alert>
      )}
      {counts && <RunCounts counts={counts} />}
    </Stack>
  );
}

export function RunCounts({ counts }: { counts: Record<string, unknown> }) {
  return (
    <SimpleGrid cols={{ base: 2, sm: 3, md: 5 }} spacing="xs" component="dl" m={0}>
      {RUN_COUNTS.filter((c) => typeof counts[c.key] === "number").map((c) => (
        <div key={c.key}>
          <Text component="dt" size="xs" c="dimmed">
            {c.label}
          </Text>
          <Text component="dd" m={0} fw={600}>
            {String(counts[c.key])}
          </Text>
        </div>
      ))}
    </SimpleGrid>
  );
}

/** A finished run's counts in one line, the ones that are not zero (a history row). */
export function runSummary(counts: Record<string, unknown>): string {
  const parts = RUN_COUNTS.filter((c) => typeof counts[c.key] === "number" && counts[c.key] !== 0).map((c) => `${c.label}: ${String(counts[c.key])}`);
  return parts.length ? parts.join(" · ") : "Nothing read";
}
