import { Button, Group, NativeSelect, Stack, Text, TextInput } from "@mantine/core";
import { useState } from "react";
import { useMutation } from "urql";
import { ErrorAlert } from "../../components/ErrorAlert.tsx";
import { graphql } from "../../gql/index.ts";
import { scheduleLabel } from "./format.ts";
import { choiceOf, parseCron, SCHEDULE_CHOICES, scheduleWrite, type ScheduleChoice } from "./schedule.ts";

const SetSchedule = graphql(`
  mutation SetHuntSchedule($id: Int!, $input: UpdateHuntInput!) {
    updateHunt(id: $id, input: $input) {
      id
      schedule
      cron
      scheduledTaskId
      nextRunAt
    }
  }
`);

interface Props {
  hunt: { id: number; schedule?: string | null; cron?: string | null; nextRunAt?: string | null; status: string };
  onChanged(): void;
}

/** Hourly, daily, weekly, a custom cron line (UTC) or none: the hunt's own schedule. */
export function ScheduleControl({ hunt, onChanged }: Props) {
  const current = choiceOf(hunt.schedule);
  const [choice, setChoice] = useState<ScheduleChoice>(current);
  const [cronText, setCronText] = useState(hunt.cron ?? "");
  const [saved, save] = useMutation(SetSchedule);
  const parsed = choice === "custom" ? parseCron(cronText) : null;
  const cronError = parsed && "error" in parsed ? parsed.error : null;
  const write = cronError ? null : scheduleWrite({ choice: current, cron: hunt.cron ?? null }, choice, parsed && !("error" in parsed) ? parsed : undefined);

  async function submit() {
    if (!write) return;
    const res = await save({ id: hunt.id, input: write });
    if (!res.error) onChanged();
  }

  return (
    <Stack gap="xs">
      <Group align="flex-end" wrap="wrap" gap="sm">
        <NativeSelect label="Schedule" value={choice} onChange={(e) => setChoice(e.currentTarget.value as ScheduleChoice)} data={SCHEDULE_CHOICES} w={200} />
        {choice === "custom" && (
          <TextInput
            label="Cron expression"
            description="minute hour day-of-month month day-of-week, UTC"
            placeholder="30 6 * * 1-5"
            value={cronText}
            onChange={(e) => setCronText(e.currentTarget.value)}
            error={cronText ? cronError : undefined}
            w={260}
            styles={{ input: { fontFamily: "var(--mantine-font-family-monospace)" } }}
          />
        )}
        <Button onClick={() => void submit()} loading={saved.fetching} disabled={!write}>
          Save schedule
        </Button>
      </Group>
      <Text size="sm" c="dimmed">
        {current === "none"
          ? "Not scheduled: the hunt runs only when you run it."
          : hunt.status === "PAUSED"
            ? "Paused: the schedule skips it until it is resumed."
            : `${scheduleLabel(hunt.schedule, hunt.nextRunAt)}${hunt.cron ? ` (${hunt.cron} UTC)` : ""}.`}
      </Text>
      {saved.error && <ErrorAlert error={saved.error} title="The schedule was not saved" />}
    </Stack>
  );
}
