/**
 * Runs a postings plan (`./postings-plan.ts`) inside the search's transaction: the matching
 * documents' (ts, doc), newest first, from index-only scans of `search_postings`; the count (exact up
 * to the bound) and the page's ids.
 *
 * - One positive source is the driver; other positive sources and the negative ones are probes
 *   (`EXISTS` on their keys with the driver row's ts and doc: one index descent each), `@timestamp`
 *   items are conditions on ts. Several positive sources: the one with the fewest postings drives.
 * - A driver of at most ORDERED_KEYS exact keys is read in order (a merge of the keys' ranges, each
 *   newest first), so counting stops at bound + 1; other drivers (key ranges, many keys) are read
 *   whole and sorted, unless they hold more than HUGE postings: then the count is bounded from the
 *   first HUGE postings and the page is left to the JSONB path (`ids: null`).
 * - Ties on ts are broken by id (code point order, as OpenSearch's `_id`): the page's boundary
 *   timestamp is read with all its documents, and ids come from the (doc) INCLUDE (id) index.
 */
import type pg from "pg";
import type { SearchRequest } from "../search-index.ts";
import type { PostingConjunction, PostingPlan, PostingSource, TsRange } from "./postings-plan.ts";
import { allKey } from "./postings.ts";

const ORDERED_KEYS = 16;
const HUGE = 50_000;
/** Postings counted per source to choose the driver. */
const DRIVER_PROBE = 20_001;

export interface PostingsAnswer {
  /** Matches counted, at most bound + 1 (null bound: all). */
  matches: number;
  /** The page's ids; null: the JSONB path must find the page. */
  ids: string[] | null;
}

interface Row {
  ts: string;
  epoch: number;
  doc: string;
}

class Params {
  readonly values: unknown[] = [];
  p(value: unknown, cast = ""): string {
    this.values.push(value);
    return `$${this.values.length}${cast}`;
  }
}

/** null: the plan needs a probe this executor does not make (a key range that does not drive). */
export async function searchByPostings(client: pg.PoolClient, req: SearchRequest, plan: PostingPlan, bound: number | null): Promise<PostingsAnswer | null> {
  const k = req.from + req.size;
  if (plan.conjunction === null) return { matches: 0, ids: [] };
  const conj: PostingConjunction = plan.conjunction;
  const sources = conj.pos.flatMap((i) => ("source" in i ? [i.source] : []));
  const negatives = conj.neg.flatMap((i) => ("source" in i ? [i.source] : []));
  if (negatives.some((s) => s.ranges.length > 0)) return null;
  if (sources.filter((s) => s.ranges.length > 0).length > 1) return null;

  const filter = (params: Params, alias: string) => {
    const conds: string[] = [];
    if (plan.liveOnly) conds.push(`${alias}.live`);
    if (!req.access.admin) conds.push(req.access.orgId === null ? `${alias}.vis IS NULL` : `(${alias}.vis IS NULL OR ${alias}.vis && ${params.p([req.access.orgId], "::numeric[]")})`);
    return conds;
  };

  let driver: PostingSource = { keys: [allKey(req.index)], ranges: [] };
  if (sources.length === 1) driver = sources[0]!;
  else if (sources.length > 1) driver = sources.find((s) => s.ranges.length > 0) ?? (await fewestPostings(client, sources, filter));
  const probes = sources.filter((s) => s !== driver);

  /** The stream's conditions on `s` (ts items, probes). */
  const conditions = (params: Params) => {
    const conds: string[] = [];
    for (const item of conj.pos) if ("ts" in item) conds.push(tsCondition(params, item.ts));
    for (const item of conj.neg) if ("ts" in item) conds.push(`NOT (${tsCondition(params, item.ts)})`);
    for (const s of probes) conds.push(`EXISTS (SELECT 1 FROM search_postings q WHERE q.key = ANY(${params.p(s.keys, "::text[]")}) AND q.ts = s.ts AND q.doc = s.doc)`);
    for (const s of negatives) conds.push(`NOT EXISTS (SELECT 1 FROM search_postings q WHERE q.key = ANY(${params.p(s.keys, "::text[]")}) AND q.ts = s.ts AND q.doc = s.doc)`);
    return conds.length ? `WHERE ${conds.join(" AND ")}` : "";
  };
  const branches = (params: Params, ordered: boolean) => {
    const scan = (cond: string) => `SELECT p.ts, p.doc FROM search_postings p WHERE ${[cond, ...filter(params, "p")].join(" AND ")}`;
    const out: string[] = [];
    if (ordered) for (const key of driver.keys) out.push(scan(`p.key = ${params.p(key)}`));
    else if (driver.keys.length) out.push(scan(`p.key = ANY(${params.p(driver.keys, "::text[]")})`));
    for (const r of driver.ranges) out.push(scan(`p.key ${r.loInclusive ? ">=" : ">"} ${params.p(r.lo)} AND p.key ${r.hiInclusive ? "<=" : "<"} ${params.p(r.hi)}`));
    return out.map((b) => `(${b})`).join(" UNION ALL ");
  };
  // A document has one posting per key, but may have several within a range or among several keys.
  const distinct = driver.ranges.length > 0 || driver.keys.length > 1;
  const select = "SELECT s.ts::text AS ts, extract(epoch FROM s.ts)::float8 AS epoch, s.doc";
  const grouped = (params: Params, ordered: boolean, extra = "") => {
    const where = conditions(params);
    const tail = extra ? (where ? ` AND ${extra}` : `WHERE ${extra}`) : "";
    return `FROM (${branches(params, ordered)}) s ${where}${tail}${distinct ? " GROUP BY s.ts, s.doc" : ""}`;
  };

  const ordered = driver.ranges.length === 0 && driver.keys.length <= ORDERED_KEYS;
  let matches: number;
  let rows: Row[];
  if (ordered) {
    const cap = bound === null ? k : Math.max(bound + 1, k);
    const params = new Params();
    // Counted and cut in PostgreSQL: only the page's candidates (the first k rows and the rest of
    // the k-th row's timestamp) travel, not up to 10 001 rows.
    const text = `WITH m AS MATERIALIZED (SELECT s.ts, s.doc ${grouped(params, true)} ORDER BY s.ts DESC, s.doc LIMIT ${params.p(cap)}),
        b AS (SELECT m.ts FROM m ORDER BY m.ts DESC LIMIT 1 OFFSET ${params.p(Math.max(k - 1, 0))})
      SELECT n.n, n.last_ts, c.ts, c.epoch, c.doc FROM (SELECT count(*) AS n, min(m.ts)::text AS last_ts FROM m) n
      LEFT JOIN LATERAL (SELECT m.ts::text AS ts, extract(epoch FROM m.ts)::float8 AS epoch, m.doc FROM m
        WHERE ${params.p(k)} > 0 AND m.ts >= COALESCE((SELECT b.ts FROM b), '-infinity')) c ON TRUE`;
    const res = await client.query<Row & { n: string; last_ts: string | null }>(text, params.values);
    rows = res.rows.filter((r) => r.doc !== null);
    const read = Number(res.rows[0]!.n);
    if (bound === null) {
      const countParams = new Params();
      matches = Number((await client.query<{ n: string }>(`SELECT count(*) AS n FROM (SELECT 1 ${grouped(countParams, true)}) g`, countParams.values)).rows[0]!.n);
    } else matches = read;
    // The boundary timestamp may continue past what was read: read all of its documents.
    rows.sort((a, b) => (a.epoch !== b.epoch ? (b.epoch > a.epoch ? 1 : -1) : 0));
    const boundary = rows[k - 1]?.ts;
    if (k > 0 && read === cap && res.rows[0]!.last_ts === boundary) {
      const params2 = new Params();
      const more = await client.query<Row>(`${select} ${grouped(params2, true, `s.ts = ${params2.p(boundary, "::timestamptz")}`)}`, params2.values);
      const seen = new Set(rows.map((r) => r.doc));
      rows.push(...more.rows.filter((r) => !seen.has(r.doc)));
    }
  } else {
    if (driver.ranges.length > 0 && bound !== null) {
      const params = new Params();
      const sample = `SELECT count(*) AS raw, count(DISTINCT s.doc) FILTER (WHERE ${conditions(params).replace(/^WHERE /, "") || "TRUE"}) AS docs
        FROM (SELECT * FROM (${branches(params, false)}) b LIMIT ${params.p(HUGE + 1)}) s`;
      const { raw, docs } = (await client.query<{ raw: string; docs: string }>(sample, params.values)).rows[0]!;
      if (Number(raw) > HUGE && Number(docs) > bound) return { matches: bound + 1, ids: null };
    }
    const params = new Params();
    if (k === 0) {
      matches = Number((await client.query<{ n: string }>(`SELECT count(*) AS n FROM (SELECT 1 ${grouped(params, false)}) g`, params.values)).rows[0]!.n);
      rows = [];
    } else {
      const text = `${select}, count(*) OVER () AS n ${grouped(params, false)} ORDER BY s.ts DESC FETCH FIRST ${params.p(k)} ROWS WITH TIES`;
      const res = await client.query<Row & { n: string; last_ts: string | null }>(text, params.values);
      rows = res.rows;
      matches = Number(res.rows[0]?.n ?? 0);
    }
  }
  if (k === 0 || rows.length === 0) return { matches, ids: [] };
  return { matches, ids: await pageIds(client, rows, req.from, req.size) };
}

/** `@timestamp` present and within the range. */
function tsCondition(params: Params, ts: TsRange): string {
  const conds = ["s.ts > '-infinity'"];
  if (ts.lo !== null) conds.push(`s.ts >= ${params.p(new Date(ts.lo).toISOString(), "::timestamptz")}`);
  if (ts.hi !== null) conds.push(`s.ts <= ${params.p(new Date(ts.hi).toISOString(), "::timestamptz")}`);
  return conds.join(" AND ");
}

async function fewestPostings(client: pg.PoolClient, sources: PostingSource[], filter: (params: Params, alias: string) => string[]): Promise<PostingSource> {
  let best = sources[0]!;
  let fewest = Infinity;
  for (const s of sources) {
    const params = new Params();
    const where = [`p.key = ANY(${params.p(s.keys, "::text[]")})`, ...filter(params, "p")].join(" AND ");
    const limit = params.p(Math.min(DRIVER_PROBE, fewest === Infinity ? DRIVER_PROBE : fewest));
    const n = Number((await client.query<{ n: string }>(`SELECT count(*) AS n FROM (SELECT 1 FROM search_postings p WHERE ${where} LIMIT ${limit}) x`, params.values)).rows[0]!.n);
    if (n < fewest) {
      fewest = n;
      best = s;
    }
  }
  return best;
}

/** Newest first, ties by id in code point order (UTF-8 byte order, as `COLLATE "C"`). */
async function pageIds(client: pg.PoolClient, rows: Row[], from: number, size: number): Promise<string[]> {
  const byDoc = new Map(rows.map((r) => [r.doc, r]));
  const { rows: named } = await client.query<{ doc: string; id: string }>("SELECT doc, id FROM search_documents WHERE doc = ANY($1::bigint[])", [[...byDoc.keys()]]);
  const hits = named.map((n) => ({ id: n.id, epoch: byDoc.get(n.doc)!.epoch, bytes: Buffer.from(n.id) }));
  hits.sort((a, b) => (a.epoch !== b.epoch ? (b.epoch > a.epoch ? 1 : -1) : Buffer.compare(a.bytes, b.bytes)));
  return hits.slice(from, from + size).map((h) => h.id);
}
