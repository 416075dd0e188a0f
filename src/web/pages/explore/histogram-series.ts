import type { ExploreSearchHistogramQuery } from "../../gql/graphql.ts";

export type Histogram = ExploreSearchHistogramQuery["searchHistogram"];

/** The two indices' histograms on one time axis (uPlot's data: seconds, then one count per series). */
export interface Series {
  /** Bucket starts, epoch seconds, ascending. */
  xs: number[];
  events: (number | null)[];
  attributes: (number | null)[];
  eventTotal: number;
  attributeTotal: number;
  interval: string;
  from: string;
  to: string;
}

const INTERVAL_WORDS: Record<string, string> = {
  "1m": "minute",
  "5m": "5 minutes",
  "15m": "15 minutes",
  "30m": "30 minutes",
  "1h": "hour",
  "3h": "3 hours",
  "6h": "6 hours",
  "12h": "12 hours",
  "1d": "day",
  "1w": "week",
  "1M": "month",
  "1q": "quarter",
  "1y": "year",
};

/** "per week", "per 5 minutes". */
export const intervalWords = (interval: string) => `per ${INTERVAL_WORDS[interval] ?? interval}`;

/**
 * Both histograms over the union of their bucket starts (they are counted over the same range, so
 * their buckets coincide; a missing one is null, not 0, so the chart does not invent a count).
 * Null when neither index was counted.
 */
export function combine(events: Histogram | null, attributes: Histogram | null): Series | null {
  const both = [events, attributes].filter((h): h is Histogram => h !== null);
  if (both.length === 0) return null;
  const starts = [...new Set(both.flatMap((h) => h.buckets.map((b) => Date.parse(b.start))))].sort((a, b) => a - b);
  const countsOf = (h: Histogram | null) => {
    if (!h) return starts.map(() => null);
    const m = new Map(h.buckets.map((b) => [Date.parse(b.start), b.count]));
    return starts.map((s) => m.get(s) ?? null);
  };
  const widest = both.reduce((a, b) => (b.buckets.length > a.buckets.length ? b : a));
  return {
    xs: starts.map((s) => s / 1000),
    events: countsOf(events),
    attributes: countsOf(attributes),
    eventTotal: events?.total ?? 0,
    attributeTotal: attributes?.total ?? 0,
    interval: widest.interval,
    from: new Date(Math.min(...both.map((h) => Date.parse(h.from)))).toISOString(),
    to: new Date(Math.max(...both.map((h) => Date.parse(h.to)))).toISOString(),
  };
}

const when = (iso: string) => new Date(iso).toLocaleString("en", { dateStyle: "medium", timeStyle: "short" });
const count = (n: number, one: string, many: string) => `${n.toLocaleString("en")} ${n === 1 ? one : many}`;

/** The chart's text alternative. */
export function describeSeries(s: Series, counted: { events: boolean; attributes: boolean }): string {
  const parts = [counted.events ? count(s.eventTotal, "event", "events") : null, counted.attributes ? count(s.attributeTotal, "attribute", "attributes") : null].filter(Boolean);
  return `Matches over time: ${parts.join(", ")} between ${when(s.from)} and ${when(s.to)}, ${intervalWords(s.interval)}`;
}
