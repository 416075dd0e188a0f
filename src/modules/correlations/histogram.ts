/**
 * GET /correlations/histogram: correlation documents (two per pair, one per direction, as the
 * search counts them) per calendar day, week (from Monday) or month in UTC, from the bucket of the
 * first document to the bucket of the last, empty buckets included: what OpenSearch's
 * `date_histogram` with `min_doc_count: 0` answers, computed without aggregations so that both
 * search backends serve it through the SearchIndex interface.
 */
import { errors } from "../../platform/errors.ts";
import { INDEX_FIELDS } from "../../search/fields.ts";
import type { LuceneAst } from "../../search/lucene/ast.ts";
import type { SearchAccess, SearchHit, SearchIndex, SearchResult } from "../../search/search-index.ts";
import { searchFailure } from "../search/index.ts";

export const HISTOGRAM_INTERVALS = ["1d", "1w", "1M"] as const;
export type HistogramInterval = (typeof HISTOGRAM_INTERVALS)[number];

export interface HistogramBucket {
  /** Start of the bucket, epoch milliseconds. */
  key: number;
  keyAsString: string;
  docCount: number;
}

/** A histogram longer than this is refused: the caller asks for a longer interval. */
export const MAX_BUCKETS = 5000;
/** A time range with at most this many matching documents is read in one search and counted here. */
const READ_AT_ONCE = 1000;
/** Searches one histogram may run; past it the query matches too much over too many buckets. */
const MAX_SEARCHES = 200;
const DAY_MS = 86_400_000;

export const isHistogramInterval = (v: string): v is HistogramInterval => (HISTOGRAM_INTERVALS as readonly string[]).includes(v);

/** Start of the UTC calendar bucket holding `ms` (ISO weeks start on Monday, as OpenSearch's). */
export function bucketStart(ms: number, interval: HistogramInterval): number {
  const d = new Date(ms);
  if (interval === "1M") return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  const midnight = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
  return interval === "1d" ? midnight : midnight - ((d.getUTCDay() + 6) % 7) * DAY_MS;
}

function nextBucket(start: number, interval: HistogramInterval): number {
  if (interval !== "1M") return start + (interval === "1d" ? DAY_MS : 7 * DAY_MS);
  const d = new Date(start);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}

/** Starts of the buckets from the one holding `first` to the one holding `last`. */
function bucketStarts(first: number, last: number, interval: HistogramInterval): number[] {
  const starts: number[] = [];
  for (let s = bucketStart(first, interval); s <= last; s = nextBucket(s, interval)) {
    if (starts.length === MAX_BUCKETS) {
      throw errors.invalidInput(["interval"], `the correlations span more than ${MAX_BUCKETS} buckets of ${interval}: use a longer interval`, interval);
    }
    starts.push(s);
  }
  return starts;
}

const bucket = (start: number, docCount: number): HistogramBucket => ({ key: start, keyAsString: new Date(start).toISOString(), docCount });

/** The histogram of documents counted per bucket start (missing starts are empty buckets). */
export function histogramOfCounts(counts: Map<number, number>, interval: HistogramInterval): HistogramBucket[] {
  if (counts.size === 0) return [];
  const starts = [...counts.keys()].sort((a, b) => a - b);
  return bucketStarts(starts[0], starts[starts.length - 1], interval).map((s) => bucket(s, counts.get(s) ?? 0));
}

const timeOf = (hit: SearchHit) => Date.parse(String(hit.source["@timestamp"]));

/** `query` restricted to `@timestamp` in [from, to), bounds in epoch milliseconds (both backends read them). */
const within = (query: LuceneAst, from: number, to: number): LuceneAst => ({
  kind: "bool",
  must: [query, { kind: "range", field: "@timestamp", lower: String(from), upper: String(to), includeLower: true, includeUpper: false }],
  should: [],
  mustNot: [],
});

/**
 * The histogram of the correlation documents matching `query`: the first and last match bound
 * it; then a time range is searched whole when it holds at most READ_AT_ONCE matches (their
 * times counted here), else halved, and a single bucket is counted exactly. Sparse or small
 * results cost a few searches, whatever the number of buckets.
 */
export async function histogramOverSearch(
  search: SearchIndex,
  access: SearchAccess,
  query: LuceneAst,
  interval: HistogramInterval,
  timeoutMs: number,
): Promise<HistogramBucket[]> {
  let searches = 0;
  const run = (q: LuceneAst, size: number, order: "asc" | "desc", trackTotalHits: number | true): Promise<SearchResult> => {
    if (++searches > MAX_SEARCHES) {
      throw errors.invalidInput(["query"], `the query matches too many correlations over too many buckets of ${interval}: narrow it or use a longer interval`);
    }
    const index = "svc-correlations";
    return search
      .search({ index, query: q, defaultFields: INDEX_FIELDS[index].defaultFields, access, from: 0, size, sort: { field: "@timestamp", order }, timeoutMs, trackTotalHits })
      .catch((err: unknown) => {
        throw searchFailure(err);
      });
  };
  const [first, last] = await Promise.all([run(query, 1, "asc", 1), run(query, 1, "desc", 1)]);
  if (first.hits.length === 0 || last.hits.length === 0) return [];
  const starts = bucketStarts(timeOf(first.hits[0]), timeOf(last.hits[0]), interval);
  const slot = new Map(starts.map((s, i) => [s, i]));
  const counts = starts.map(() => 0);
  const end = (i: number) => nextBucket(starts[i], interval);

  const count = async (lo: number, hi: number): Promise<void> => {
    if (hi - lo === 1) {
      counts[lo] = (await run(within(query, starts[lo], end(lo)), 0, "asc", true)).total;
      return;
    }
    const r = await run(within(query, starts[lo], end(hi - 1)), READ_AT_ONCE, "asc", READ_AT_ONCE);
    if (r.totalRelation === "eq") {
      for (const h of r.hits) {
        const i = slot.get(bucketStart(timeOf(h), interval));
        if (i !== undefined) counts[i] += 1;
      }
      return;
    }
    const mid = Math.floor((lo + hi) / 2);
    await count(lo, mid);
    await count(mid, hi);
  };
  await count(0, starts.length);
  return starts.map((s, i) => bucket(s, counts[i]));
}
