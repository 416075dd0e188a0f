/**
 * Explore's histogram of matches over time: the matches of a query on one index, counted per
 * `@timestamp` bucket by the search backend (`SearchIndex.histogram`), under the same access rule
 * and `deleted: false` filter as the searches, with the empty buckets of the range filled in.
 *
 * The range is `from`..`to` as given. An open side ends at the matches (one more backend request
 * first: their range, at yearly buckets): without `from` the range starts at the earliest match,
 * without `to` it ends now or at the latest match when that is later (documents stamped a moment
 * ahead, future-dated data), keeping at most MAX_BUCKETS years next to the given side. The
 * interval is the finest giving at most TARGET_BUCKETS buckets (1 minute to 1 year); a given range
 * that would need more than MAX_BUCKETS even by years is refused (422).
 */
import type { AppContext } from "../../app-context.ts";
import { searchAccessOf } from "../../auth/distribution.ts";
import type { Principal } from "../../auth/principal.ts";
import { errors } from "../../platform/errors.ts";
import { INDEX_FIELDS } from "../../search/fields.ts";
import type { LuceneAst } from "../../search/lucene/ast.ts";
import type { HistogramRequest, IndexName } from "../../search/search-index.ts";
import { approximateMs, bucketStart, HISTOGRAM_INTERVALS, nextBucket, type HistogramInterval } from "../../search/time-buckets.ts";
import { withTimeRange } from "./explore-export.ts";
import type { SearchHistogramInput } from "./search.contracts.ts";

const TARGET_BUCKETS = 100;
export const MAX_BUCKETS = 1_000;

export interface HistogramBucket {
  start: Date;
  count: number;
}

export interface SearchHistogram {
  index: "events" | "attributes";
  interval: HistogramInterval;
  /** The range counted: buckets cover it from the one holding `from` to the one holding `to`. */
  from: Date;
  to: Date;
  /** Matches in the range with an `@timestamp` (the buckets' sum). */
  total: number;
  buckets: HistogramBucket[];
}

const INDEX_OF: Record<SearchHistogramInput["index"], IndexName> = { events: "svc-events", attributes: "svc-attributes" };

/** The finest interval giving at most TARGET_BUCKETS buckets over the span (years when none does). */
export function intervalFor(spanMs: number): HistogramInterval {
  return HISTOGRAM_INTERVALS.find((i) => spanMs / approximateMs(i) <= TARGET_BUCKETS) ?? "1y";
}

/** The bucket starts from the one holding `lo` to the one holding `hi`; null beyond `max` of them. */
export function bucketStarts(lo: number, hi: number, interval: HistogramInterval, max: number): number[] | null {
  const starts: number[] = [];
  for (let s = bucketStart(lo, interval); s <= hi; s = nextBucket(s, interval)) {
    if (starts.length === max) return null;
    starts.push(s);
  }
  return starts;
}

/** Whether lo..hi takes at most MAX_BUCKETS buckets of a year. */
const fits = (lo: number, hi: number) => bucketStarts(lo, hi, "1y", MAX_BUCKETS) !== null;

function yearStart(year: number): number {
  const d = new Date(0);
  d.setUTCFullYear(year, 0, 1);
  return d.getTime();
}

/** Runs in the caller's search slot (the service's `limited`); `query` is already parsed (400s). */
export async function searchHistogram(ctx: AppContext, p: Principal, input: SearchHistogramInput, query: LuceneAst): Promise<SearchHistogram> {
  const index = INDEX_OF[input.index];
  const request = (interval: HistogramInterval, lo: Date | undefined, hi: Date | undefined): HistogramRequest => ({
    index,
    query: withTimeRange(query, lo, hi),
    defaultFields: INDEX_FIELDS[index].defaultFields,
    access: searchAccessOf(p),
    filters: { deleted: false },
    interval,
    timeoutMs: ctx.config.SEARCH_TIMEOUT_MS,
  });
  const now = Date.now();
  const from = input.from?.getTime();
  const to = input.to?.getTime();
  if (from !== undefined && !fits(from, to ?? Math.max(now, from))) {
    throw errors.invalidInput(["from"], `the range spans more than ${MAX_BUCKETS} years; narrow it`, input.from?.toISOString());
  }
  let lo = from;
  let hi = to;
  if (lo === undefined || hi === undefined) {
    // An open side ends at the matches (or now, when they end earlier): one request for their range first.
    const range = await ctx.search.histogram(request("1y", input.from, input.to));
    if (range.min === null || range.max === null) {
      if (from === undefined) return { index: input.index, interval: intervalFor(0), from: new Date(hi ?? now), to: new Date(hi ?? now), total: 0, buckets: [] };
      hi ??= Math.max(now, from);
    } else {
      hi ??= Math.max(now, range.max);
      lo ??= range.min;
    }
    // Matches dated absurdly far from the given side: the MAX_BUCKETS years next to it.
    if (!fits(lo!, hi)) {
      if (from === undefined) lo = yearStart(new Date(hi).getUTCFullYear() - MAX_BUCKETS + 1);
      else hi = yearStart(new Date(lo!).getUTCFullYear() + MAX_BUCKETS) - 1;
    }
  }
  const start = lo!;
  const interval = intervalFor(hi - start);
  const starts = bucketStarts(start, hi, interval, MAX_BUCKETS)!;
  const counted = await ctx.search.histogram(request(interval, new Date(start), new Date(hi)));
  const counts = new Map(counted.buckets.map((b) => [b.start, b.count]));
  const buckets = starts.map((s) => ({ start: new Date(s), count: counts.get(s) ?? 0 }));
  return { index: input.index, interval, from: new Date(start), to: new Date(hi), total: buckets.reduce((n, b) => n + b.count, 0), buckets };
}
