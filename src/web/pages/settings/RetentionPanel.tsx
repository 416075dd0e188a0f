import { Alert, Button, Card, Group, NumberInput, Stack, Switch, TagsInput, Text, Title } from "@mantine/core";
import { useDebouncedValue } from "@mantine/hooks";
import { useState, type FormEvent } from "react";
import { useMutation, useQuery } from "urql";
import { Busy } from "../../components/Busy.tsx";
import { ErrorAlert, apiMessage } from "../../components/ErrorAlert.tsx";
import { graphql } from "../../gql/index.ts";

const Retention = graphql(`
  query RetentionSettings {
    runtimeSetting(namespace: "retention")
  }
`);

const Preview = graphql(`
  query RetentionPreview($periodDays: Int!) {
    retentionPreview(periodDays: $periodDays) {
      count
      periodDays
    }
  }
`);

const Save = graphql(`
  mutation SaveRetention($value: JSON!) {
    setRuntimeSetting(namespace: "retention", value: $value)
  }
`);

/** The stored namespace (spec 2.3), with the keys this form does not show kept as they are. */
interface RetentionValue {
  enabled: boolean;
  period_days: number;
  warning_days: number;
  exempt_tags: string[];
  [other: string]: unknown;
}

/** Event retention (administrators): the switches, with how many events a period would delete before saving it. */
export function RetentionPanel() {
  const [{ data, error }] = useQuery({ query: Retention, requestPolicy: "network-only" });
  if (error) return <ErrorAlert error={error} title="The retention settings could not be loaded" />;
  if (!data) return <Busy label="Loading the retention settings" />;
  return <RetentionForm stored={data.runtimeSetting as RetentionValue} />;
}

function RetentionForm({ stored }: { stored: RetentionValue }) {
  const [value, setValue] = useState<RetentionValue>(stored);
  const [saved, setSaved] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const [state, save] = useMutation(Save);
  const period = typeof value.period_days === "number" && value.period_days >= 1 ? value.period_days : null;
  const [debounced] = useDebouncedValue(period, 300);
  const [preview] = useQuery({ query: Preview, variables: { periodDays: debounced ?? 1 }, pause: debounced === null, requestPolicy: "network-only" });
  const set = (patch: Partial<RetentionValue>) => {
    setSaved(false);
    setValue((v) => ({ ...v, ...patch }));
  };

  async function submit(e: FormEvent) {
    e.preventDefault();
    setProblem(null);
    const res = await save({ value });
    if (res.error) setProblem(apiMessage(res.error));
    else setSaved(true);
  }

  const count = preview.data?.retentionPreview;
  return (
    <Card withBorder component="section" aria-labelledby="retention-heading">
      <form onSubmit={(e) => void submit(e)}>
        <Stack gap="sm">
          <Title order={2} size="h3" id="retention-heading">
            Event retention
          </Title>
          <Switch label="Delete events older than the retention period" checked={value.enabled} onChange={(e) => set({ enabled: e.currentTarget.checked })} />
          <Group gap="md" align="start">
            <NumberInput label="Retention period (days)" min={1} max={36500} required value={value.period_days} onChange={(v) => set({ period_days: typeof v === "number" ? v : 0 })} w={260} />
            <NumberInput label="Warning before expiry (days)" min={0} max={36500} required value={value.warning_days} onChange={(v) => set({ warning_days: typeof v === "number" ? v : 0 })} w={260} />
          </Group>
          <TagsInput label="Exempt tags" description="Events carrying any of these tags (exact names) are never deleted" value={value.exempt_tags} onChange={(tags) => set({ exempt_tags: tags })} />
          <Stack gap={2} aria-live="polite">
            {preview.error && <ErrorAlert error={preview.error} title="The preview could not be counted" />}
            {count && period !== null && !preview.fetching ? (
              <Text fw={600} data-testid="retention-preview">
                {count.count.toLocaleString()} {count.count === 1 ? "event" : "events"} would be deleted with a period of {count.periodDays} days
              </Text>
            ) : (
              <Text c="dimmed">Counting the events this period would delete…</Text>
            )}
            <Text size="sm" c="dimmed">
              Counted across all organisations, leaving out events with a saved exempt tag; nothing is deleted while retention is off.
            </Text>
          </Stack>
          {problem && (
            <Alert role="alert" color="red" title="The settings were not saved">
              {problem}
            </Alert>
          )}
          {saved && (
            <Alert role="status" color="green">
              Saved.
            </Alert>
          )}
          <Group>
            <Button type="submit" loading={state.fetching}>
              Save retention settings
            </Button>
          </Group>
        </Stack>
      </form>
    </Card>
  );
}
