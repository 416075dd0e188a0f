/**
 * The SQL of Explore's bulk lookup: which of a list of values live attributes the caller may read
 * hold, in ONE statement for the whole list. Values are matched as correlations match them
 * (`src/modules/correlations/correlation-store.ts`): on `value1`, or `value2` of a composite whose
 * second part is not a port, both through their hash indexes; a composite written whole
 * (`evil.exe|<sha256>`) matches both parts. Read on the search pool under the search timeout.
 * The groupings are materialized: the planner cannot estimate the readable matches (the
 * distribution rule's OR), guesses one row, and would otherwise list a value's events once per
 * value (734 ms instead of 40 for 1,000 values over 1,000,000 attributes, bench/explore-lookup.ts).
 */
import type pg from "pg";
import { readableSql } from "../../auth/distribution.ts";
import type { Principal } from "../../auth/principal.ts";
import { readStatistics } from "../../platform/statistics.ts";

/** Events listed per value (the newest changed); `eventCount` counts them all. */
export const EVENTS_PER_VALUE = 5;

export interface LookupEvent {
  uuid: string;
  info: string;
  organisation: string;
}

export interface FoundValue {
  value: string;
  count: number;
  eventCount: number;
  types: string[];
  firstSeen: Date;
  lastSeen: Date;
  events: LookupEvent[];
}

interface Row {
  found: { value: string; count: number; event_count: number; types: string[]; first_seen: string; last_seen: string; events: LookupEvent[] }[];
}

export async function findValues(pool: pg.Pool, timeoutMs: number, p: Principal, values: string[]): Promise<Map<string, FoundValue>> {
  if (values.length === 0) return new Map();
  const params: unknown[] = [values, EVENTS_PER_VALUE];
  const readable = readableSql(p, "e", ["a.distribution", "o.distribution"], params);
  const row = await readStatistics<Row>(
    pool,
    timeoutMs,
    `WITH wanted AS (SELECT DISTINCT v, split_part(v, '|', 1) AS left_part, substr(v, strpos(v, '|') + 1) AS right_part, strpos(v, '|') > 0 AS composite
                       FROM unnest($1::text[]) AS v),
     hits AS MATERIALIZED (
       SELECT w.v, a.type, a.event_id, e.timestamp AS event_ts, COALESCE(a.first_seen, to_timestamp(a.timestamp)) AS seen_from,
              COALESCE(a.last_seen, a.first_seen, to_timestamp(a.timestamp)) AS seen_to
         FROM wanted w
         JOIN attributes a ON a.value1 = w.v OR (a.value2 = w.v AND a.type NOT LIKE '%|port')
                           OR (w.composite AND a.value1 = w.left_part AND a.value2 = w.right_part)
         JOIN events e ON e.id = a.event_id
         LEFT JOIN objects o ON o.id = a.object_id
        WHERE NOT a.deleted AND NOT e.deleted AND o.deleted IS NOT TRUE AND ${readable}),
     per_value AS MATERIALIZED (
       SELECT h.v, count(*)::int AS count, count(DISTINCT h.event_id)::int AS event_count, array_agg(DISTINCT h.type ORDER BY h.type) AS types,
              min(h.seen_from) AS first_seen, max(h.seen_to) AS last_seen
         FROM hits h GROUP BY h.v),
     ranked AS (
       SELECT d.v, d.event_id, row_number() OVER (PARTITION BY d.v ORDER BY d.event_ts DESC, d.event_id DESC) AS r
         FROM (SELECT DISTINCT h.v, h.event_id, h.event_ts FROM hits h) d),
     listed AS MATERIALIZED (
       SELECT k.v, json_agg(json_build_object('uuid', e.uuid::text, 'info', e.info, 'organisation', og.name) ORDER BY k.r) AS events
         FROM ranked k JOIN events e ON e.id = k.event_id JOIN organisations og ON og.id = e.orgc_id
        WHERE k.r <= $2 GROUP BY k.v)
     SELECT COALESCE(json_agg(json_build_object('value', g.v, 'count', g.count, 'event_count', g.event_count, 'types', g.types,
              'first_seen', g.first_seen, 'last_seen', g.last_seen, 'events', COALESCE(l.events, '[]'))), '[]') AS found
       FROM per_value g LEFT JOIN listed l ON l.v = g.v`,
    params,
  );
  return new Map(
    row.found.map((f) => [
      f.value,
      { value: f.value, count: f.count, eventCount: f.event_count, types: f.types, firstSeen: new Date(f.first_seen), lastSeen: new Date(f.last_seen), events: f.events },
    ]),
  );
}
