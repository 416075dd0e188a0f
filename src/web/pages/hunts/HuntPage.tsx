import { Anchor, Badge, Button, Code, Group, Paper, Stack, Table, Text, Title } from "@mantine/core";
import { useState } from "react";
import { useMutation, useQuery } from "urql";
import { Link, useLocation, useParams } from "wouter";
import { Busy } from "../../components/Busy.tsx";
import { ErrorAlert } from "../../components/ErrorAlert.tsx";
import { Pager } from "../../components/Pager.tsx";
import { graphql } from "../../gql/index.ts";
import { formatDateTime } from "./format.ts";
import { HuntHistoryChart } from "./HuntHistoryChart.tsx";
import { HuntResults } from "./HuntResults.tsx";
import { HUNT_TYPE_LABELS, INDEX_LABELS } from "./hunt-types.ts";
import { ScheduleControl } from "./ScheduleControl.tsx";

const HuntQuery = graphql(`
  query Hunt($id: Int!) {
    hunt(id: $id) {
      id
      name
      description
      huntType
      indexTarget
      query
      status
      schedule
      cron
      nextRunAt
      lastRunAt
      lastRunStatus
      lastRunError
      lastSuccessAt
      lastMatchCount
    }
  }
`);

const HuntHistory = graphql(`
  query HuntHistory($id: Int!, $page: Int!, $size: Int!) {
    huntHistory(id: $id, page: $page, size: $size) {
      total
      page
      pages
      items {
        id
        runAt
        status
        trigger
        matchCount
        newHitCount
        durationMs
        error
      }
    }
  }
`);

const RunHunt = graphql(`
  mutation RunHunt($id: Int!) {
    runHunt(id: $id) {
      total
      runAt
    }
  }
`);

const SetStatus = graphql(`
  mutation SetHuntStatus($id: Int!, $status: HuntStatus!) {
    updateHunt(id: $id, input: { status: $status }) {
      id
      status
      nextRunAt
    }
  }
`);

const ClearHistory = graphql(`
  mutation ClearHuntHistory($id: Int!) {
    clearHuntHistory(id: $id)
  }
`);

const DeleteHunt = graphql(`
  mutation DeleteHunt($id: Int!) {
    deleteHunt(id: $id)
  }
`);

const HISTORY_PAGE = 50;
const FRESH = { requestPolicy: "network-only" } as const;

export default function HuntPage() {
  const { id: raw } = useParams<{ id: string }>();
  const id = Number(raw);
  if (!Number.isSafeInteger(id)) return <ErrorAlert error="There is no hunt with that id." title="Hunt not found" />;
  return <Hunt id={id} />;
}

function Hunt({ id }: { id: number }) {
  const [, navigate] = useLocation();
  const [{ data, fetching, error }, refetchHunt] = useQuery({ query: HuntQuery, variables: { id } });
  const hunt = data?.hunt;
  const [historyPage, setHistoryPage] = useState(1);
  const [{ data: history, error: historyError }, refetchHistory] = useQuery({ query: HuntHistory, variables: { id, page: historyPage, size: HISTORY_PAGE } });
  const [ran, run] = useMutation(RunHunt);
  const [statusChange, setStatus] = useMutation(SetStatus);
  const [cleared, clear] = useMutation(ClearHistory);
  const [deleted, remove] = useMutation(DeleteHunt);
  const [confirm, setConfirm] = useState<"clear" | "delete" | null>(null);

  const reload = () => {
    refetchHunt(FRESH);
    refetchHistory(FRESH);
  };

  async function runNow() {
    // Its result (a new lastSuccessAt) or, failed, its reason are read back with the history.
    await run({ id });
    reload();
  }

  async function clearHistory() {
    setConfirm(null);
    const res = await clear({ id });
    if (res.data) {
      setHistoryPage(1);
      reload();
    }
  }

  async function deleteHunt() {
    const res = await remove({ id });
    if (res.data) navigate("/hunts");
  }

  if (error) return <ErrorAlert error={error} title="The hunt could not be loaded" />;
  if (!hunt) return fetching ? <Busy label="Loading the hunt" /> : null;
  const latest = historyPage === 1 ? history?.huntHistory.items.find((r) => r.status === "succeeded") : undefined;
  const paused = hunt.status === "PAUSED";

  return (
    <Stack gap="lg">
      <Anchor component={Link} href="/hunts" size="sm">
        Back to hunts
      </Anchor>
      <Group justify="space-between" align="flex-start" gap="sm">
        <Stack gap={4}>
          <Title order={1} style={{ wordBreak: "break-word" }}>
            {hunt.name}
          </Title>
          <Group gap="xs">
            <Badge color={paused ? "gray.7" : "teal.9"} variant="filled">
              {paused ? "Paused" : "Active"}
            </Badge>
            <Text size="sm">{HUNT_TYPE_LABELS[hunt.huntType]}</Text>
            {hunt.indexTarget && <Text size="sm">· {INDEX_LABELS[hunt.indexTarget]}</Text>}
          </Group>
        </Stack>
        <Group gap="xs">
          <Button onClick={() => void runNow()} loading={ran.fetching}>
            Run hunt
          </Button>
          <Button variant="default" onClick={() => void setStatus({ id, status: paused ? "ACTIVE" : "PAUSED" }).then(reload)} loading={statusChange.fetching}>
            {paused ? "Resume hunt" : "Pause hunt"}
          </Button>
          <Button variant="default" component={Link} href={`/hunts/${id}/edit`}>
            Edit hunt
          </Button>
          <Button variant="default" color="red" onClick={() => setConfirm("delete")}>
            Delete hunt
          </Button>
        </Group>
      </Group>
      {confirm === "delete" && (
        <Paper withBorder p="sm" role="group" aria-label="Confirm deleting the hunt">
          <Text mb="xs">Delete this hunt with its history and results?</Text>
          <Group gap="xs">
            <Button color="red.9" onClick={() => void deleteHunt()} loading={deleted.fetching}>
              Delete for good
            </Button>
            <Button variant="default" onClick={() => setConfirm(null)}>
              Cancel
            </Button>
          </Group>
        </Paper>
      )}
      {hunt.description && <Text style={{ whiteSpace: "pre-wrap" }}>{hunt.description}</Text>}
      <Stack gap={4}>
        <Text size="sm" fw={600}>
          Query
        </Text>
        <Code block style={{ whiteSpace: "pre-wrap", wordBreak: "break-all" }}>
          {hunt.query}
        </Code>
      </Stack>
      {statusChange.error && <ErrorAlert error={statusChange.error} title="The hunt's status did not change" />}
      {deleted.error && <ErrorAlert error={deleted.error} title="The hunt was not deleted" />}

      <section aria-labelledby="hunt-schedule">
        <Title order={2} size="h3" id="hunt-schedule" mb="xs">
          Schedule
        </Title>
        <ScheduleControl key={`${hunt.schedule}-${hunt.cron}`} hunt={hunt} onChanged={reload} />
      </section>

      <section aria-labelledby="hunt-history">
        <Group justify="space-between" mb="xs">
          <Title order={2} size="h3" id="hunt-history">
            History
          </Title>
          {history && history.huntHistory.total > 0 && (
            <Button variant="default" size="xs" color="red" onClick={() => setConfirm("clear")} loading={cleared.fetching}>
              Clear history
            </Button>
          )}
        </Group>
        {confirm === "clear" && (
          <Paper withBorder p="sm" mb="sm" role="group" aria-label="Confirm clearing the history">
            <Text mb="xs">Delete every run and the cached results? The hunt stays, and its next run with hits is a first run.</Text>
            <Group gap="xs">
              <Button color="red.9" onClick={() => void clearHistory()}>
                Clear for good
              </Button>
              <Button variant="default" onClick={() => setConfirm(null)}>
                Cancel
              </Button>
            </Group>
          </Paper>
        )}
        {cleared.error && <ErrorAlert error={cleared.error} title="The history was not cleared" />}
        {historyError && <ErrorAlert error={historyError} title="The history could not be loaded" />}
        {!history && !historyError && <Busy label="Loading the history" minHeight={120} />}
        {history && (
          <Stack gap="sm">
            <HuntHistoryChart runs={history.huntHistory.items} />
            {history.huntHistory.total > 0 && (
              <>
                <Table.ScrollContainer minWidth={560} type="native" tabIndex={0} role="region" aria-label="Runs">
                  <Table striped>
                    <Table.Thead>
                      <Table.Tr>
                        <Table.Th>Ran at</Table.Th>
                        <Table.Th>By</Table.Th>
                        <Table.Th>Result</Table.Th>
                        <Table.Th>Matches</Table.Th>
                        <Table.Th>New hits</Table.Th>
                        <Table.Th>Took</Table.Th>
                      </Table.Tr>
                    </Table.Thead>
                    <Table.Tbody>
                      {history.huntHistory.items.map((r) => (
                        <Table.Tr key={r.id}>
                          <Table.Td>{formatDateTime(r.runAt)}</Table.Td>
                          <Table.Td>{r.trigger}</Table.Td>
                          <Table.Td>{r.status === "failed" ? `failed: ${r.error ?? ""}` : r.status}</Table.Td>
                          <Table.Td>{r.matchCount ?? "—"}</Table.Td>
                          <Table.Td>{r.newHitCount ?? "—"}</Table.Td>
                          <Table.Td>{r.durationMs} ms</Table.Td>
                        </Table.Tr>
                      ))}
                    </Table.Tbody>
                  </Table>
                </Table.ScrollContainer>
                <Pager page={history.huntHistory.page} pages={history.huntHistory.pages} total={history.huntHistory.total} noun="runs" nameButtons onChange={setHistoryPage} />
              </>
            )}
          </Stack>
        )}
      </section>
      <section aria-labelledby="hunt-results">
        <Title order={2} size="h3" id="hunt-results" mb="xs">
          Results
        </Title>
        <Stack gap="xs">
          {hunt.lastRunAt && (
            <Text size="sm">
              Last run {formatDateTime(hunt.lastRunAt)}: {hunt.lastRunStatus}
              {hunt.lastRunError ? ` (${hunt.lastRunError})` : ""}
            </Text>
          )}
          {ran.error && <ErrorAlert error={ran.error} title="The run failed" />}
          {ran.fetching && <Busy label="Running the hunt" minHeight={80} />}
          {hunt.lastSuccessAt ? (
            <HuntResults key={hunt.lastSuccessAt} huntId={id} newHitCount={latest?.newHitCount} />
          ) : (
            !ran.fetching && <Text c="dimmed">No results yet: run the hunt.</Text>
          )}
        </Stack>
      </section>

    </Stack>
  );
}
