import { Alert, Anchor, Button, Checkbox, FileInput, Group, Paper, Text } from "@mantine/core";
import { useState } from "react";
import { Link } from "wouter";
import { authorizedFetch } from "../../lib/graphql-client.ts";
import { problemText } from "../../lib/session.ts";

interface Imported {
  uuid: string;
  info: string;
  import: { created: boolean; attributes: { created: number; updated: number }; objects: { created: number; updated: number }; skipped: unknown[] };
}

/** MISP JSON from a file, sent as it is to POST /events/import (a file moves: REST, not GraphQL). */
export function ImportEventForm({ onImported }: { onImported(): void }) {
  const [file, setFile] = useState<File | null>(null);
  const [skipInvalid, setSkipInvalid] = useState(true);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<Imported | null>(null);

  async function submit(e: React.FormEvent) {
    e.preventDefault();
    if (!file) return;
    setBusy(true);
    setError(null);
    setDone(null);
    try {
      const res = await authorizedFetch(`/events/import?on_invalid=${skipInvalid ? "skip" : "reject"}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: file,
      });
      if (!res.ok) throw new Error(await problemText(res, "The import failed"));
      setDone((await res.json()) as Imported);
      setFile(null);
      onImported();
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  }

  return (
    <Paper withBorder p="sm" component="form" onSubmit={submit} aria-label="Import a MISP event">
      <Group align="end" gap="sm" wrap="wrap">
        <FileInput label="MISP event file (JSON)" accept="application/json,.json" value={file} onChange={setFile} clearable miw={240} />
        <Checkbox label="Skip invalid attributes" checked={skipInvalid} onChange={(e) => setSkipInvalid(e.currentTarget.checked)} mb={8} />
        <Button type="submit" loading={busy} disabled={!file}>
          Import event
        </Button>
      </Group>
      {error && (
        <Alert role="alert" color="red" title="The event was not imported" mt="sm">
          {error}
        </Alert>
      )}
      {done && (
        <Alert role="status" color="teal.9" variant="outline" mt="sm" title={done.import.created ? "Event imported" : "Event updated"}>
          <Text size="sm">
            <Anchor component={Link} href={`/events/${done.uuid}`}>
              {done.info}
            </Anchor>
            {`: ${done.import.attributes.created} attributes and ${done.import.objects.created} objects created, ${done.import.attributes.updated + done.import.objects.updated} updated, ${done.import.skipped.length} skipped.`}
          </Text>
        </Alert>
      )}
    </Paper>
  );
}
