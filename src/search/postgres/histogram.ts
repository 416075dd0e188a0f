/**
 * A histogram of matches over `@timestamp` on the PostgreSQL backend (`SearchIndex.histogram`):
 * one grouped statement over the same condition as a search (`./statements.ts` `whereOf`: index,
 * query, access, filters), in a read-only transaction under the search timeout. Buckets as
 * OpenSearch's `date_histogram` (`../time-buckets.ts`): fixed intervals are multiples of their
 * length since the epoch, calendar ones `date_trunc` in UTC. Each group also gives its earliest and
 * latest `ts`, so the range of the matches costs no second statement.
 */
import type pg from "pg";
import type { HistogramRequest, HistogramResult } from "../search-index.ts";
import { CALENDAR_UNIT, FIXED_INTERVAL_MS } from "../time-buckets.ts";
import { SqlCompiler } from "./compile.ts";
import { withFuzzyExpanded } from "./fuzzy.ts";
import { inReadOnlyTransaction, rowsOf } from "./read-only.ts";
import { jsonbDriver, whereOf } from "./statements.ts";

interface Row {
  start: number;
  n: number;
  lo: number;
  hi: number;
}

const epochMs = (ts: string) => `(extract(epoch FROM ${ts}) * 1000)::float8`;

export async function histogramOf(pool: pg.Pool, req: HistogramRequest): Promise<HistogramResult> {
  const now = Date.now();
  const timeoutMs = Math.min(2_147_483_647, Math.max(1, Math.floor(req.timeoutMs)));
  const query = await withFuzzyExpanded(pool, req, now, timeoutMs);
  // Validated (400s) before the driver's postings are counted.
  whereOf(new SqlCompiler(req.index, req.defaultFields, now), { ...req, query });
  return inReadOnlyTransaction(pool, timeoutMs, "read committed", async (client) => {
    const c = new SqlCompiler(req.index, req.defaultFields, now);
    const where = whereOf(c, { ...req, query }, await jsonbDriver(client, { ...req, query }, now));
    const fixed = FIXED_INTERVAL_MS[req.interval];
    const bucket =
      fixed !== undefined
        ? `(floor(extract(epoch FROM d.ts) * 1000 / ${c.p(fixed)}::numeric) * ${c.p(fixed)}::numeric)::float8`
        : epochMs(`date_trunc(${c.p(CALENDAR_UNIT[req.interval])}::text, d.ts, 'UTC')`);
    const text = `SELECT ${bucket} AS start, count(*)::int AS n, ${epochMs("min(d.ts)")} AS lo, ${epochMs("max(d.ts)")} AS hi
      FROM search_documents d WHERE ${where} AND d.ts IS NOT NULL GROUP BY 1 ORDER BY 1`;
    const rows = await rowsOf<Row>(client, text, c.params);
    return {
      buckets: rows.map((r) => ({ start: r.start, count: r.n })),
      min: rows.length ? Math.min(...rows.map((r) => r.lo)) : null,
      max: rows.length ? Math.max(...rows.map((r) => r.hi)) : null,
    };
  });
}
