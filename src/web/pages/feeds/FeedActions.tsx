import { Alert, Button, Card, FileInput, Group, Progress, Stack, Switch, Text, Title } from "@mantine/core";
import { useState } from "react";
import { useMutation } from "urql";
import { useLocation } from "wouter";
import { apiMessage } from "../../components/ErrorAlert.tsx";
import { graphql } from "../../gql/index.ts";
import type { FeedFormat } from "../../gql/graphql.ts";
import { FORMATS } from "./feed-labels.ts";
import { uploadFeedFile } from "./upload.ts";

const UpdateFeed = graphql(`
  mutation UpdateFeed($id: Int!, $feed: FeedFields!) {
    updateFeed(id: $id, feed: $feed) {
      id
      enabled
      url
      settings
    }
  }
`);

const DeleteFeed = graphql(`
  mutation DeleteFeed($id: Int!) {
    deleteFeed(id: $id)
  }
`);

interface ManagedFeed {
  id: number;
  name: string;
  enabled: boolean;
  inputSource: "LOCAL" | "NETWORK";
  sourceFormat: FeedFormat;
}

/**
 * Changing a feed: a network feed's schedule switch; an uploaded feed's file replaced (read by the
 * next fetch, spec 3.3); deleting it (its events stay).
 */
export function FeedActions({ feed, mayUpdate, mayDelete, onChanged }: { feed: ManagedFeed; mayUpdate: boolean; mayDelete: boolean; onChanged(): void }) {
  const [, navigate] = useLocation();
  const [update, updateFeed] = useMutation(UpdateFeed);
  const [removal, deleteFeed] = useMutation(DeleteFeed);
  const [confirming, setConfirming] = useState(false);
  const [file, setFile] = useState<File | null>(null);
  const [progress, setProgress] = useState<number | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [replaced, setReplaced] = useState(false);
  const format = feed.sourceFormat === "MISP" ? "SHARING" : feed.sourceFormat;
  const accept = FORMATS.find((f) => f.value === format)?.accept;

  async function replace() {
    if (!file) return;
    setProblem(null);
    setReplaced(false);
    try {
      setProgress(0);
      const uploaded = await uploadFeedFile(file, format.toLowerCase(), setProgress);
      const res = await updateFeed({ id: feed.id, feed: { url: uploaded.key } });
      if (res.error) throw res.error;
      setReplaced(true);
      setFile(null);
      onChanged();
    } catch (err) {
      setProblem(apiMessage(err as Error));
    } finally {
      setProgress(null);
    }
  }

  if (!mayUpdate && !mayDelete) return null;
  return (
    <Card withBorder component="section" aria-labelledby="manage-heading">
      <Stack gap="sm">
        <Title order={2} size="h3" id="manage-heading">
          Manage
        </Title>
        {mayUpdate && feed.inputSource === "NETWORK" && (
          <Switch
            label="Fetch on its schedule"
            checked={feed.enabled}
            disabled={update.fetching}
            onChange={(e) => void updateFeed({ id: feed.id, feed: { enabled: e.currentTarget.checked } }).then((r) => (r.error ? setProblem(apiMessage(r.error)) : onChanged()))}
          />
        )}
        {mayUpdate && feed.inputSource === "LOCAL" && (
          <Stack gap="xs">
            <Group align="end" gap="sm">
              <FileInput label="Replacement file" description={`Read by the next fetch; accepted: ${accept}`} accept={accept} value={file} onChange={setFile} clearable maw={420} style={{ flexGrow: 1 }} />
              <Button variant="default" disabled={!file} loading={progress !== null} onClick={() => void replace()}>
                Replace the file
              </Button>
            </Group>
            {progress !== null && (
              <Progress.Root size="lg">
                <Progress.Section value={Math.round(progress * 100)} aria-label="Upload progress" animated />
              </Progress.Root>
            )}
            {replaced && (
              <Text size="sm" role="status">
                The file was replaced: the next fetch reads it.
              </Text>
            )}
          </Stack>
        )}
        {problem && (
          <Alert role="alert" color="red" title="The feed was not changed">
            {problem}
          </Alert>
        )}
        {removal.error && (
          <Alert role="alert" color="red" title="The feed was not deleted">
            {apiMessage(removal.error)}
          </Alert>
        )}
        {mayDelete && (
          <Group gap="xs">
            {confirming ? (
              <>
                <Button color="red.9" onClick={() => void deleteFeed({ id: feed.id }).then((r) => r.error || navigate("/feeds"))} aria-label={`Delete for good: feed ${feed.name}`}>
                  Delete for good
                </Button>
                <Button variant="default" onClick={() => setConfirming(false)}>
                  Keep the feed
                </Button>
                <Text size="sm">Its events stay.</Text>
              </>
            ) : (
              <Button variant="default" onClick={() => setConfirming(true)}>
                Delete feed
              </Button>
            )}
          </Group>
        )}
      </Stack>
    </Card>
  );
}
