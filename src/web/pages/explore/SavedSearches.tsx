import { Alert, Button, Group, Modal, Stack, Text, TextInput, Title } from "@mantine/core";
import { useState, type FormEvent } from "react";
import { useMutation, useQuery } from "urql";
import { Busy } from "../../components/Busy.tsx";
import { apiMessage, ErrorAlert } from "../../components/ErrorAlert.tsx";
import { SavedSearchesQuery, SetSavedSearchesMutation } from "./documents.ts";
import { describeRange, readSavedSearches, type SavedSearch, type SearchEntry } from "./query.ts";

/** The user setting's entries as stored: the UI's objects (the peer's bare strings stay strings). */
type Stored = string | { name: string; query: string; time_range: SearchEntry["time_range"] };

type Dialog = { kind: "save" } | { kind: "rename"; index: number } | null;

/**
 * Saved searches, kept in the user setting `explore.saved_searches` (unlimited): save the current
 * search under a name, run, rename or delete one. Each change writes the whole list back.
 */
export function SavedSearches({ current, onRun }: { current: SearchEntry; onRun(entry: SearchEntry): void }) {
  const [{ data, fetching, error }, reread] = useQuery({ query: SavedSearchesQuery });
  const [writing, write] = useMutation(SetSavedSearchesMutation);
  const [dialog, setDialog] = useState<Dialog>(null);
  const [name, setName] = useState("");
  const saved = readSavedSearches(data?.userSetting ?? null);
  const stored = ((data?.userSetting as { saved_searches?: Stored[] } | null)?.saved_searches ?? []).slice();

  const store = async (next: Stored[]) => {
    const res = await write({ value: { ...((data?.userSetting as object | null) ?? {}), saved_searches: next } });
    // A JSON answer carries no type for the cache to invalidate: read the setting again.
    if (!res.error) reread({ requestPolicy: "network-only" });
    return !res.error;
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const trimmed = name.trim();
    if (!trimmed || !dialog) return;
    const next = stored.slice();
    if (dialog.kind === "save") next.unshift({ name: trimmed, query: current.query, time_range: current.time_range });
    else {
      const old = saved[dialog.index]!;
      next[dialog.index] = { name: trimmed, query: old.query, time_range: old.time_range };
    }
    if (await store(next)) setDialog(null);
  };

  const remove = (index: number) => void store(stored.filter((_, i) => i !== index));

  return (
    <Stack gap="xs" component="section" aria-labelledby="explore-saved">
      <Group justify="space-between" gap="xs">
        <Title order={2} size="h5" id="explore-saved">
          Saved searches
        </Title>
        <Button
          size="xs"
          variant="light"
          onClick={() => {
            setName("");
            setDialog({ kind: "save" });
          }}
        >
          Save search
        </Button>
      </Group>
      {writing.error && !dialog && <ErrorAlert error={writing.error} title="The saved searches were not changed" />}
      {fetching && !data ? (
        <Busy label="Loading saved searches" minHeight={60} />
      ) : error ? (
        <ErrorAlert error={error} title="Saved searches could not be read" />
      ) : saved.length === 0 ? (
        <Text size="sm" c="dimmed">
          No saved searches yet.
        </Text>
      ) : (
        <Stack gap={6} component="ul" style={{ listStyle: "none", padding: 0, margin: 0 }}>
          {saved.map((s, i) => (
            <SavedRow
              key={`${i}:${s.name}`}
              search={s}
              onRun={() => onRun(s)}
              onRename={() => {
                setName(s.name);
                setDialog({ kind: "rename", index: i });
              }}
              onDelete={() => remove(i)}
            />
          ))}
        </Stack>
      )}
      <Modal opened={dialog !== null} onClose={() => setDialog(null)} closeButtonProps={{ "aria-label": "Close without saving" }} title={dialog?.kind === "rename" ? "Rename the saved search" : "Save this search"}>
        <form onSubmit={(e) => void submit(e)}>
          <Stack gap="sm">
            <TextInput label="Name" value={name} onChange={(e) => setName(e.currentTarget.value)} required maxLength={200} data-autofocus />
            {dialog?.kind === "save" && (
              <Text size="sm" c="dimmed" style={{ overflowWrap: "anywhere" }}>
                {current.query || "(every document)"} · {describeRange(current.time_range)}
              </Text>
            )}
            {writing.error && (
              <Alert role="alert" color="red">
                {apiMessage(writing.error)}
              </Alert>
            )}
            <Group justify="flex-end">
              <Button variant="default" onClick={() => setDialog(null)}>
                Cancel
              </Button>
              <Button type="submit" loading={writing.fetching} disabled={!name.trim()}>
                {dialog?.kind === "rename" ? "Rename" : "Save"}
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>
    </Stack>
  );
}

function SavedRow({ search, onRun, onRename, onDelete }: { search: SavedSearch; onRun(): void; onRename(): void; onDelete(): void }) {
  return (
    <li>
      <Group justify="space-between" gap={4} wrap="nowrap" align="flex-start">
        <Stack gap={0} style={{ minWidth: 0 }}>
          <Text size="sm" fw={600} style={{ overflowWrap: "anywhere" }}>
            {search.name}
          </Text>
          <Text size="xs" c="dimmed" ff="monospace" style={{ overflowWrap: "anywhere" }}>
            {search.query || "*"} · {describeRange(search.time_range)}
          </Text>
        </Stack>
        <Group gap={2} wrap="nowrap">
          <Button size="compact-xs" variant="subtle" onClick={onRun} aria-label={`Run saved search ${search.name}`}>
            Run
          </Button>
          <Button size="compact-xs" variant="subtle" onClick={onRename} aria-label={`Rename saved search ${search.name}`}>
            Rename
          </Button>
          <Button size="compact-xs" variant="subtle" color="red.8" onClick={onDelete} aria-label={`Delete saved search ${search.name}`}>
            Delete
          </Button>
        </Group>
      </Group>
    </li>
  );
}
