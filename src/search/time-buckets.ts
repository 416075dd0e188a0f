/**
 * The intervals of a histogram over `@timestamp` (Explore's matches over time), in UTC, and their
 * bucket arithmetic. Both backends group by the same rule (`SearchIndex.histogram`): intervals of
 * a fixed length (minutes to a day) start at multiples of their length since the epoch, as
 * OpenSearch's `fixed_interval`; weeks (Monday), quarters, months and years start on the calendar,
 * as its `calendar_interval` (PostgreSQL: `date_trunc` in UTC).
 */
export const HISTOGRAM_INTERVALS = ["1m", "5m", "15m", "30m", "1h", "3h", "6h", "12h", "1d", "1w", "1M", "1q", "1y"] as const;
export type HistogramInterval = (typeof HISTOGRAM_INTERVALS)[number];

const MINUTE = 60_000;
const DAY = 86_400_000;

/** The fixed intervals' lengths (ms); the others are calendar units. */
export const FIXED_INTERVAL_MS: Partial<Record<HistogramInterval, number>> = {
  "1m": MINUTE,
  "5m": 5 * MINUTE,
  "15m": 15 * MINUTE,
  "30m": 30 * MINUTE,
  "1h": 60 * MINUTE,
  "3h": 180 * MINUTE,
  "6h": 360 * MINUTE,
  "12h": 720 * MINUTE,
  "1d": DAY,
};

/** PostgreSQL's `date_trunc` unit of each calendar interval. */
export const CALENDAR_UNIT: Partial<Record<HistogramInterval, "week" | "month" | "quarter" | "year">> = {
  "1w": "week",
  "1M": "month",
  "1q": "quarter",
  "1y": "year",
};

/** An interval's typical length (ms), to choose one for a range. */
export function approximateMs(interval: HistogramInterval): number {
  const fixed = FIXED_INTERVAL_MS[interval];
  if (fixed !== undefined) return fixed;
  return { "1w": 7 * DAY, "1M": 30.44 * DAY, "1q": 91.31 * DAY, "1y": 365.25 * DAY }[interval as "1w" | "1M" | "1q" | "1y"];
}

/** The start (epoch ms) of the bucket holding `ms`. */
export function bucketStart(ms: number, interval: HistogramInterval): number {
  const fixed = FIXED_INTERVAL_MS[interval];
  if (fixed !== undefined) return Math.floor(ms / fixed) * fixed;
  const d = new Date(ms);
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth();
  switch (CALENDAR_UNIT[interval]) {
    case "week": {
      const day = Math.floor(ms / DAY) * DAY;
      // getUTCDay: Sunday 0; ISO weeks start on Monday.
      return day - ((new Date(day).getUTCDay() + 6) % 7) * DAY;
    }
    case "month":
      return utc(y, m);
    case "quarter":
      return utc(y, m - (m % 3));
    default:
      return utc(y, 0);
  }
}

/** The start of the bucket after the one starting at `start`. */
export function nextBucket(start: number, interval: HistogramInterval): number {
  const fixed = FIXED_INTERVAL_MS[interval];
  if (fixed !== undefined) return start + fixed;
  if (interval === "1w") return start + 7 * DAY;
  const d = new Date(start);
  const months = { "1M": 1, "1q": 3, "1y": 12 }[interval as "1M" | "1q" | "1y"];
  return utc(d.getUTCFullYear(), d.getUTCMonth() + months);
}

/** Midnight UTC of the first day of a month (years below 100 too, which Date.UTC maps to 19xx). */
function utc(year: number, month: number): number {
  const d = new Date(0);
  d.setUTCFullYear(year, month, 1);
  return d.getTime();
}
