import { Anchor, Button, Checkbox, Group, Select, Stack, TextInput, Textarea, Title } from "@mantine/core";
import { useState } from "react";
import { useMutation, useQuery } from "urql";
import { Link, useLocation, useParams } from "wouter";
import { Busy } from "../../components/Busy.tsx";
import { ErrorAlert } from "../../components/ErrorAlert.tsx";
import { graphql } from "../../gql/index.ts";
import { fieldErrors } from "../../lib/field-errors.ts";
import { ANALYSIS_LEVELS, DISTRIBUTIONS, THREAT_LEVELS, options } from "./event-labels.ts";

const EditedEvent = graphql(`
  query EditedEvent($uuid: String!) {
    event(uuid: $uuid) {
      uuid
      info
      date
      threatLevel
      analysis
      distribution
      published
    }
  }
`);
const CreateEvent = graphql(`
  mutation CreateEvent($input: EventInput!) {
    createEvent(input: $input) {
      uuid
    }
  }
`);
const UpdateEvent = graphql(`
  mutation UpdateEvent($uuid: String!, $input: EventInput!) {
    updateEvent(uuid: $uuid, input: $input) {
      uuid
      info
      date
      threatLevel
      analysis
      distribution
      published
    }
  }
`);

interface EventValues {
  info: string;
  date: string;
  threatLevel: number;
  analysis: number;
  distribution: number;
  published: boolean;
}

/** /events/new creates, /events/:uuid/edit changes: the same form. */
export default function EventEditPage() {
  const { uuid } = useParams<{ uuid?: string }>();
  const [{ data, error }] = useQuery({ query: EditedEvent, variables: { uuid: uuid ?? "" }, pause: !uuid });
  if (uuid && error) return <ErrorAlert error={error} title="The event could not be loaded" />;
  if (uuid && !data) return <Busy label="Loading the event" />;
  return <EventForm key={uuid ?? "new"} event={data?.event} />;
}

const today = () => new Date().toISOString().slice(0, 10);

function EventForm({ event }: { event?: EventValues & { uuid: string } }) {
  const [, navigate] = useLocation();
  const [info, setInfo] = useState(event?.info ?? "");
  const [date, setDate] = useState(event?.date ?? today());
  const [threatLevel, setThreatLevel] = useState<string | null>(String(event?.threatLevel ?? 4));
  const [analysis, setAnalysis] = useState<string | null>(String(event?.analysis ?? 0));
  const [distribution, setDistribution] = useState<string | null>(String(event?.distribution ?? 0));
  const [published, setPublished] = useState(event?.published ?? false);
  const [created, create] = useMutation(CreateEvent);
  const [updated, update] = useMutation(UpdateEvent);
  const state = event ? updated : created;
  const errors = fieldErrors(state.error);
  const atFields = ["info", "date", "threatLevel", "analysis", "distribution", "published"].some((f) => errors[f]);

  async function submit(e: React.FormEvent) {
    e.preventDefault();
    const input = { info, date, threatLevel: Number(threatLevel), analysis: Number(analysis), distribution: Number(distribution), published };
    if (event) {
      const res = await update({ uuid: event.uuid, input });
      if (res.data) navigate(`/events/${event.uuid}`);
    } else {
      const res = await create({ input });
      if (res.data) navigate(`/events/${res.data.createEvent.uuid}`);
    }
  }

  return (
    <Stack gap="md" maw={720}>
      <Anchor component={Link} href={event ? `/events/${event.uuid}` : "/events"} size="sm">
        {event ? "← Back to the event" : "← All events"}
      </Anchor>
      <Title order={1}>{event ? "Edit event" : "New event"}</Title>
      <Stack component="form" gap="sm" onSubmit={submit} aria-label={event ? "Edit event" : "New event"}>
        <Textarea label="Info" description="The event's title" value={info} onChange={(e) => setInfo(e.currentTarget.value)} autosize minRows={1} maxRows={4} error={errors.info} />
        <TextInput label="Date" type="date" value={date} onChange={(e) => setDate(e.currentTarget.value)} error={errors.date} />
        <Group grow wrap="wrap" align="start">
          <Select label="Threat level" data={options(THREAT_LEVELS)} value={threatLevel} onChange={setThreatLevel} allowDeselect={false} error={errors.threatLevel} miw={160} />
          <Select label="Analysis" data={options(ANALYSIS_LEVELS)} value={analysis} onChange={setAnalysis} allowDeselect={false} error={errors.analysis} miw={160} />
          <Select label="Distribution" data={options(DISTRIBUTIONS, [5])} value={distribution} onChange={setDistribution} allowDeselect={false} error={errors.distribution} miw={200} />
        </Group>
        <Checkbox label="Published" checked={published} onChange={(e) => setPublished(e.currentTarget.checked)} error={errors.published} />
        {state.error && !atFields && <ErrorAlert error={state.error} title="The event was not saved" />}
        <Group>
          <Button type="submit" loading={state.fetching}>
            {event ? "Save event" : "Create event"}
          </Button>
          <Button variant="default" component={Link} href={event ? `/events/${event.uuid}` : "/events"}>
            Cancel
          </Button>
        </Group>
      </Stack>
    </Stack>
  );
}
