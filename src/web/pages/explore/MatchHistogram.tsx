import { Box, Group, Paper, Table, Text, Title, VisuallyHidden } from "@mantine/core";
import { useEffect, useMemo, useRef, useState } from "react";
import { useClient, type CombinedError } from "urql";
import type uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import { Busy } from "../../components/Busy.tsx";
import { ErrorAlert } from "../../components/ErrorAlert.tsx";
import type { ExploreIndex } from "../../gql/graphql.ts";
import { grants, useIdentity } from "../../lib/identity.ts";
import { SearchHistogramQuery } from "./explore-documents.ts";
import { combine, describeSeries, intervalWords, type Histogram, type Series } from "./histogram-series.ts";

const COLOURS = { events: "#1864ab", attributes: "#c2255c" } as const;
const HEIGHT = 180;

type State = { status: "loading" } | { status: "error"; error: CombinedError } | { status: "done"; events: Histogram | null; attributes: Histogram | null };

/**
 * Matches of the user's query over time in both indices, as one chart (uPlot, loaded with the
 * chart) with a text alternative: a summary as the image's name and a table of the non-empty
 * intervals for screen readers. The two histograms are asked one after the other: the user's
 * concurrent searches are limited, and the result tables search at the same time (a query refused
 * while too many run is sent again by the client, `lib/graphql-client.ts`). Without a start, each
 * index counts from its own earliest match; they are then counted again over the common range so their intervals line up.
 */
export function MatchHistogram({ query, from, to }: { query: string; from: string | null; to: string | null }) {
  const client = useClient();
  const identity = useIdentity();
  const readsEvents = identity ? grants(identity.scopes, "events:read") : false;
  const readsAttributes = identity ? grants(identity.scopes, "attributes:read") : false;
  const known = identity !== null;
  const [state, setState] = useState<State>({ status: "loading" });

  useEffect(() => {
    if (!known) return;
    let cancelled = false;
    setState({ status: "loading" });
    const count = async (index: ExploreIndex, lo: string | null, hi: string | null): Promise<Histogram> => {
      const r = await client.query(SearchHistogramQuery, { index, query, from: lo, to: hi }, { requestPolicy: "network-only" }).toPromise();
      if (r.error || !r.data) throw r.error ?? new Error("No histogram");
      return r.data.searchHistogram;
    };
    const run = async () => {
      let events = readsEvents ? await count("EVENTS", from, to) : null;
      let attributes = readsAttributes && !cancelled ? await count("ATTRIBUTES", from, to) : null;
      if (!from && events && attributes && events.total > 0 && attributes.total > 0 && (events.from !== attributes.from || events.interval !== attributes.interval)) {
        const lo = events.from < attributes.from ? events.from : attributes.from;
        const hi = events.to > attributes.to ? events.to : attributes.to;
        events = await count("EVENTS", lo, hi);
        attributes = await count("ATTRIBUTES", lo, hi);
      }
      return { events, attributes };
    };
    run().then(
      (done) => !cancelled && setState({ status: "done", ...done }),
      (error: CombinedError) => !cancelled && setState({ status: "error", error }),
    );
    return () => {
      cancelled = true;
    };
  }, [client, known, readsEvents, readsAttributes, query, from, to]);
  // Once per answer: the chart is drawn again only when its data change, not when the page renders.
  const series = useMemo(() => (state.status === "done" ? combine(state.events, state.attributes) : null), [state]);

  return (
    <Paper withBorder p="sm" component="section" aria-labelledby="explore-histogram">
      <Title order={2} size="h4" id="explore-histogram" mb="xs">
        Matches over time
      </Title>
      {state.status === "loading" ? (
        <Busy label="Counting matches over time" minHeight={HEIGHT} />
      ) : state.status === "error" ? (
        state.error.graphQLErrors?.some((e) => e.extensions?.code === "invalid_query") ? (
          <Text size="sm">No histogram: the query is not valid (see the query box).</Text>
        ) : (
          <ErrorAlert error={state.error} title="The histogram could not be counted" />
        )
      ) : (
        <Chart series={series} counted={{ events: state.events !== null, attributes: state.attributes !== null }} />
      )}
    </Paper>
  );
}

function Chart({ series, counted }: { series: Series | null; counted: { events: boolean; attributes: boolean } }) {
  if (!series || series.eventTotal + series.attributeTotal === 0) {
    return <Text size="sm">No matches with a timestamp in this range.</Text>;
  }
  const label = describeSeries(series, counted);
  const rows = series.xs.map((x, i) => ({ x, events: series.events[i] ?? 0, attributes: series.attributes[i] ?? 0 })).filter((r) => r.events + r.attributes > 0);
  return (
    <>
      <Group gap="md" mb={4} aria-hidden="true">
        {counted.events && <Key colour={COLOURS.events} text={`Events (${series.eventTotal.toLocaleString("en")})`} />}
        {counted.attributes && <Key colour={COLOURS.attributes} text={`Attributes (${series.attributeTotal.toLocaleString("en")})`} />}
        <Text size="sm" c="dimmed">
          {intervalWords(series.interval)}
        </Text>
      </Group>
      <Plot series={series} counted={counted} label={label} />
      <VisuallyHidden>
        <Table>
          <caption>Matches {intervalWords(series.interval)}, intervals with matches only</caption>
          <thead>
            <tr>
              <th scope="col">Interval starting</th>
              {counted.events && <th scope="col">Events</th>}
              {counted.attributes && <th scope="col">Attributes</th>}
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.x}>
                <td>{new Date(r.x * 1000).toLocaleString("en", { dateStyle: "medium", timeStyle: "short" })}</td>
                {counted.events && <td>{r.events}</td>}
                {counted.attributes && <td>{r.attributes}</td>}
              </tr>
            ))}
          </tbody>
        </Table>
      </VisuallyHidden>
    </>
  );
}

function Key({ colour, text }: { colour: string; text: string }) {
  return (
    <Group gap={6}>
      <Box w={12} h={12} style={{ background: colour, borderRadius: 2 }} />
      <Text size="sm">{text}</Text>
    </Group>
  );
}

/** The uPlot chart, sized to its box and redrawn at its width when that changes. */
function Plot({ series, counted, label }: { series: Series; counted: { events: boolean; attributes: boolean }; label: string }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    let plot: uPlot | null = null;
    let observer: ResizeObserver | null = null;
    let gone = false;
    void import("uplot").then(({ default: UPlot }) => {
      if (gone) return;
      const bars = (align: -1 | 1) => UPlot.paths.bars!({ size: [counted.events && counted.attributes ? 0.45 : 0.9, 48, 2], align });
      const bar = (name: string, colour: string, align: -1 | 1, show: boolean): uPlot.Series => ({ label: name, show, stroke: colour, fill: `${colour}cc`, width: 0, paths: bars(align), points: { show: false } });
      plot = new UPlot(
        {
          width: Math.max(el.clientWidth, 200),
          height: HEIGHT,
          legend: { show: false },
          cursor: { show: false },
          scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
          axes: [{ stroke: "#495057" }, { stroke: "#495057", size: 48 }],
          series: [{}, bar("Events", COLOURS.events, -1, counted.events), bar("Attributes", COLOURS.attributes, 1, counted.attributes)],
        },
        [series.xs, series.events, series.attributes],
        el,
      );
      observer = new ResizeObserver(() => plot?.setSize({ width: Math.max(el.clientWidth, 200), height: HEIGHT }));
      observer.observe(el);
    });
    return () => {
      gone = true;
      observer?.disconnect();
      plot?.destroy();
    };
  }, [series, counted.events, counted.attributes]);
  return <div ref={box} role="img" aria-label={label} data-testid="match-histogram" style={{ minHeight: HEIGHT }} />;
}
