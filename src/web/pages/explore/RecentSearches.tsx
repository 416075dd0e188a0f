import { Button, Stack, Text, Title } from "@mantine/core";
import { describeRange, type SearchEntry } from "./query.ts";

/** The last 10 searches of this browser (localStorage), newest first; one click runs one again. */
export function RecentSearches({ recent, onRun }: { recent: readonly SearchEntry[]; onRun(entry: SearchEntry): void }) {
  return (
    <Stack gap="xs" component="section" aria-labelledby="explore-recent">
      <Title order={2} size="h5" id="explore-recent">
        Recent searches
      </Title>
      {recent.length === 0 ? (
        <Text size="sm" c="dimmed">
          Searches you run appear here.
        </Text>
      ) : (
        <Stack gap={2} component="ol" aria-label="Recent searches, newest first" style={{ listStyle: "none", padding: 0, margin: 0 }}>
          {recent.map((r) => (
            <li key={`${r.query}|${JSON.stringify(r.time_range)}`}>
              <Button
                variant="subtle"
                size="compact-sm"
                fullWidth
                justify="flex-start"
                styles={{ label: { whiteSpace: "normal", textAlign: "left", overflowWrap: "anywhere" } }}
                onClick={() => onRun(r)}
                aria-label={`Run recent search ${r.query || "*"} · ${describeRange(r.time_range)}`}
              >
                <Text span size="sm" ff="monospace">
                  {r.query || "*"}
                </Text>
                <Text span size="xs" c="dimmed">
                  {` · ${describeRange(r.time_range)}`}
                </Text>
              </Button>
            </li>
          ))}
        </Stack>
      )}
    </Stack>
  );
}
