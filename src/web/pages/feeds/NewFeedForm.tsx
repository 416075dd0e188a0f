import { Alert, Button, Card, FileInput, Group, NativeSelect, NumberInput, Progress, Radio, SimpleGrid, Stack, Switch, TagsInput, Text, TextInput, Title } from "@mantine/core";
import { useState, type FormEvent } from "react";
import { useMutation } from "urql";
import { useLocation } from "wouter";
import { apiMessage } from "../../components/ErrorAlert.tsx";
import { graphql } from "../../gql/index.ts";
import type { FeedFields, FeedFormat } from "../../gql/graphql.ts";
import { DISTRIBUTIONS, FORMATS } from "./feed-labels.ts";
import { uploadFeedFile } from "./upload.ts";

const CreateFeed = graphql(`
  mutation CreateFeed($feed: FeedFields!) {
    createFeed(feed: $feed) {
      feed {
        id
      }
      ingestion {
        id
      }
    }
  }
`);

type Source = "NETWORK" | "LOCAL";

/** A new feed: fetched from a URL, or an uploaded file (sent with a progress bar, then ingested once). */
export function NewFeedForm() {
  const [, navigate] = useLocation();
  const [source, setSource] = useState<Source>("NETWORK");
  const [format, setFormat] = useState<Exclude<FeedFormat, "MISP">>("CSV");
  const [name, setName] = useState("");
  const [provider, setProvider] = useState("");
  const [url, setUrl] = useState("");
  const [file, setFile] = useState<File | null>(null);
  const [tags, setTags] = useState<string[]>([]);
  const [distribution, setDistribution] = useState("0");
  const [enabled, setEnabled] = useState(false);
  const [publish, setPublish] = useState(false);
  const [fixedEvent, setFixedEvent] = useState(false);
  const [overrideIds, setOverrideIds] = useState(false);
  const [skipWarninglisted, setSkipWarninglisted] = useState(false);
  const [csvHeader, setCsvHeader] = useState(false);
  const [valueColumn, setValueColumn] = useState<number>(0);
  const [progress, setProgress] = useState<number | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [, createFeed] = useMutation(CreateFeed);
  const accept = FORMATS.find((f) => f.value === format)?.accept;

  async function submit(e: FormEvent) {
    e.preventDefault();
    setError(null);
    if (source === "LOCAL" && !file) {
      setError("Choose a file to upload.");
      return;
    }
    setBusy(true);
    try {
      let target = url.trim();
      if (source === "LOCAL" && file) {
        setProgress(0);
        const uploaded = await uploadFeedFile(file, format.toLowerCase(), setProgress);
        target = uploaded.key;
      }
      const feed: FeedFields = {
        name,
        provider,
        url: target,
        sourceFormat: format,
        inputSource: source,
        distribution: Number(distribution),
        publish,
        fixedEvent,
        overrideIds,
        skipWarninglisted,
        tags,
        ...(source === "NETWORK" ? { enabled } : {}),
        ...(format === "CSV" ? { settings: { csvConfig: { header: csvHeader, attribute: { value_column: valueColumn } } } } : {}),
      };
      const res = await createFeed({ feed });
      if (res.error || !res.data) throw res.error ?? new Error("The feed was not created");
      const { feed: created, ingestion } = res.data.createFeed;
      navigate(ingestion ? `/feeds/${created.id}?run=${ingestion.id}` : `/feeds/${created.id}`);
    } catch (err) {
      setError(apiMessage(err as Error));
      setProgress(null);
    } finally {
      setBusy(false);
    }
  }

  return (
    <Card withBorder component="section" aria-labelledby="new-feed">
      <form onSubmit={(e) => void submit(e)}>
        <Stack gap="sm">
          <Title order={2} size="h3" id="new-feed">
            Add a feed
          </Title>
          <Radio.Group label="Source" value={source} onChange={(v) => setSource(v as Source)}>
            <Group gap="lg" mt={4}>
              <Radio value="NETWORK" label="Fetch from a URL" />
              <Radio value="LOCAL" label="Upload a file" />
            </Group>
          </Radio.Group>
          <SimpleGrid cols={{ base: 1, sm: 2 }}>
            <TextInput label="Feed name" required value={name} onChange={(e) => setName(e.currentTarget.value)} maxLength={255} />
            <TextInput label="Provider" required value={provider} onChange={(e) => setProvider(e.currentTarget.value)} maxLength={255} />
            <NativeSelect label="Format" data={FORMATS.map((f) => ({ value: f.value, label: f.label }))} value={format} onChange={(e) => setFormat(e.currentTarget.value as typeof format)} />
            <NativeSelect label="Distribution of its events" data={DISTRIBUTIONS} value={distribution} onChange={(e) => setDistribution(e.currentTarget.value)} />
          </SimpleGrid>
          {source === "NETWORK" ? (
            <TextInput label="Feed URL" required type="url" placeholder="https://…" value={url} onChange={(e) => setUrl(e.currentTarget.value)} maxLength={2048} />
          ) : (
            <FileInput label="Feed file" description={`Accepted: ${accept}`} accept={accept} value={file} onChange={setFile} clearable />
          )}
          {format === "CSV" && (
            <Group gap="lg" align="end">
              <NumberInput label="Value column (from 0)" min={0} max={1000} value={valueColumn} onChange={(v) => setValueColumn(typeof v === "number" ? v : 0)} w={200} />
              <Switch label="First row is a header" checked={csvHeader} onChange={(e) => setCsvHeader(e.currentTarget.checked)} />
            </Group>
          )}
          <TagsInput label="Tags for its events" placeholder="Type a tag and press Enter" value={tags} onChange={setTags} maxTags={50} />
          <Group gap="lg">
            {source === "NETWORK" && <Switch label="Fetch on its schedule" checked={enabled} onChange={(e) => setEnabled(e.currentTarget.checked)} />}
            <Switch label="Publish its events" checked={publish} onChange={(e) => setPublish(e.currentTarget.checked)} />
            <Switch label="One fixed event" checked={fixedEvent} onChange={(e) => setFixedEvent(e.currentTarget.checked)} />
            <Switch label="Clear the IDS flag" checked={overrideIds} onChange={(e) => setOverrideIds(e.currentTarget.checked)} />
            <Switch label="Skip warninglisted values" checked={skipWarninglisted} onChange={(e) => setSkipWarninglisted(e.currentTarget.checked)} />
          </Group>
          {progress !== null && (
            <Stack gap={4}>
              <Progress.Root size="lg">
                <Progress.Section value={Math.round(progress * 100)} aria-label="Upload progress" animated={progress < 1} />
              </Progress.Root>
              <Text size="sm" aria-live="polite">
                {progress < 1 ? `Uploading: ${Math.round(progress * 100)}%` : "Uploaded; creating the feed"}
              </Text>
            </Stack>
          )}
          {error && (
            <Alert role="alert" color="red" title="The feed was not created">
              {error}
            </Alert>
          )}
          <Group>
            <Button type="submit" loading={busy}>
              {source === "LOCAL" ? "Upload and create feed" : "Create feed"}
            </Button>
          </Group>
        </Stack>
      </form>
    </Card>
  );
}
