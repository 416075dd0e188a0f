import { Box, Button, Code, Grid, Group, Stack, Tabs, Text, Title } from "@mantine/core";
import { useEffect, useMemo, useState } from "react";
import { useQuery } from "urql";
import { useLocation, useSearch } from "wouter";
import { LuceneSyntaxHelp } from "../../components/LuceneSyntaxHelp.tsx";
import { grants, useIdentity } from "../../lib/identity.ts";
import { BulkLookup } from "./BulkLookup.tsx";
import { ExportUrlQuery, SearchFieldsQuery } from "./documents.ts";
import { MatchHistogram } from "./MatchHistogram.tsx";
import { QueryBox, queryErrorOf } from "./QueryBox.tsx";
import { ALL_TIME, effectiveQuery, loadRecent, rangeBounds, readTimeRange, saveRecent, withRecent, type SearchEntry, type TimeRange } from "./query.ts";
import { RecentSearches } from "./RecentSearches.tsx";
import { ResultSection } from "./ResultSection.tsx";
import { SavedSearches } from "./SavedSearches.tsx";
import { TimeRangeControl } from "./TimeRangeControl.tsx";

interface Run extends SearchEntry {
  /** When it ran: presets are evaluated then (histogram bounds), and a repeated run searches again. */
  at: number;
}

/** The search in the address (`?q=…&range=…`), so a reload or a link shows the same search. */
function entryFromAddress(search: string): SearchEntry {
  const params = new URLSearchParams(search);
  let range: TimeRange | null = null;
  try {
    range = readTimeRange(JSON.parse(params.get("range") ?? "null"));
  } catch {
    range = null;
  }
  return { query: params.get("q") ?? "", time_range: range ?? ALL_TIME };
}

export default function ExplorePage() {
  const search = useSearch();
  const [, navigate] = useLocation();
  const [initial] = useState(() => entryFromAddress(search));
  const [draft, setDraft] = useState(initial.query);
  const [range, setRange] = useState<TimeRange>(initial.time_range);
  const [run, setRun] = useState<Run>({ ...initial, at: Date.now() });
  const [recent, setRecent] = useState<SearchEntry[]>(() => loadRecent(window.localStorage));
  const [tab, setTab] = useState<string | null>("search");
  const identity = useIdentity();

  const [{ data: fieldData }] = useQuery({ query: SearchFieldsQuery, requestPolicy: "cache-first" });
  const fields = fieldData?.searchFields ?? [];

  // The user's query checked alone (parse only, no search): its error positions are in their text,
  // whatever time clause wraps it for the searches.
  const checkTarget = identity && !grants(identity.scopes, "events:read") ? "ATTRIBUTES" : "EVENTS";
  const [check] = useQuery({ query: ExportUrlQuery, variables: { target: checkTarget, query: run.query }, pause: !identity });
  const queryError = useMemo(() => queryErrorOf(check.error), [check.error]);

  // A search is remembered once the API accepted its query.
  const accepted = check.data?.exploreExportUrl !== undefined && !check.fetching;
  useEffect(() => {
    if (!accepted || !run.query.trim()) return;
    setRecent((list) => {
      const next = withRecent(list, { query: run.query, time_range: run.time_range });
      saveRecent(window.localStorage, next);
      return next;
    });
  }, [accepted, run]);

  const start = (entry: SearchEntry) => {
    setDraft(entry.query);
    setRange(entry.time_range);
    setRun({ ...entry, at: Date.now() });
    setTab("search");
    const params = new URLSearchParams();
    if (entry.query) params.set("q", entry.query);
    if (!("preset" in entry.time_range && entry.time_range.preset === "all")) params.set("range", JSON.stringify(entry.time_range));
    const qs = params.toString();
    navigate(qs ? `/explore?${qs}` : "/explore", { replace: true });
  };

  const draftEffective = effectiveQuery(draft, range);
  const runEffective = effectiveQuery(run.query, run.time_range);
  const bounds = rangeBounds(run.time_range, run.at);

  return (
    <Stack gap="md">
      <Title order={1}>Explore</Title>
      <Tabs value={tab} onChange={setTab} keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="search">Search</Tabs.Tab>
          <Tabs.Tab value="bulk">Bulk lookup</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="search" pt="md">
          <Grid gap="md">
            <Grid.Col span={{ base: 12, lg: 9 }}>
              <Stack gap="md">
                <Stack
                  gap="xs"
                  component="form"
                  role="search"
                  aria-label="Explore search"
                  onSubmit={(e) => {
                    e.preventDefault();
                    start({ query: draft, time_range: range });
                  }}
                >
                  <Group align="flex-start" gap="sm" wrap="wrap">
                    <Box style={{ flex: "1 1 18rem", minWidth: 0 }}>
                      <QueryBox value={draft} onChange={setDraft} onSubmit={() => start({ query: draft, time_range: range })} fields={fields} error={queryError} />
                    </Box>
                    <TimeRangeControl value={range} onChange={setRange} />
                    <Button type="submit" mt={{ base: 0, sm: 25 }}>
                      Search
                    </Button>
                  </Group>
                  <Group gap="xs" wrap="wrap">
                    <Text size="sm">Effective query:</Text>
                    <Code data-testid="effective-query" style={{ overflowWrap: "anywhere" }}>
                      {draftEffective || "*"}
                    </Code>
                  </Group>
                  <Group gap="xs" justify="space-between" wrap="wrap">
                    <LuceneSyntaxHelp />
                    <Button
                      variant="default"
                      size="xs"
                      disabled={!draftEffective.trim()}
                      onClick={() => navigate(`/hunts/new?type=lucene&query=${encodeURIComponent(draftEffective)}`)}
                    >
                      Save as hunt
                    </Button>
                  </Group>
                </Stack>
                <MatchHistogram query={run.query} from={bounds.from} to={bounds.to} />
                <ResultSection key={`events|${runEffective}|${run.at}`} target="events" query={runEffective} />
                <ResultSection key={`attributes|${runEffective}|${run.at}`} target="attributes" query={runEffective} />
              </Stack>
            </Grid.Col>
            <Grid.Col span={{ base: 12, lg: 3 }}>
              <Stack gap="lg">
                <SavedSearches current={{ query: draft, time_range: range }} onRun={start} />
                <RecentSearches recent={recent} onRun={start} />
              </Stack>
            </Grid.Col>
          </Grid>
        </Tabs.Panel>
        <Tabs.Panel value="bulk" pt="md">
          <BulkLookup />
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );
}
