/**
 * What the areas' statistics methods share (counts of events and attributes by type, category and
 * tag over a time range, as the MCP `get_statistics` tool asks them): one input contract, the
 * "top keys" SQL and the read itself, on the search pool under the search timeout (a count over
 * every attribute is a search-like aggregate: it must not hold the pool that writes and logins use).
 */
import type pg from "pg";
import { z } from "zod";
import { errors } from "./errors.ts";

export const MAX_STATISTICS_TOP = 100;

export const statisticsContract = z
  .object({
    from: z.date().optional().describe("Earliest last change (timestamp), inclusive; absent: no lower bound"),
    to: z.date().optional().describe("Latest last change (timestamp), inclusive; absent: no upper bound"),
    top: z.number().int().min(1).max(MAX_STATISTICS_TOP).default(20).describe(`Keys listed per count, most frequent first, 1 to ${MAX_STATISTICS_TOP} (default 20)`),
  })
  .strict()
  .refine((r) => !r.from || !r.to || r.from.getTime() <= r.to.getTime(), { message: "must not be after to", path: ["from"] });

export type StatisticsInput = z.input<typeof statisticsContract>;
export type StatisticsQuery = z.output<typeof statisticsContract>;

export interface KeyCount {
  key: string;
  count: number;
}

/** The most frequent keys of one grouping, and how many distinct keys there are. */
export interface TopKeys {
  distinct: number;
  top: KeyCount[];
}

/**
 * `(SELECT json_build_object('distinct', …, 'top', …))` over `from` (a FROM clause, e.g. a CTE
 * with joins) grouped by `key`: the `$top` most frequent keys, ties by key.
 */
export function topKeysSql(from: string, key: string, topParam: string): string {
  return `(SELECT json_build_object(
             'distinct', (SELECT count(DISTINCT ${key})::int FROM ${from}),
             'top', COALESCE((SELECT json_agg(json_build_object('key', g.key, 'count', g.count) ORDER BY g.count DESC, g.key)
                                FROM (SELECT ${key} AS key, count(*)::int AS count FROM ${from} GROUP BY ${key} ORDER BY count(*) DESC, ${key} LIMIT ${topParam}) g), '[]'::json)))`;
}

/** Epoch seconds of the range's bounds (the `timestamp` columns), null for an open side. */
export const rangeSeconds = (q: StatisticsQuery): [number | null, number | null] => [
  q.from ? Math.floor(q.from.getTime() / 1000) : null,
  q.to ? Math.floor(q.to.getTime() / 1000) : null,
];

/**
 * One read-only statement on the search pool, cancelled after `timeoutMs`: a cancelled count is a
 * `search_timeout`, no free search connection a `search_unavailable`, as searches answer.
 */
export async function readStatistics<R extends pg.QueryResultRow>(pool: pg.Pool, timeoutMs: number, text: string, values: unknown[]): Promise<R> {
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch {
    throw errors.searchUnavailable("No search connection is free; try again shortly");
  }
  let broken = false;
  try {
    await client.query(`BEGIN READ ONLY; SET LOCAL statement_timeout = ${Math.max(1, Math.min(2_147_483_647, Math.floor(timeoutMs)))}; SET LOCAL jit = off`);
    const { rows } = await client.query<R>(text, values);
    await client.query("COMMIT");
    return rows[0];
  } catch (err) {
    await client.query("ROLLBACK").catch(() => {
      broken = true;
    });
    if ((err as { code?: string }).code === "57014") throw errors.searchTimeout("Counting took too long. Narrow the time range and try again.");
    throw err;
  } finally {
    client.release(broken);
  }
}
