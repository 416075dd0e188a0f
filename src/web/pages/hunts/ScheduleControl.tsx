import { Button, Group, NativeSelect, Stack, Text, TextInput } from "@mantine/core";
import { useState } from "react";
import { useClient, useQuery } from "urql";
import { apiMessage, ErrorAlert } from "../../components/ErrorAlert.tsx";
import { graphql } from "../../gql/index.ts";
import { grants, useIdentity } from "../../lib/identity.ts";
import { scheduleLabel } from "./format.ts";
import { choiceOf, formatCron, parseCron, planSchedule, SCHEDULE_CHOICES, type ScheduleChoice } from "./schedule.ts";

const HuntTask = graphql(`
  query HuntScheduledTask($id: String!) {
    scheduledTask(id: $id) {
      id
      schedule {
        type
        minute
        hour
        dayOfMonth
        monthOfYear
        dayOfWeek
        description
      }
    }
  }
`);

const SetFrequency = graphql(`
  mutation SetHuntSchedule($id: Int!, $schedule: HuntFrequency) {
    updateHunt(id: $id, input: { schedule: $schedule }) {
      id
      schedule
      scheduledTaskId
      nextRunAt
    }
  }
`);

const SetCrontab = graphql(`
  mutation SetHuntCrontab($id: String!, $schedule: ScheduleInput!) {
    updateScheduledTask(id: $id, schedule: $schedule) {
      id
      dueAt
    }
  }
`);

interface Props {
  hunt: { id: number; schedule?: string | null; scheduledTaskId?: string | null; nextRunAt?: string | null; status: string };
  onChanged(): void;
}

/** Hourly, daily, weekly, a custom cron (needs tasks:update: it changes the hunt's scheduled task) or none. */
export function ScheduleControl({ hunt, onChanged }: Props) {
  const identity = useIdentity();
  const client = useClient();
  const current = choiceOf(hunt.schedule);
  const canCron = identity ? grants(identity.scopes, "tasks:update") : false;
  const [{ data: task }] = useQuery({ query: HuntTask, variables: { id: hunt.scheduledTaskId ?? "" }, pause: current !== "custom" || !hunt.scheduledTaskId || !identity || !grants(identity.scopes, "tasks:read") });
  const taskCron = task?.scheduledTask.schedule.type === "CRONTAB" ? formatCron(task.scheduledTask.schedule) : "";
  const [choice, setChoice] = useState<ScheduleChoice>(current);
  const [cron, setCron] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const cronText = cron ?? taskCron;
  const parsed = choice === "custom" ? parseCron(cronText) : null;
  const cronError = parsed && "error" in parsed ? parsed.error : null;
  const unchanged = choice === current && (choice !== "custom" || cronText === taskCron);

  async function save() {
    if (choice === "custom" && (!parsed || "error" in parsed)) return;
    setSaving(true);
    setError(null);
    try {
      let taskId = hunt.scheduledTaskId ?? null;
      for (const step of planSchedule({ choice: current, taskId }, choice, parsed && !("error" in parsed) ? parsed : undefined)) {
        if (step.kind === "frequency") {
          const res = await client.mutation(SetFrequency, { id: hunt.id, schedule: step.schedule }).toPromise();
          if (res.error) throw res.error;
          taskId = res.data?.updateHunt.scheduledTaskId ?? null;
        } else {
          if (!taskId) throw new Error("The hunt has no scheduled task to change.");
          const res = await client.mutation(SetCrontab, { id: taskId, schedule: { type: "CRONTAB", ...step.cron } }).toPromise();
          if (res.error) throw res.error;
        }
      }
      setCron(null);
      onChanged();
    } catch (err) {
      setError(err instanceof Error ? apiMessage(err) : String(err));
    } finally {
      setSaving(false);
    }
  }

  return (
    <Stack gap="xs">
      <Group align="flex-end" wrap="wrap" gap="sm">
        <NativeSelect
          label="Schedule"
          value={choice}
          onChange={(e) => setChoice(e.currentTarget.value as ScheduleChoice)}
          data={SCHEDULE_CHOICES.map((c) => ({ ...c, disabled: c.value === "custom" && !canCron && current !== "custom" }))}
          w={200}
        />
        {choice === "custom" && (
          <TextInput
            label="Cron expression"
            description="minute hour day-of-month month day-of-week, UTC"
            placeholder="30 6 * * 1-5"
            value={cronText}
            onChange={(e) => setCron(e.currentTarget.value)}
            error={cronText ? cronError : undefined}
            disabled={!canCron}
            w={260}
            styles={{ input: { fontFamily: "var(--mantine-font-family-monospace)" } }}
          />
        )}
        <Button onClick={() => void save()} loading={saving} disabled={unchanged || (choice === "custom" && (!!cronError || !canCron))}>
          Save schedule
        </Button>
      </Group>
      <Text size="sm" c="dimmed">
        {current === "none"
          ? "Not scheduled: the hunt runs only when you run it."
          : hunt.status === "PAUSED"
            ? "Paused: the schedule skips it until it is resumed."
            : `${scheduleLabel(hunt.schedule, hunt.nextRunAt)}${task?.scheduledTask.schedule.description ? ` (${task.scheduledTask.schedule.description})` : ""}.`}
        {!canCron && " Custom cron schedules need the tasks:update permission."}
      </Text>
      {error && <ErrorAlert error={error} title="The schedule was not saved" />}
    </Stack>
  );
}
