/**
 * Counts over the stored pairs, as a caller may see them (both attributes readable, distribution): the statistics,
 * the events an event correlates with, the pairs per time bucket. Counts of "documents" follow the
 * correlations index, which holds each pair twice (once from each side), as the peer's does.
 */
import type { Principal } from "../../auth/principal.ts";
import type { Sql } from "../../platform/db/transaction.ts";
import type { EventView } from "../events/index.ts";
import { readableEventsSql, readableSql } from "../../auth/distribution.ts";
import { isAdmin } from "../../auth/principal.ts";
import type { HistogramInterval } from "./histogram.ts";

export interface KeyCount {
  key: string;
  docCount: number;
}

/** An attribute among the most correlated, with what the peer's `top_hits` shows of it. */
export interface CorrelatedAttribute extends KeyCount {
  type: string;
  value: string;
  eventUuid: string;
  /** Id of one correlation document that has this attribute as target. */
  sampleDocumentId: string;
}

export interface CorrelationStats {
  /** Correlation documents: two per pair. */
  totalCorrelations: number;
  /** Documents per source event (every pair counts for both of its events). */
  topCorrelatedEvents: KeyCount[];
  /** Documents per target attribute, i.e. pairs per attribute. */
  topCorrelatedAttributes: CorrelatedAttribute[];
  /** Pairs per shared value (ours, not the peer's). */
  topCorrelatedValues: KeyCount[];
}

/** The summary of an event an event read lists as related: a part of the event's own view. */
export type RelatedEvent = Pick<EventView, "uuid" | "info" | "date" | "threatLevel" | "analysis" | "distribution" | "published" | "timestamp" | "org" | "orgc"> & {
  /** Pairs of correlating attributes between the two events. */
  correlationCount: number;
};

const TOP = 10;

/** The pairs whose two attributes `p` may read (parameters are appended to `params`). */
const visiblePairs = (p: Principal, params: unknown[]) =>
  isAdmin(p)
    ? "SELECT c.* FROM correlations c"
    : `SELECT c.* FROM correlations c
         JOIN attributes sa ON sa.id = c.source_attribute_id JOIN events se ON se.id = c.source_event_id LEFT JOIN objects so ON so.id = sa.object_id
         JOIN attributes ta ON ta.id = c.target_attribute_id JOIN events te ON te.id = c.target_event_id LEFT JOIN objects tob ON tob.id = ta.object_id
        WHERE ${readableSql(p, "se", ["sa.distribution", "so.distribution"], params)} AND ${readableSql(p, "te", ["ta.distribution", "tob.distribution"], params)}`;

/**
 * The pairs of `links` (columns source_uuid, other_id, mine, theirs: the attribute ids on each side)
 * whose two attributes `p` may read.
 */
const visibleLinks = (p: Principal, params: unknown[]) =>
  isAdmin(p)
    ? "SELECT l.source_uuid, l.other_id FROM links l"
    : `SELECT l.source_uuid, l.other_id FROM links l
         JOIN attributes ma ON ma.id = l.mine JOIN events me ON me.id = ma.event_id LEFT JOIN objects mo ON mo.id = ma.object_id
         JOIN attributes ta ON ta.id = l.theirs JOIN events te ON te.id = ta.event_id LEFT JOIN objects tob ON tob.id = ta.object_id
        WHERE ${readableSql(p, "me", ["ma.distribution", "mo.distribution"], params)} AND ${readableSql(p, "te", ["ta.distribution", "tob.distribution"], params)}`;

interface StatsRow {
  pairs: number;
  events: { key: string; doc_count: number }[] | null;
  vals: { key: string; doc_count: number }[] | null;
  attributes: { key: string; doc_count: number; type: string; value: string; event_uuid: string; other_uuid: string; match_type: string }[] | null;
}

export async function correlationStats(sql: Sql, p: Principal): Promise<CorrelationStats> {
  const params: unknown[] = [];
  const { rows } = await sql.query<StatsRow>(
    `WITH visible AS MATERIALIZED (${visiblePairs(p, params)}),
     sides AS (SELECT id, source_attribute_id AS attribute_id, source_event_id AS event_id FROM visible
               UNION ALL SELECT id, target_attribute_id, target_event_id FROM visible),
     per_attribute AS (SELECT attribute_id, count(*)::int AS doc_count, min(id) AS sample_id FROM sides GROUP BY attribute_id)
     SELECT (SELECT count(*)::int FROM visible) AS pairs,
            (SELECT json_agg(t) FROM (
               SELECT e.uuid AS key, count(*)::int AS doc_count FROM sides s JOIN events e ON e.id = s.event_id
                GROUP BY e.uuid ORDER BY 2 DESC, 1 LIMIT ${TOP}) t) AS events,
            (SELECT json_agg(t) FROM (
               SELECT value AS key, count(*)::int AS doc_count FROM visible GROUP BY value ORDER BY 2 DESC, 1 LIMIT ${TOP}) t) AS vals,
            (SELECT json_agg(t) FROM (
               SELECT a.uuid AS key, pa.doc_count, a.type, a.value, e.uuid AS event_uuid, o.uuid AS other_uuid, c.match_type
                 FROM per_attribute pa JOIN attributes a ON a.id = pa.attribute_id JOIN events e ON e.id = a.event_id
                 JOIN correlations c ON c.id = pa.sample_id
                 JOIN attributes o ON o.id = CASE WHEN c.source_attribute_id = pa.attribute_id THEN c.target_attribute_id ELSE c.source_attribute_id END
                ORDER BY pa.doc_count DESC, a.uuid LIMIT ${TOP}) t) AS attributes`,
    params,
  );
  const r = rows[0];
  const counts = (list: { key: string; doc_count: number }[] | null) => (list ?? []).map((x) => ({ key: x.key, docCount: x.doc_count }));
  return {
    totalCorrelations: 2 * r.pairs,
    topCorrelatedEvents: counts(r.events),
    topCorrelatedAttributes: (r.attributes ?? []).map((a) => ({
      key: a.key,
      docCount: a.doc_count,
      type: a.type,
      value: a.value,
      eventUuid: a.event_uuid,
      sampleDocumentId: `${a.other_uuid}|${a.key}|${a.match_type}`,
    })),
    topCorrelatedValues: counts(r.vals),
  };
}

/**
 * For each listed event `p` may read: the events it shares pairs with (pairs whose two attributes
 * `p` may read), most pairs first (then by uuid), at most `limit` per event. Read through the event
 * id indexes.
 */
export async function relatedEventsOf(sql: Sql, p: Principal, eventUuids: string[], limit: number): Promise<Map<string, RelatedEvent[]>> {
  const out = new Map<string, RelatedEvent[]>(eventUuids.map((u) => [u, []]));
  if (eventUuids.length === 0) return out;
  const params: unknown[] = [eventUuids, limit];
  const { rows } = await sql.query(
    `WITH src AS (SELECT e.id, e.uuid FROM events e WHERE e.uuid = ANY($1::uuid[]) AND ${readableEventsSql(p, "e", params)}),
     links AS (SELECT s.uuid AS source_uuid, c.target_event_id AS other_id, c.source_attribute_id AS mine, c.target_attribute_id AS theirs
                 FROM src s JOIN correlations c ON c.source_event_id = s.id
               UNION ALL SELECT s.uuid, c.source_event_id, c.target_attribute_id, c.source_attribute_id FROM src s JOIN correlations c ON c.target_event_id = s.id),
     visible AS (${visibleLinks(p, params)}),
     ranked AS (SELECT v.source_uuid, o.id, count(*)::int AS pairs,
                       row_number() OVER (PARTITION BY v.source_uuid ORDER BY count(*) DESC, o.uuid) AS rank
                  FROM visible v JOIN events o ON o.id = v.other_id
                 GROUP BY v.source_uuid, o.id, o.uuid)
     SELECT r.source_uuid::text, r.pairs, o.uuid::text, o.info, to_char(o.date, 'YYYY-MM-DD') AS date, o.threat_level, o.analysis,
            o.distribution, o.published, o.timestamp,
            json_build_object('id', org.id, 'uuid', org.uuid, 'name', org.name) AS org,
            json_build_object('id', orgc.id, 'uuid', orgc.uuid, 'name', orgc.name) AS orgc
       FROM ranked r JOIN events o ON o.id = r.id JOIN organisations org ON org.id = o.org_id JOIN organisations orgc ON orgc.id = o.orgc_id
      WHERE r.rank <= $2
      ORDER BY r.source_uuid, r.rank`,
    params,
  );
  for (const r of rows) {
    out.get(r.source_uuid)?.push({
      uuid: r.uuid,
      info: r.info,
      date: r.date,
      threatLevel: r.threat_level,
      analysis: r.analysis,
      distribution: r.distribution,
      published: r.published,
      timestamp: Number(r.timestamp),
      org: r.org,
      orgc: r.orgc,
      correlationCount: r.pairs,
    });
  }
  return out;
}

const TRUNC_UNIT: Record<HistogramInterval, string> = { "1d": "day", "1w": "week", "1M": "month" };

/** Correlation documents (two per pair) per UTC calendar bucket, keyed by the bucket's start in epoch ms. */
export async function documentsPerBucket(sql: Sql, p: Principal, interval: HistogramInterval): Promise<Map<number, number>> {
  const params: unknown[] = [TRUNC_UNIT[interval]];
  const { rows } = await sql.query<{ start: number; docs: number }>(
    `SELECT (extract(epoch FROM date_trunc($1, v.created_at, 'UTC')) * 1000)::float8 AS start, 2 * count(*)::int AS docs
       FROM (${visiblePairs(p, params)}) v GROUP BY 1`,
    params,
  );
  return new Map(rows.map((r) => [r.start, r.docs]));
}
