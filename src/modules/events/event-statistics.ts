import type { AppContext } from "../../app-context.ts";
import type { Principal } from "../../auth/principal.ts";
import { readableEventsSql } from "../../auth/distribution.ts";
import { rangeSeconds, readStatistics, topKeysSql, type StatisticsQuery, type TopKeys } from "../../platform/statistics.ts";

export interface EventStatistics {
  /** Live (not soft-deleted) events the caller may read, changed in the range. */
  total: number;
  published: number;
  /** By MISP threat level, as text: "1" high … "4" undefined. */
  byThreatLevel: TopKeys;
  /** The events' own tags (TLP markings, taxonomies, galaxy clusters). */
  byTag: TopKeys;
}

interface Row {
  total: number;
  published: number;
  by_threat_level: TopKeys;
  by_tag: TopKeys;
}

export async function eventStatistics(ctx: AppContext, p: Principal, q: StatisticsQuery): Promise<EventStatistics> {
  const [from, to] = rangeSeconds(q);
  const params: unknown[] = [from, to, q.top];
  const readable = readableEventsSql(p, "e", params);
  const row = await readStatistics<Row>(
    ctx.db.searchPool,
    ctx.config.SEARCH_TIMEOUT_MS,
    `WITH ev AS MATERIALIZED (
       SELECT e.id, e.threat_level::text AS threat_level, e.published FROM events e
        WHERE NOT e.deleted AND ${readable}
          AND ($1::bigint IS NULL OR e.timestamp >= $1) AND ($2::bigint IS NULL OR e.timestamp <= $2)),
     t AS MATERIALIZED (SELECT tg.name FROM ev JOIN event_tags et ON et.event_id = ev.id JOIN tags tg ON tg.id = et.tag_id)
     SELECT (SELECT count(*)::int FROM ev) AS total,
            (SELECT count(*)::int FROM ev WHERE published) AS published,
            ${topKeysSql("ev", "threat_level", "$3")} AS by_threat_level,
            ${topKeysSql("t", "name", "$3")} AS by_tag`,
    params,
  );
  return { total: row.total, published: row.published, byThreatLevel: row.by_threat_level, byTag: row.by_tag };
}
