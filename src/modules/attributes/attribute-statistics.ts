import type { AppContext } from "../../app-context.ts";
import type { Principal } from "../../auth/principal.ts";
import { readableSql } from "../../auth/distribution.ts";
import { rangeSeconds, readStatistics, topKeysSql, type StatisticsQuery, type TopKeys } from "../../platform/statistics.ts";

export interface AttributeStatistics {
  /** Live attributes (not soft-deleted, nor their object or event) the caller may read, changed in the range. */
  total: number;
  /** Events those attributes belong to. */
  events: number;
  byType: TopKeys;
  byCategory: TopKeys;
  /** The attributes' own tags (an event's tags are counted with the events). */
  byTag: TopKeys;
}

interface Row {
  total: number;
  events: number;
  by_type: TopKeys;
  by_category: TopKeys;
  by_tag: TopKeys;
}

/** One statement: the readable attributes of the range once, then each grouping over them. */
export async function attributeStatistics(ctx: AppContext, p: Principal, q: StatisticsQuery): Promise<AttributeStatistics> {
  const [from, to] = rangeSeconds(q);
  const params: unknown[] = [from, to, q.top];
  const readable = readableSql(p, "e", ["a.distribution", "o.distribution"], params);
  const row = await readStatistics<Row>(
    ctx.db.searchPool,
    ctx.config.SEARCH_TIMEOUT_MS,
    `WITH a AS MATERIALIZED (
       SELECT a.id, a.type, a.category, a.event_id
         FROM attributes a JOIN events e ON e.id = a.event_id LEFT JOIN objects o ON o.id = a.object_id
        WHERE NOT a.deleted AND NOT e.deleted AND o.deleted IS NOT TRUE AND ${readable}
          AND ($1::bigint IS NULL OR a.timestamp >= $1) AND ($2::bigint IS NULL OR a.timestamp <= $2)),
     t AS MATERIALIZED (SELECT tg.name FROM a JOIN attribute_tags at ON at.attribute_id = a.id JOIN tags tg ON tg.id = at.tag_id)
     SELECT (SELECT count(*)::int FROM a) AS total,
            (SELECT count(DISTINCT event_id)::int FROM a) AS events,
            ${topKeysSql("a", "type", "$3")} AS by_type,
            ${topKeysSql("a", "category", "$3")} AS by_category,
            ${topKeysSql("t", "name", "$3")} AS by_tag`,
    params,
  );
  return { total: row.total, events: row.events, byType: row.by_type, byCategory: row.by_category, byTag: row.by_tag };
}
