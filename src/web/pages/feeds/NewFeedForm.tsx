import { Alert, Button, Card, FileInput, Group, NativeSelect, NumberInput, Progress, Radio, SimpleGrid, Stack, Switch, TagsInput, Text, TextInput, Title } from "@mantine/core";
import { useState, type FormEvent } from "react";
import { useMutation } from "urql";
import { useLocation } from "wouter";
import { apiMessage } from "../../components/ErrorAlert.tsx";
import { graphql } from "../../gql/index.ts";
import type { FeedFields, FeedFormat } from "../../gql/graphql.ts";
import { DISTRIBUTIONS, FORMATS } from "./feed-labels.ts";
import { RowPreview } from "./FeedPreview.tsx";
import { uploadFeedFile, type FeedUploadAnswer } from "./upload.ts";

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
  // A local feed's file is uploaded and previewed first; creating the feed ingests it.
  const [uploaded, setUploaded] = useState<FeedUploadAnswer | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [, createFeed] = useMutation(CreateFeed);
  const accept = FORMATS.find((f) => f.value === format)?.accept;

  const settings = format === "CSV" ? { csvConfig: { header: csvHeader, attribute: { value_column: valueColumn } } } : null;
  const changeSource = (next: () => void) => {
    setUploaded(null);
    setProgress(null);
    next();
  };

  async function upload() {
    if (!file) {
      setError("Choose a file to upload.");
      return;
    }
    setError(null);
    setBusy(true);
    try {
      setProgress(0);
      setUploaded(await uploadFeedFile(file, format.toLowerCase(), setProgress));
    } catch (err) {
      setError(apiMessage(err as Error));
      setProgress(null);
    } finally {
      setBusy(false);
    }
  }

  async function submit(e: FormEvent) {
    e.preventDefault();
    setError(null);
    if (source === "LOCAL" && !uploaded) return;
    setBusy(true);
    try {
      const target = source === "LOCAL" && uploaded ? uploaded.key : url.trim();
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
        ...(settings ? { settings } : {}),
      };
      const res = await createFeed({ feed });
      if (res.error || !res.data) throw res.error ?? new Error("The feed was not created");
      const { feed: created, ingestion } = res.data.createFeed;
      navigate(ingestion ? `/feeds/${created.id}?run=${ingestion.id}` : `/feeds/${created.id}`);
    } catch (err) {
      setError(apiMessage(err as Error));
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
          <Radio.Group label="Source" value={source} onChange={(v) => changeSource(() => setSource(v as Source))}>
            <Group gap="lg" mt={4}>
              <Radio value="NETWORK" label="Fetch from a URL" />
              <Radio value="LOCAL" label="Upload a file" />
            </Group>
          </Radio.Group>
          <SimpleGrid cols={{ base: 1, sm: 2 }}>
            <TextInput label="Feed name" required value={name} onChange={(e) => setName(e.currentTarget.value)} maxLength={255} />
            <TextInput label="Provider" required value={provider} onChange={(e) => setProvider(e.currentTarget.value)} maxLength={255} />
            <NativeSelect
              label="Format"
              data={FORMATS.map((f) => ({ value: f.value, label: f.label }))}
              value={format}
              onChange={(e) => {
                const next = e.currentTarget.value as typeof format;
                changeSource(() => setFormat(next));
              }}
            />
            <NativeSelect label="Distribution of its events" data={DISTRIBUTIONS} value={distribution} onChange={(e) => setDistribution(e.currentTarget.value)} />
          </SimpleGrid>
          {source === "NETWORK" ? (
            <TextInput label="Feed URL" required type="url" placeholder="https://…" value={url} onChange={(e) => setUrl(e.currentTarget.value)} maxLength={2048} />
          ) : (
            <FileInput label="Feed file" description={`Accepted: ${accept}`} accept={accept} value={file} onChange={(f) => changeSource(() => setFile(f))} clearable />
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
                {progress < 1 ? `Uploading: ${Math.round(progress * 100)}%` : "Uploaded"}
              </Text>
            </Stack>
          )}
          {uploaded && (
            <Stack gap="xs" component="section" aria-label="Preview of the upload">
              <Text fw={600}>
                Preview of {uploaded.filename} ({uploaded.size.toLocaleString()} bytes)
              </Text>
              {format === "SHARING" ? (
                <Text>
                  The archive holds {uploaded.members?.events ?? 0} {uploaded.members?.events === 1 ? "event" : "events"}
                  {uploaded.members?.unsafe_entries.length ? `; ${uploaded.members.unsafe_entries.length} unsafe entries were dropped` : ""}.
                </Text>
              ) : (
                <RowPreview feed={{ sourceFormat: format, inputSource: "LOCAL", url: uploaded.key, settings }} />
              )}
              <Text size="sm" c="dimmed">
                Creating the feed ingests the file once.
              </Text>
            </Stack>
          )}
          {error && (
            <Alert role="alert" color="red" title="The feed was not created">
              {error}
            </Alert>
          )}
          <Group>
            {source === "LOCAL" && !uploaded ? (
              // Uploading needs no name yet: the form's required fields are for the feed.
              <Button type="button" loading={busy} onClick={() => void upload()}>
                Upload and preview
              </Button>
            ) : (
              <Button type="submit" loading={busy}>
                Create feed
              </Button>
            )}
          </Group>
        </Stack>
      </form>
    </Card>
  );
}
