import { Button, Card, Group, NativeSelect, Stack, Switch, Table, Text, Title } from "@mantine/core";
import { useState } from "react";
import { useMutation, useQuery } from "urql";
import { Busy } from "../../components/Busy.tsx";
import { ErrorAlert } from "../../components/ErrorAlert.tsx";
import { Pager } from "../../components/Pager.tsx";
import { Timestamp } from "../../components/Timestamp.tsx";
import { RUN_TONE, StateBadge } from "../../components/StateBadge.tsx";
import { TableScroll } from "../../components/TableScroll.tsx";
import { graphql } from "../../gql/index.ts";
import type { ScheduledTasksQuery, TaskRunStatus } from "../../gql/graphql.ts";
import { grants, useIdentity } from "../../lib/identity.ts";

const PAGE_SIZE = 20;

const ScheduledTasks = graphql(`
  query ScheduledTasks($page: Int!, $size: Int!) {
    scheduledTasks(page: $page, size: $size) {
      total
      page
      pages
      items {
        id
        name
        task
        enabled
        dueAt
        lastRunAt
        lastRunStatus
        schedule {
          description
        }
      }
    }
  }
`);

const TaskRuns = graphql(`
  query TaskRuns($page: Int!, $size: Int!, $scheduledTaskId: String, $status: TaskRunStatus) {
    taskRuns(page: $page, size: $size, scheduledTaskId: $scheduledTaskId, status: $status) {
      total
      page
      pages
      items {
        id
        task
        status
        trigger
        queuedAt
        finishedAt
        lastError
        attempts
      }
    }
  }
`);

const SetEnabled = graphql(`
  mutation SetScheduledTaskEnabled($id: String!, $enabled: Boolean!) {
    updateScheduledTask(id: $id, enabled: $enabled) {
      id
      enabled
      dueAt
    }
  }
`);

const RunNow = graphql(`
  mutation RunScheduledTask($id: String!) {
    runScheduledTask(id: $id) {
      id
    }
  }
`);

const STATUS: TaskRunStatus[] = ["QUEUED", "RUNNING", "SUCCEEDED", "FAILED", "CANCELLED"];

type Schedule = ScheduledTasksQuery["scheduledTasks"]["items"][number];

/** Scheduled tasks the user sees (administrators: all), with pause/resume, run now and each one's runs; then every run. */
export function TasksPanel() {
  const [page, setPage] = useState(1);
  const [selected, setSelected] = useState<Schedule | null>(null);
  const [{ data, fetching, error }, refetch] = useQuery({ query: ScheduledTasks, variables: { page, size: PAGE_SIZE } });
  const identity = useIdentity();
  const mayUpdate = identity ? grants(identity.scopes, "tasks:update") : false;
  const mayRun = identity ? grants(identity.scopes, "tasks:run") : false;
  const [toggle, setEnabled] = useMutation(SetEnabled);
  const [run, runNow] = useMutation(RunNow);
  const tasks = data?.scheduledTasks;
  // Bumped by every change, so the run lists shown read their runs again.
  const [version, setVersion] = useState(0);
  const changed = () => {
    setVersion((v) => v + 1);
    refetch({ requestPolicy: "network-only" });
  };

  return (
    <Stack gap="lg">
      <Stack gap="sm" component="section" aria-labelledby="schedules-heading">
        <Title order={2} size="h3" id="schedules-heading">
          Scheduled tasks
        </Title>
        {error && <ErrorAlert error={error} title="The scheduled tasks could not be loaded" />}
        {(toggle.error ?? run.error) && <ErrorAlert error={(toggle.error ?? run.error)!} title="The task was not changed" />}
        {!tasks && fetching && <Busy label="Loading the scheduled tasks" />}
        {tasks && tasks.total === 0 && <Text c="dimmed">No scheduled tasks.</Text>}
        {tasks && tasks.items.length > 0 && (
          <TableScroll minWidth={820} label="Scheduled tasks table">
            <Table striped>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Name</Table.Th>
                  <Table.Th>Task</Table.Th>
                  <Table.Th>Schedule</Table.Th>
                  <Table.Th>Next run</Table.Th>
                  <Table.Th>Last run</Table.Th>
                  <Table.Th>Enabled</Table.Th>
                  <Table.Th>Actions</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {tasks.items.map((t) => (
                  <Table.Tr key={t.id}>
                    <Table.Td>{t.name}</Table.Td>
                    <Table.Td>{t.task}</Table.Td>
                    <Table.Td>{t.schedule.description}</Table.Td>
                    <Table.Td>
                      <Timestamp value={t.dueAt} empty="Paused" />
                    </Table.Td>
                    <Table.Td>
                      <Timestamp value={t.lastRunAt} empty="Never" />{" "}
                      {t.lastRunStatus && (
                        <StateBadge tone={RUN_TONE[t.lastRunStatus]}>{t.lastRunStatus.toLowerCase()}</StateBadge>
                      )}
                    </Table.Td>
                    <Table.Td>
                      <Switch aria-label={`Enable task ${t.name}`} checked={t.enabled} disabled={!mayUpdate} onChange={(e) => void setEnabled({ id: t.id, enabled: e.currentTarget.checked }).then(changed)} />
                    </Table.Td>
                    <Table.Td>
                      <Group gap={4} wrap="nowrap">
                        {mayRun && (
                          <Button size="xs" variant="default" aria-label={`Run now: ${t.name}`} onClick={() => void runNow({ id: t.id }).then(changed)}>
                            Run now
                          </Button>
                        )}
                        <Button size="xs" variant="default" aria-label={`Runs of ${t.name}`} onClick={() => setSelected(t)}>
                          Runs
                        </Button>
                      </Group>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </TableScroll>
        )}
        {tasks && tasks.total > 0 && <Pager page={page} pages={tasks.pages} total={tasks.total} onChange={setPage} noun="scheduled tasks" nameButtons />}
      </Stack>
      {selected && (
        <Card withBorder>
          <Group justify="space-between">
            <Title order={2} size="h3">
              Runs of {selected.name}
            </Title>
            <Button size="xs" variant="default" onClick={() => setSelected(null)}>
              Close runs of {selected.name}
            </Button>
          </Group>
          <RunList key={`${selected.id}-${version}`} scheduledTaskId={selected.id} noun={`runs of ${selected.name}`} />
        </Card>
      )}
      <Stack gap="sm" component="section" aria-labelledby="runs-heading">
        <Title order={2} size="h3" id="runs-heading">
          Task runs
        </Title>
        <RunList key={version} noun="task runs" withFilter />
      </Stack>
    </Stack>
  );
}

function RunList({ scheduledTaskId, noun, withFilter = false }: { scheduledTaskId?: string; noun: string; withFilter?: boolean }) {
  const [page, setPage] = useState(1);
  const [status, setStatus] = useState<TaskRunStatus | "">("");
  const [{ data, fetching, error }] = useQuery({ query: TaskRuns, variables: { page, size: PAGE_SIZE, scheduledTaskId: scheduledTaskId ?? null, status: status || null }, requestPolicy: "cache-and-network" });
  const runs = data?.taskRuns;
  return (
    <Stack gap="xs" mt="xs">
      {withFilter && (
        <NativeSelect
          label="Run state"
          w={220}
          data={[{ value: "", label: "Any state" }, ...STATUS.map((s) => ({ value: s, label: s.toLowerCase() }))]}
          value={status}
          onChange={(e) => {
            setStatus(e.currentTarget.value as TaskRunStatus | "");
            setPage(1);
          }}
        />
      )}
      {error && <ErrorAlert error={error} title="The runs could not be loaded" />}
      {!runs && fetching && <Busy label={`Loading the ${noun}`} minHeight={80} />}
      {runs && runs.total === 0 && <Text c="dimmed">No {noun}.</Text>}
      {runs && runs.items.length > 0 && (
        <TableScroll minWidth={680} label={`Table of ${noun}`}>
          <Table>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Task</Table.Th>
                <Table.Th>Trigger</Table.Th>
                <Table.Th>Queued</Table.Th>
                <Table.Th>Finished</Table.Th>
                <Table.Th>State</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {runs.items.map((r) => (
                <Table.Tr key={r.id}>
                  <Table.Td>{r.task}</Table.Td>
                  <Table.Td>{r.trigger}</Table.Td>
                  <Table.Td>
                    <Timestamp value={r.queuedAt} />
                  </Table.Td>
                  <Table.Td>
                    <Timestamp value={r.finishedAt} />
                  </Table.Td>
                  <Table.Td>
                    <StateBadge tone={RUN_TONE[r.status]}>{r.status.toLowerCase()}</StateBadge>
                    {r.lastError && (
                      <Text size="sm" c="red.8">
                        {r.lastError}
                      </Text>
                    )}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </TableScroll>
      )}
      {runs && runs.total > 0 && <Pager page={page} pages={runs.pages} total={runs.total} onChange={setPage} noun={noun} nameButtons />}
    </Stack>
  );
}
