/**
 * Runs a postings plan (`./postings-plan.ts`) inside the search's transaction: the matching
 * documents' (ts, doc), newest first, from index-only scans of `search_postings`; the count (exact up
 * to the bound) and the page's ids. Oldest first is the exact reverse (`Direction`): the same reads
 * with the index walked backwards (ts ascending, doc descending: documents without `@timestamp`,
 * whose postings hold `-infinity`, first), thresholds on the other side, ties by descending id.
 * Below, "newest" is the page's first end in either order.
 *
 * - One positive source is the driver; other positive sources and the negative ones are probes
 *   (a lookup of their keys with the driver row's ts and doc: one index descent per key), `@timestamp`
 *   items are conditions on ts. Key ranges and sources of more than PROBE_KEYS keys (a pattern's
 *   terms) cannot probe: one of them drives, two (or one negated) leave the search to the JSONB path
 *   (null). Otherwise the source with the fewest postings drives.
 * - A prefix (`ukraine*`, `_exists_` of a text field) of at most PROBE_KEYS dictionary terms becomes
 *   those terms' keys.
 * - A driver of at most ORDERED_KEYS exact keys is read in order (a merge of the keys' ranges, each
 *   newest first), so counting stops at bound + 1; other drivers (key ranges, many keys) without
 *   probes count their first bound + 1 postings and take the page from the postings no older than
 *   the kept-th newest of those (`countAndNewest`); otherwise they are read
 *   whole, deduplicated and sorted once, and probed newest first until bound + 1 match, unless they
 *   hold more than HUGE postings: then the count is bounded from the first HUGE postings and the
 *   page is left to the JSONB path (`ids: null`). A numeric range counts from its highest postings
 *   first and, when they show the matches are dense among the newest documents, leaves the page to
 *   the JSONB path's newest-first walk (with the postings' page as its `fallback`); when they show
 *   many documents before the page, reads it from the postings no further than their threshold
 *   (`readFromSample`).
 * - Patterns (wildcards, regexes) are first matched against the term dictionary (`./terms.ts`): the
 *   matching terms' keys serve probes; a driving pattern reads the postings the dictionary inlines
 *   (terms with one posting: the pattern is matched again in the read, index-only) and the keys of
 *   the other terms. A lone pattern (beside facets only, too) does both in one statement. A pattern that matches more than
 *   MAX_EXPANSION terms, or that could match a term too long to be kept whole (`MAX_TERM`), is left
 *   to the JSONB path (null).
 * - A pattern beside a rare exact term (at most ROW_PATTERNS postings: `value:<d> AND
 *   value.keyword:/<case-free d>/`) is not matched against the dictionary at all: the rare term's
 *   postings select the documents and the pattern is tested on each of them (`rowTested`: the
 *   JSONB path's statement with that term as its driver, `./statements.ts` `patternsOnRow`). The
 *   dictionary pass costs what the pattern matches whatever the candidates (a case-free regex
 *   without trigrams reads every term of its length: 62.8 -> 22.8 ms at 100,000 attributes).
 * - Ties on ts are broken by id (code point order, as OpenSearch's `_id`): the page's boundary
 *   timestamp is read with all its documents, and ids come from the (doc) INCLUDE (id) index.
 */
import type pg from "pg";
import type { SearchRequest } from "../search-index.ts";
import type { KeyRange, PostingConjunction, PostingPlan, PostingSource, TsRange } from "./postings-plan.ts";
import { visibleToParam } from "./access.ts";
import { audienceCodes } from "./codes.ts";
import { facetCondition, facetValues } from "./facets.ts";
import { allKey, MAX_TERM } from "./postings.ts";
import { ROW_PATTERNS, type JsonbDriver } from "./statements.ts";
import { matchTerms, patternTermsSql, prefixTerms } from "./terms.ts";

const ORDERED_KEYS = 16;
const MAX_EXPANSION = 100_000;
const PROBE_KEYS = 256;
/** Probes of at most this many postings may be hashed (EXISTS), others are looked up per row. */
const SMALL_PROBE = 5_000;
const HUGE = 50_000;
/** `readUnordered`: the JSONB path is to answer the whole search. */
const JSONB_PATH = Symbol("jsonb path");
/** Postings kept beyond 2k for a page of unordered matches (documents may repeat among them). */
const PAGE_SLACK = 64;
/** Postings counted per source to choose the driver. */
const DRIVER_PROBE = 20_001;

export interface PostingsAnswer {
  /** Matches counted, at most bound + 1 (null bound: all). */
  matches: number;
  /** The page's ids; null: the JSONB path must find the page (its newest-first walk, first). */
  ids: string[] | null;
  /**
   * With `ids` null: the page from the postings after all, when the walk finds the matches too
   * sparse (null: the postings cannot give it either, the JSONB path's top-N must).
   */
  fallback?: () => Promise<string[] | null>;
}

interface Row {
  ts: string;
  epoch: number;
  doc: string;
}

const directionOf = (req: SearchRequest) => new Direction(req.sort.order === "asc");

class Params {
  readonly values: unknown[] = [];
  p(value: unknown, cast = ""): string {
    this.values.push(value);
    return `$${this.values.length}${cast}`;
  }
}

/**
 * The page's order of posting rows: newest first (the postings index's order) or oldest first, its
 * exact reverse (the index read backwards; `SearchRequest` sort `@timestamp` asc).
 */
class Direction {
  constructor(readonly asc: boolean) {}

  /** ORDER BY of (ts, doc) rows `alias`, as the index gives them. */
  rows(alias: string): string {
    return this.asc ? `${alias}.ts ASC, ${alias}.doc DESC` : `${alias}.ts DESC, ${alias}.doc`;
  }

  /** ORDER BY of rows `alias` by ts alone. */
  ts(alias: string): string {
    return `${alias}.ts ${this.asc ? "ASC" : "DESC"}`;
  }

  /** `alias`'s ts no further from the page's start than `threshold` (SQL). */
  notPast(alias: string, threshold: string): string {
    return `${alias}.ts ${this.asc ? "<=" : ">="} ${threshold}`;
  }

  /** `alias`'s ts strictly before `threshold` (SQL) in the page's order. */
  before(alias: string, threshold: string): string {
    return `${alias}.ts ${this.asc ? "<" : ">"} ${threshold}`;
  }

  /** The threshold that every ts is within (`notPast`). */
  get end(): string {
    return this.asc ? "'infinity'" : "'-infinity'";
  }

  /** The ts furthest into the page's order among rows `alias` (an aggregate). */
  last(alias: string): string {
    return `${this.asc ? "max" : "min"}(${alias}.ts)`;
  }

  /** Compares epochs in the page's order. */
  epochs(a: number, b: number): number {
    return a === b ? 0 : (this.asc ? a > b : b > a) ? 1 : -1;
  }
}

/** The JSONB path is to answer, with `driver`'s documents as the rows it tests (a rare term beside patterns). */
export interface RowTested {
  driver: JsonbDriver;
}

/**
 * null: the plan needs a probe this executor does not make (a key range that does not drive);
 * `RowTested`: its patterns are cheaper tested on a rare term's documents (the header).
 */
export async function searchByPostings(client: pg.PoolClient, req: SearchRequest, plan: PostingPlan, bound: number | null): Promise<PostingsAnswer | RowTested | null> {
  if (plan.conjunction === null) return { matches: 0, ids: [] };
  const rare = await rowTested(client, plan.conjunction);
  if (rare !== null) return rare;
  const audiences = req.access.admin ? null : await audienceCodes(client, visibleToParam(req.access));
  const lone = bound === null ? null : await lonePattern(client, req, plan.liveOnly, audiences, plan.conjunction);
  if (bound !== null && lone) {
    const answer = await readLonePattern(client, lone.query, lone.source, req.from + req.size, bound);
    if (answer !== undefined) return answer;
  }
  const conj = await expandPatterns(client, plan.conjunction);
  if (conj === null) return null;
  const sources = conj.pos.flatMap((i) => ("source" in i ? [i.source] : []));
  const negatives = conj.neg.flatMap((i) => ("source" in i ? [i.source] : []));
  // A pattern that matched no term.
  if (sources.some((s) => termCount(s) === 0 && s.ranges.length === 0)) return { matches: 0, ids: [] };
  // Key ranges and sources of many terms can only drive: at most one of them.
  const cannotProbe = (s: PostingSource) => s.ranges.length > 0 || termCount(s) > PROBE_KEYS;
  const mustDrive = sources.filter(cannotProbe);
  if (negatives.some(cannotProbe) || mustDrive.length > 1) return null;
  const query = new StreamSql(req, plan.liveOnly, audiences, conj, negatives);
  const counts = new PostingCounts(client, query);
  let driver: PostingSource = { keys: [allKey(req.index)], ranges: [] };
  if (sources.length === 1) driver = sources[0]!;
  else if (sources.length > 1) driver = mustDrive[0] ?? (await fewestPostings(sources, counts));
  query.drive(driver, sources);
  await query.useFacets(client);
  for (const s of query.probeSources) if ((await counts.upTo(s.keys, SMALL_PROBE + 1)) <= SMALL_PROBE) query.small.add(s);

  const k = req.from + req.size;
  const ordered = driver.ranges.length === 0 && termCount(driver) <= ORDERED_KEYS;
  // A range of numbers whose highest are likely the newest (timestamps, counters): see `readFirst`.
  const numeric = driver.keys.length === 0 && !driver.read && driver.ranges.length === 1 && driver.ranges[0]!.numeric === true;
  if (numeric && bound !== null && !query.conditional) {
    const first = await readFirst(client, query, k, bound);
    if (first === MANY) {
      const fallback = async () => {
        const all = await readUnordered(client, query, k, bound);
        return all === null || all === JSONB_PATH ? null : idsOf(client, req, all.rows);
      };
      return { matches: bound + 1, ids: null, fallback };
    }
    if (first === SPARSE) {
      const sampled = await readFromSample(client, query, k, bound);
      if (sampled !== undefined) return { matches: sampled.matches, ids: await idsOf(client, req, sampled.rows) };
    } else if (first !== undefined) return { matches: first.matches, ids: await idsOf(client, req, first.rows) };
  }
  const read = ordered ? await readOrdered(client, query, k, bound) : await readUnordered(client, query, k, bound);
  return read === JSONB_PATH ? null : read === null ? { matches: bound! + 1, ids: null } : { matches: read.matches, ids: await idsOf(client, req, read.rows) };
}

/**
 * A conjunction with a pattern (a wildcard or regex the dictionary would match) and a positive
 * source of exact keys with at most ROW_PATTERNS postings (counted unfiltered, as `jsonbDriver`
 * does: an upper bound of its documents): the one with the fewest, as the JSONB path's driver.
 * Every match has one of its keys (a positive item of the conjunction), so it may select the rows.
 */
async function rowTested(client: pg.PoolClient, conj: PostingConjunction): Promise<RowTested | null> {
  const items = [...conj.pos, ...conj.neg];
  if (!items.some((i) => "source" in i && i.source.patterns?.length)) return null;
  const exact = conj.pos.flatMap((i) => ("source" in i && !i.source.patterns?.length && i.source.ranges.length === 0 && i.source.keys.length > 0 ? [i.source.keys] : []));
  if (exact.length === 0) return null;
  const params = new Params();
  const limit = params.p(ROW_PATTERNS + 1);
  const counts = exact.map((keys) => `(SELECT count(*) FROM (SELECT 1 FROM search_postings p WHERE p.key = ANY(${keyList(params, keys)}) LIMIT ${limit}) x)`);
  const { rows } = await client.query<{ n: string[] }>(`SELECT ARRAY[${counts.join(", ")}]::text[] AS n`, params.values);
  const n = rows[0]!.n.map(Number);
  const fewest = n.indexOf(Math.min(...n));
  return n[fewest]! <= ROW_PATTERNS ? { driver: { keys: exact[fewest]!, probes: [], postings: n[fewest]! } } : null;
}

const idsOf = async (client: pg.PoolClient, req: SearchRequest, rows: Row[]) =>
  req.from + req.size === 0 || rows.length === 0 ? [] : await pageIds(client, rows, req);

/** `readFirst`: more than `bound` documents match, and the walk finds the page soon. */
const MANY = Symbol("many");
/** `readFirst`: more than `bound` documents match, and the walk would read too many before the page. */
const SPARSE = Symbol("sparse");
/** `readFirst` leaves the page to the walk when it reads fewer documents than this (~2-5 us each). */
const WALK_DOCUMENTS = 2_000;

/**
 * A numeric range's postings from its highest keys down (a quarter more than bound + 1), and the
 * newest of them for the page: enough to answer when they are all of them. When they hold more than
 * `bound` documents and fewer than WALK_DOCUMENTS documents are newer than the k-th newest of them,
 * MANY: the count is the bound's and the page is the JSONB path's newest-first walk, which then reads
 * at most those, instead of reading up to HUGE postings (`timestamp:[1700000000 TO *]` read 50,001
 * for 18 ms at 1,000,000 attributes). Only numeric ranges start so: their highest values are often
 * the newest documents' (timestamps, counters); the postings of other ranges and of many keys lie
 * in no such order, and the walk would find their matches too sparse (`_exists_:expanded.ip`).
 * SPARSE: more than `bound` documents, but the walk would read too many (`readFromSample`).
 * undefined: documents repeat among them, or the page's last timestamp may run on past what was
 * kept (the whole read decides).
 */
async function readFirst(client: pg.PoolClient, query: StreamSql, k: number, bound: number): Promise<{ matches: number; rows: Row[] } | typeof MANY | typeof SPARSE | undefined> {
  const params = new Params();
  const kept = keptFor(k);
  // A quarter more than bound + 1: documents with several of the keys do not make them too few.
  const first = bound + 1 + Math.ceil(bound / 4);
  const limit = params.p(first);
  // The documents newer than the k-th newest of these postings (at most WALK_DOCUMENTS): the
  // newest-first walk reads no more before it has the page.
  const dir = query.dir;
  const text = `WITH b AS MATERIALIZED (SELECT * FROM (${query.unorderedPostings(params, true)}) u LIMIT ${limit}),
      r AS (SELECT count(*) AS raw, ${query.distinct ? "count(DISTINCT b.doc)" : "count(*)"} AS n FROM b),
      s AS (SELECT b.ts FROM b ORDER BY ${dir.ts("b")} OFFSET ${params.p(Math.max(k - 1, 0))} LIMIT 1)
    SELECT r.raw, r.n, t.ts::text AS ts, extract(epoch FROM t.ts)::float8 AS epoch, t.doc,
      (SELECT count(*) FROM (SELECT 1 FROM search_postings a, s WHERE a.key = ${params.p(allKey(query.req.index))} AND ${dir.before("a", "s.ts")} LIMIT ${params.p(WALK_DOCUMENTS)}) w) AS newer
    FROM r LEFT JOIN LATERAL (SELECT b.ts, b.doc FROM b WHERE r.raw < ${limit} ORDER BY ${dir.rows("b")} LIMIT ${params.p(kept)}) t ON TRUE`;
  const res = await client.query<Row & { raw: string; n: string; newer: string }>(text, params.values);
  const { raw, n, newer } = res.rows[0]!;
  if (Number(n) > bound) return k === 0 || Number(newer) < WALK_DOCUMENTS ? MANY : SPARSE;
  if (Number(raw) >= first) return undefined;
  const page = pageCandidates(res.rows.filter((r) => r.doc !== null), k, kept);
  if (page === null || page.boundary !== null) return undefined;
  return { matches: Number(n), rows: page.rows };
}

/**
 * A numeric range with more than `bound` matches whose first documents in the page's order lie far
 * along the ts walk (oldest first over the newest values: `timestamp:[1700000000 TO *]` has 44,806
 * of 100,000 attributes before its oldest match): the range's first bound + 1 postings from the
 * page's end of its keys are `countAndNewest`'s sample, and the page is read from the postings no
 * further than the sample's threshold (a filter on the index tuples of the whole range: 47,196 in 32
 * ms at load 12), instead of the HUGE read and a walk that tests every document it passes (30-60 ms,
 * or past the walk's budget the top-N of every match: 250-750 ms). undefined: that statement cannot
 * answer (the whole read decides).
 */
async function readFromSample(client: pg.PoolClient, query: StreamSql, k: number, bound: number): Promise<{ matches: number; rows: Row[] } | undefined> {
  const params = new Params();
  const { read } = await countAndNewest(client, params, query.dir, (minTs) => query.unorderedPostings(params, true, minTs), k, bound);
  if (read === undefined || read === MANY_NEWER) return undefined;
  const page = pageCandidates(read.rows, k, keptFor(k));
  return page === null ? undefined : { matches: read.matches, rows: await withBoundaryRun(client, query, page) };
}

/** The SQL of the stream of matching (ts, doc): the driver's postings, filtered and probed. */
class StreamSql {
  private driver: PostingSource = { keys: [], ranges: [] };
  private probes: PostingSource[] = [];
  readonly dir: Direction;

  constructor(
    readonly req: SearchRequest,
    private readonly liveOnly: boolean,
    /** The audience codes the caller may read (`./codes.ts`); null: all (an administrator). */
    private readonly audiences: number[] | null,
    private readonly conj: PostingConjunction,
    private readonly negatives: PostingSource[],
  ) {
    this.dir = directionOf(req);
  }

  drive(driver: PostingSource, sources: PostingSource[]): void {
    this.driver = driver;
    this.probes = sources.filter((s) => s !== driver);
  }

  /** The driver's key ranges. */
  get driverRanges(): KeyRange[] {
    return this.driver.ranges;
  }

  /** A document has one posting per key, but may have several within a range or among several keys. */
  get distinct(): boolean {
    return this.driver.ranges.length > 0 || termCount(this.driver) > 1;
  }

  /**
   * The request filters and facet conditions on a postings row (index-only: `live`, `aud` and
   * `fct` are in the index).
   */
  filter(params: Params, alias: string): string[] {
    const conds: string[] = [];
    if (this.liveOnly) conds.push(`${alias}.live`);
    // `aud` NULL: everyone may read it (`visible_to` holds the public marker).
    if (this.audiences !== null) conds.push(`(${alias}.aud IS NULL OR ${alias}.aud = ANY(${params.p(this.audiences, "::int[]")}))`);
    for (const [s, codes] of this.facets) {
      const present = this.probes.includes(s);
      conds.push(facetCondition(alias, params.p(codes, "::int[]"), this.lookup(params, s, alias, true), present));
    }
    return conds;
  }

  /**
   * Probes answered by the postings' facets (`./facets.ts`), with the facet codes of their
   * documents: a test in the index tuple instead of an index descent per row.
   */
  readonly facets = new Map<PostingSource, number[]>();

  async useFacets(client: pg.PoolClient): Promise<void> {
    for (const s of [...this.probes, ...this.negatives]) {
      if (s.ranges.length > 0 || s.patterns?.length) continue;
      const values = await facetValues(client, this.req.index, s.keys);
      if (values !== null) this.facets.set(s, values);
    }
  }

  /** Whether the document of posting row `alias` has a key of `s` (one lookup per row). */
  private lookup(params: Params, s: PostingSource, alias: string, present: boolean): string {
    return `(SELECT true FROM search_postings q WHERE q.key = ANY(${params.p(s.keys, "::text[]")}) AND q.ts = ${alias}.ts AND q.doc = ${alias}.doc LIMIT 1) IS ${present ? "NOT " : ""}NULL`;
  }

  /** Conditions on a posting row `alias`: `@timestamp` items and probes (one index descent each). */
  conditions(params: Params, alias: string): string[] {
    return [...this.tsConditions(params, alias), ...this.probeConditions(params, alias)];
  }

  /** The `@timestamp` items on a posting row `alias` (tests of its index tuple). */
  private tsConditions(params: Params, alias: string): string[] {
    const conds: string[] = [];
    for (const item of this.conj.pos) if ("ts" in item) conds.push(tsCondition(params, item.ts, alias));
    for (const item of this.conj.neg) if ("ts" in item) conds.push(`NOT (${tsCondition(params, item.ts, alias)})`);
    return conds;
  }

  /** The probes of a posting row `alias` not answered by facets. */
  private probeConditions(params: Params, alias: string): string[] {
    const conds: string[] = [];
    // A probe of few postings is EXISTS, which PostgreSQL may answer from a hash of them; a probe
    // of many is a scalar subquery, one lookup per row: as EXISTS, the planner (misjudging how few
    // rows the driver has) hashed every posting of `type:domain` for 1,972 rows (130 ms).
    const probe = (s: PostingSource, present: boolean) => {
      if (!this.small.has(s)) return this.lookup(params, s, alias, present);
      const match = `q.key = ANY(${params.p(s.keys, "::text[]")}) AND q.ts = ${alias}.ts AND q.doc = ${alias}.doc`;
      return `${present ? "" : "NOT "}EXISTS (SELECT 1 FROM search_postings q WHERE ${match})`;
    };
    for (const s of this.probes) if (!this.facets.has(s)) conds.push(probe(s, true));
    for (const s of this.negatives) if (!this.facets.has(s)) conds.push(probe(s, false));
    return conds;
  }

  /** Whether matches are tested beyond the driver's filtered postings (`conditions`). */
  get conditional(): boolean {
    return [...this.conj.pos, ...this.conj.neg].some((item) => "ts" in item) || this.probeSources.length > 0;
  }

  /** The positive and negative probes not answered by facets. */
  get probeSources(): PostingSource[] {
    return [...this.probes, ...this.negatives].filter((s) => !this.facets.has(s));
  }

  /** Probes with at most SMALL_PROBE postings (`searchByPostings` counts them). */
  readonly small = new Set<PostingSource>();

  /**
   * `FROM ... [GROUP BY]` of the matching (s.ts, s.doc), each once. Ordered: one branch per key,
   * each newest first and cut at `limit` (PostgreSQL merges such branches; over plain branches it
   * reads them whole); the conditions go into the branches, but for probes beside several keys:
   * those test each document once, after the branches are merged and grouped (a document usually
   * has every token of a text term: `type:ip-dst`'s 2,880 documents hold 5,760 postings of `ip` and
   * `dst`, each probed beside `category:"network activity"`). Unordered: one branch for the keys
   * and one per range, conditions on the union.
   */
  from(params: Params, ordered: boolean, options: { limit?: number; extra?: (alias: string) => string } = {}): string {
    const where = (conds: string[]) => (conds.length ? ` WHERE ${conds.join(" AND ")}` : "");
    const extra = (alias: string) => (options.extra ? [options.extra(alias)] : []);
    const scan = (cond: string, inner: string[]) => `(SELECT p.ts, p.doc FROM search_postings p${where([cond, ...this.filter(params, "p"), ...inner])}`;
    const branches: string[] = [];
    let outer: string[] = [];
    if (ordered && this.distinct && this.probeSources.length > 0) {
      // No cut per branch: the probes may reject any number of its postings. The merge stays lazy
      // (Merge Append, Group), so the caller's LIMIT still stops the reads and the probes.
      const sorted = options.limit === undefined ? "" : ` ORDER BY ${this.dir.rows("p")}`;
      for (const key of this.driver.keys) branches.push(`${scan(`p.key = ${params.p(key)}`, [...this.tsConditions(params, "p"), ...extra("p")])}${sorted})`);
      const grouped = `SELECT s.ts, s.doc FROM (${branches.join(" UNION ALL ")}) s GROUP BY s.ts, s.doc${options.limit === undefined ? "" : ` ORDER BY ${this.dir.rows("s")}`}`;
      return `FROM (${grouped}) s${where(this.probeConditions(params, "s"))}`;
    }
    if (ordered) {
      const tail = options.limit === undefined ? ")" : ` ORDER BY ${this.dir.rows("p")} LIMIT ${params.p(options.limit)})`;
      for (const key of this.driver.keys) branches.push(`${scan(`p.key = ${params.p(key)}`, [...this.conditions(params, "p"), ...extra("p")])}${tail}`);
    } else {
      branches.push(this.unorderedPostings(params));
      outer = [...this.conditions(params, "s"), ...extra("s")];
    }
    return `FROM (${branches.join(" UNION ALL ")}) s${where(outer)}${this.distinct ? " GROUP BY s.ts, s.doc" : ""}`;
  }

  /**
   * The driver's filtered postings in index order: one branch for its keys, one per range, one for
   * the postings a pattern's terms inline in the dictionary (their keys are then not read); `minTs`: SQL of
   * the furthest timestamp wanted from the page's start (`notPast`). `firstKeys`: a range's keys from
   * the end whose documents come first in the page's order (`readFirst`).
   */
  unorderedPostings(params: Params, firstKeys = false, minTs?: string): string {
    const scan = (cond: string) => this.postingsWhere(params, cond, minTs, firstKeys);
    const out: string[] = [];
    const keys = this.driver.read?.keys ?? this.driver.keys;
    if (keys.length) out.push(scan(`p.key = ANY(${keyList(params, keys)})`));
    // The postings the dictionary inlines: the patterns' terms read again (same snapshot, same terms).
    if (this.driver.read?.inlined) {
      for (const pattern of this.driver.read.patterns) {
        const terms = patternTermsSql((v) => params.p(v), pattern);
        out.push(`(SELECT i.ts, i.doc FROM (${terms}) i WHERE ${["i.pulse = 1", ...this.notPast("i", minTs), ...this.filter(params, "i")].join(" AND ")})`);
      }
    }
    for (const r of this.driver.ranges) out.push(scan(keyRange(params, r)));
    // Every term a pattern matched has lost its postings.
    if (out.length === 0) out.push("(SELECT NULL::timestamptz AS ts, NULL::bigint AS doc WHERE false)");
    return out.join(" UNION ALL ");
  }

  /** The (ts, doc) of the filtered postings that meet `cond` (SQL on `p`), not past `minTs` (SQL) when given. */
  postingsWhere(params: Params, cond: string, minTs?: string, firstKeys = false): string {
    const conds = [cond, ...this.notPast("p", minTs), ...this.filter(params, "p")];
    // Numeric keys: the highest are often the newest documents', the lowest the oldest (`readFirst`).
    return `(SELECT p.ts, p.doc FROM search_postings p WHERE ${conds.join(" AND ")}${firstKeys ? ` ORDER BY p.key${this.dir.asc ? "" : " DESC"}` : ""})`;
  }

  /** The condition that `alias`'s posting is not past `minTs` (SQL) in the page's order, when given. */
  notPast(alias: string, minTs?: string): string[] {
    return minTs === undefined ? [] : [this.dir.notPast(alias, minTs)];
  }
}

/**
 * A list of keys for `= ANY(...)`. A long one (a pattern's terms) is hidden from the planner in a
 * subquery: given the array, it estimates each element's frequency, 17 ms for 1,659 keys.
 */
function keyList(params: Params, keys: string[]): string {
  const list = params.p(keys, "::text[]");
  return keys.length > ORDERED_KEYS ? `(SELECT ${list})::text[]` : list;
}

const SELECT_ROW = "SELECT s.ts::text AS ts, extract(epoch FROM s.ts)::float8 AS epoch, s.doc";

/**
 * Newest first, stopping after max(bound + 1, k) matches; counted and cut in PostgreSQL, so only the
 * page's candidates travel (the first k rows and the rest of the k-th row's timestamp).
 */
async function readOrdered(client: pg.PoolClient, query: StreamSql, k: number, bound: number | null): Promise<{ matches: number; rows: Row[] }> {
  const cap = bound === null ? k : Math.max(bound + 1, k);
  const params = new Params();
  const dir = query.dir;
  const text = `WITH m AS MATERIALIZED (SELECT s.ts, s.doc ${query.from(params, true, { limit: cap })} ORDER BY ${dir.rows("s")} LIMIT ${params.p(cap)}),
      b AS (SELECT m.ts FROM m ORDER BY ${dir.ts("m")} LIMIT 1 OFFSET ${params.p(Math.max(k - 1, 0))})
    SELECT n.n, n.last_ts, c.ts, c.epoch, c.doc FROM (SELECT count(*) AS n, ${dir.last("m")}::text AS last_ts FROM m) n
    LEFT JOIN LATERAL (SELECT m.ts::text AS ts, extract(epoch FROM m.ts)::float8 AS epoch, m.doc FROM m
      WHERE ${params.p(k)} > 0 AND ${dir.notPast("m", `COALESCE((SELECT b.ts FROM b), ${dir.end})`)}) c ON TRUE`;
  const res = await client.query<Row & { n: string; last_ts: string | null }>(text, params.values);
  const rows: Row[] = res.rows.filter((r) => r.doc !== null);
  const read = Number(res.rows[0]!.n);
  let matches = read;
  if (bound === null) {
    const countParams = new Params();
    matches = Number((await client.query<{ n: string }>(`SELECT count(*) AS n FROM (SELECT 1 ${query.from(countParams, true)}) g`, countParams.values)).rows[0]!.n);
  }
  // The boundary timestamp may continue past what was read: read all of its documents.
  rows.sort((a, b) => dir.epochs(a.epoch, b.epoch));
  const boundary = rows[k - 1]?.ts;
  if (k > 0 && read === cap && res.rows[0]!.last_ts === boundary) {
    const more = new Params();
    const extra = await client.query<Row>(`${SELECT_ROW} ${query.from(more, true, { extra: (alias) => `${alias}.ts = ${more.p(boundary, "::timestamptz")}` })}`, more.values);
    const seen = new Set(rows.map((r) => r.doc));
    rows.push(...extra.rows.filter((r) => !seen.has(r.doc)));
  }
  return { matches, rows };
}

/**
 * Every posting read (key ranges, many keys). With a bound, the first HUGE + 1 postings are read
 * once and answer when they are all of them: without conditions, the documents are counted
 * (`count(DISTINCT doc)`: hashing (ts, doc) pairs cost 20 ms for 33,000 postings) and the newest
 * PAGE_SLACK + 2k postings kept (a bounded sort) for the page; with conditions (probes, `@timestamp`),
 * the documents are tested newest first until bound + 1 match (a probe costs ~3 us: half of
 * `type:domain AND value:*.xyz`'s 21,000 were left out). Past HUGE with more than `bound` matches
 * among them, null: the count is the bound's, and the page is left to the JSONB path, whose
 * newest-first walk finds dense matches fast; with conditions and fewer matches, JSONB_PATH.
 */
async function readUnordered(client: pg.PoolClient, query: StreamSql, k: number, bound: number | null): Promise<{ matches: number; rows: Row[] } | null | typeof JSONB_PATH> {
  if (bound !== null && !query.conditional && (await rangePostingsEstimate(client, query.driverRanges)) <= HUGE) {
    const params = new Params();
    const { read: streamed } = await countAndNewest(client, params, query.dir, (minTs) => query.unorderedPostings(params, false, minTs), k, bound);
    if (streamed !== undefined && streamed !== MANY_NEWER) {
      const page = pageCandidates(streamed.rows, k, keptFor(k));
      if (page !== null) return { matches: streamed.matches, rows: await withBoundaryRun(client, query, page) };
    }
  }
  if (bound !== null) {
    const params = new Params();
    const conds = query.conditions(params, "o");
    const kept = keptFor(k);
    const huge = params.p(HUGE);
    // One sort, repeated documents dropped from its output; OFFSET 0 keeps the conditions above
    // it, so that LIMIT stops testing.
    const unique = query.distinct ? "DISTINCT ON (b.ts, b.doc) " : "";
    // Documents repeat only among several keys or a range: without conditions they are counted
    // among the first bound + 1 postings first (as many: more than `bound` match), among all only
    // when fewer.
    const repeats = !conds.length && query.distinct;
    const limit = conds.length || repeats ? params.p(bound + 1) : "";
    const matches = conds.length
      ? `, s AS MATERIALIZED (SELECT o.ts, o.doc FROM (SELECT ${unique}b.ts, b.doc FROM b ORDER BY ${query.dir.rows("b")} OFFSET 0) o
           WHERE ${conds.join(" AND ")} LIMIT ${limit})`
      : "";
    const s = conds.length ? "s" : "b";
    const count = repeats ? `CASE WHEN d.n = ${limit} THEN d.n ELSE (SELECT count(DISTINCT b.doc) FROM b) END` : `(SELECT count(*) FROM ${s})`;
    const text = `WITH b AS MATERIALIZED (SELECT * FROM (${query.unorderedPostings(params)}) u LIMIT ${huge} + 1),
        r AS (SELECT count(*) AS raw FROM b)${matches}${repeats ? `, d AS (SELECT count(DISTINCT f.doc) AS n FROM (SELECT b.doc FROM b LIMIT ${limit}) f)` : ""}
      SELECT r.raw, ${count} AS n,
        t.ts::text AS ts, extract(epoch FROM t.ts)::float8 AS epoch, t.doc
      FROM r${repeats ? " CROSS JOIN d" : ""} LEFT JOIN LATERAL (SELECT s.ts, s.doc FROM ${s} s WHERE r.raw <= ${huge} ORDER BY ${query.dir.rows("s")} LIMIT ${params.p(kept)}) t ON TRUE`;
    const res = await client.query<Row & { raw: string; n: string }>(text, params.values);
    const n = Number(res.rows[0]!.n);
    if (Number(res.rows[0]!.raw) <= HUGE) {
      // Matches cut at bound + 1 may stop inside the run of the page's last timestamp.
      const cut = conds.length > 0 && n > bound;
      const page = pageCandidates(res.rows.filter((r) => r.doc !== null), k, cut ? Math.min(kept, n) : kept);
      if (page !== null) return { matches: n, rows: await withBoundaryRun(client, query, page) };
    } else if (n > bound) return null;
    // Few matches among HUGE postings that would all be probed (`type:ip-dst AND timestamp:[x TO *]`
    // at 1,000,000: 480,000 probes, 1.8 s): the JSONB path starts from the selective term instead.
    else if (conds.length) return JSONB_PATH;
  }
  const params = new Params();
  if (k === 0) {
    return { matches: Number((await client.query<{ n: string }>(`SELECT count(*) AS n FROM (SELECT 1 ${query.from(params, false)}) g`, params.values)).rows[0]!.n), rows: [] };
  }
  // Text and epoch only for the rows kept, not for every match.
  const text = `SELECT t.ts::text AS ts, extract(epoch FROM t.ts)::float8 AS epoch, t.doc, t.n FROM (
      SELECT s.ts, s.doc, count(*) OVER () AS n ${query.from(params, false)} ORDER BY ${query.dir.ts("s")} FETCH FIRST ${params.p(k)} ROWS WITH TIES) t`;
  const res = await client.query<Row & { n: string }>(text, params.values);
  return { matches: Number(res.rows[0]?.n ?? 0), rows: res.rows };
}

/**
 * The planner's estimate of the postings within key ranges, from its statistics on `key`: a range
 * over many histogram buckets (`comment:*`: 150,412 estimated, 228,687 there) is about right, one
 * within a bucket (~1 % of all postings) is estimated low (`value:ukraine*`: 635 for 33,691).
 * `countAndNewest` tests every posting of its ranges against the sample's threshold (~80 ns each in
 * the index): for the ranges known to be huge, the general statement (bounded at HUGE) is cheaper.
 */
async function rangePostingsEstimate(client: pg.PoolClient, ranges: KeyRange[]): Promise<number> {
  if (ranges.length === 0) return 0;
  const params = new Params();
  const within = ranges.map((r) => `(${keyRange(params, r)})`).join(" OR ");
  const { rows } = await client.query<{ "QUERY PLAN": [{ Plan: { "Plan Rows": number } }] }>(`EXPLAIN (FORMAT JSON) SELECT 1 FROM search_postings p WHERE ${within}`, params.values);
  return rows[0]!["QUERY PLAN"][0].Plan["Plan Rows"];
}

/** `countAndNewest`: postings newer than the sample's threshold read for a page, at most. */
const NEWEST_CAP = 5_000;
/** `countAndNewest`: more than `bound` documents, and more postings newer than the threshold than its cap. */
const MANY_NEWER = Symbol("many newer");

/**
 * Documents counted among the first bound + 1 postings of a stream (`union`: SQL of (ts, doc) rows,
 * emitted twice, the second time with `ts` at least `minTs`) and the page from its newest `keptFor(k)`
 * postings, in one statement, without reading every posting into the executor: the first bound + 1
 * postings are a sample of the matches, so the stream's kept-th newest posting is no older than the
 * sample's kept-th newest (T), and the page is read from the postings no older than T: a condition on
 * the postings index's second column, tested on the index tuples (`value:ukraine*`: 33,691 postings
 * read, sorted and counted in 22-25 ms; now ~80 ns each in the index, ~300 read). `ctes`: more WITH
 * items the stream reads; `extra`: more output columns, returned as `extra`. `read` MANY_NEWER:
 * more than `bound` documents, and more postings than the cap (default NEWEST_CAP) no older than
 * T, so the page is not known; undefined: that with fewer documents, or bound + 1 postings holding
 * at most `bound` documents (the count needs more of them).
 */
async function countAndNewest<T extends object = object>(
  client: pg.PoolClient,
  params: Params,
  dir: Direction,
  union: (minTs?: string) => string,
  k: number,
  bound: number,
  options: { ctes?: string; extra?: string; cap?: number } = {},
): Promise<{ extra: T; read: { matches: number; rows: Row[] } | typeof MANY_NEWER | undefined }> {
  const kept = keptFor(k);
  const cap = params.p(options.cap ?? NEWEST_CAP);
  const text = `WITH ${options.ctes ? `${options.ctes}, ` : ""}s AS MATERIALIZED (SELECT u.ts, u.doc FROM (${union()}) u LIMIT ${params.p(bound + 1)}),
      c AS (SELECT count(*) AS raw, count(DISTINCT s.doc) AS n FROM s),
      th AS MATERIALIZED (SELECT COALESCE((SELECT s.ts FROM s ORDER BY ${dir.ts("s")} OFFSET ${params.p(Math.max(kept - 1, 0))} LIMIT 1), ${dir.end}) AS ts)
    SELECT c.raw, c.n, t.past, t.ts::text AS ts, extract(epoch FROM t.ts)::float8 AS epoch, t.doc${options.extra ? `, ${options.extra}` : ""}
    FROM c LEFT JOIN LATERAL (SELECT w.ts, w.doc, w.i > ${cap} AS past
      FROM (SELECT u.ts, u.doc, row_number() OVER () AS i FROM (${union("(SELECT th.ts FROM th)")}) u LIMIT ${cap} + 1) w
      WHERE ${params.p(kept)} > 0 ORDER BY w.i > ${cap} DESC, ${dir.rows("w")} LIMIT ${params.p(kept + 1)}) t ON TRUE`;
  const res = await client.query<Row & { raw: string; n: string; past: boolean | null }>(text, params.values);
  const first = res.rows[0]!;
  const extra = first as unknown as T;
  const [raw, n] = [Number(first.raw), Number(first.n)];
  if (raw > bound && n <= bound) return { extra, read: undefined };
  if (first.past) return { extra, read: n > bound ? MANY_NEWER : undefined };
  return { extra, read: { matches: n, rows: res.rows.filter((r) => r.doc !== null).slice(0, kept) } };
}

/**
 * The page's candidates from the newest `kept` matching postings (newest first, by doc within a
 * timestamp; a document with several matching keys repeats): the first k documents and every other
 * one of the k-th's timestamp (ties are broken by id later). `boundary`: that timestamp's run may go
 * on past what was kept, its other documents are to be read. null: fewer than k documents among
 * `kept` postings that are not all of them (a document with very many matching keys).
 */
function pageCandidates(newest: Row[], k: number, kept: number): { rows: Row[]; boundary: string | null } | null {
  const docs: Row[] = [];
  for (const row of newest) if (docs[docs.length - 1]?.doc !== row.doc) docs.push(row);
  if (newest.length < kept || k === 0) return { rows: docs, boundary: null };
  if (docs.length < k) return null;
  const boundary = docs[k - 1]!.ts;
  let end = k;
  while (end < docs.length && docs[end]!.ts === boundary) end++;
  return { rows: docs.slice(0, end), boundary: newest[newest.length - 1]!.ts === boundary ? boundary : null };
}

/** Every other matching document of the boundary's timestamp added to the page's candidates. */
async function withBoundaryRun(client: pg.PoolClient, query: StreamSql, page: { rows: Row[]; boundary: string | null }): Promise<Row[]> {
  if (page.boundary === null) return page.rows;
  const more = new Params();
  const extra = await client.query<Row>(`${SELECT_ROW} ${query.from(more, false, { extra: (alias) => `${alias}.ts = ${more.p(page.boundary, "::timestamptz")}` })}`, more.values);
  const seen = new Set(page.rows.map((r) => r.doc));
  return page.rows.concat(extra.rows.filter((r) => !seen.has(r.doc)));
}

/**
 * A pattern source that is the only positive source but for sources answered by facets
 * (`value:*.top`; `type:domain AND value:*.xyz`), as the driver of its query; null: none.
 */
async function lonePattern(client: pg.PoolClient, req: SearchRequest, liveOnly: boolean, audiences: number[] | null, conj: PostingConjunction): Promise<{ query: StreamSql; source: PostingSource } | null> {
  const pos = conj.pos.flatMap((i) => ("source" in i ? [i.source] : []));
  const neg = conj.neg.flatMap((i) => ("source" in i ? [i.source] : []));
  const patterned = pos.filter((s) => s.patterns?.length);
  if (patterned.length !== 1 || pos.length !== conj.pos.length || neg.length !== conj.neg.length) return null;
  const query = new StreamSql(req, liveOnly, audiences, conj, neg);
  query.drive(patterned[0]!, pos);
  if (query.probeSources.length) await query.useFacets(client);
  return query.probeSources.length ? null : { query, source: patterned[0]! };
}

/**
 * A lone pattern (`value:*.top`, a regex, alone or OR-ed with terms; `type:domain AND value:*.xyz`
 * with the type a facet): its terms matched and their postings read in one statement
 * (`countAndNewest`, the terms materialised once), instead of counting the terms first and matching
 * them again (the dictionary pass is most of the cost). undefined: this statement cannot answer
 * (documents repeated among the counted postings, more than HUGE postings newer than the threshold
 * with few matches, a page whose last timestamp runs on, or beside facets, a pattern of few enough
 * terms to probe with), the general path then does.
 */
async function readLonePattern(client: pg.PoolClient, query: StreamSql, source: PostingSource, k: number, bound: number): Promise<PostingsAnswer | null | undefined> {
  // Beside facets, a pattern of few terms is better probed (`type:yara AND category:*work*`): the general path.
  const guarded = query.facets.size > 0;
  const sql = new LonePatternSql(query, source, guarded);
  const kept = keptFor(k);
  const sample = new Params();
  const first = await countAndNewest<Verdicts>(client, sample, query.dir, (minTs) => sql.stream(sample, minTs), k, bound, {
    ctes: `m AS MATERIALIZED (${sql.terms(sample)})`,
    extra: sql.verdicts(sample),
    cap: HUGE,
  });
  if (first.extra.capped || Number(first.extra.terms) > MAX_EXPANSION) return null;
  if (guarded && Number(first.extra.terms) <= PROBE_KEYS) return undefined;
  if (first.read === undefined) return undefined;
  if (first.read === MANY_NEWER) return { matches: bound + 1, ids: null };
  const page = pageCandidates(first.read.rows, k, kept);
  if (page === null || page.boundary !== null) return undefined;
  return { matches: first.read.matches, ids: k === 0 || page.rows.length === 0 ? [] : await pageIds(client, page.rows, query.req) };
}

/** What the dictionary says of a lone pattern: its terms counted, and whether any may be capped. */
interface Verdicts {
  terms: string;
  capped: boolean;
}

/**
 * The SQL of a lone pattern's read: its terms from the dictionary (CTE `m`), and the stream of its
 * matching (ts, doc): the postings the dictionary inlines, those of its other terms, of its keys and ranges.
 */
class LonePatternSql {
  constructor(
    private readonly query: StreamSql,
    private readonly source: PostingSource,
    private readonly guarded: boolean,
  ) {}

  /**
   * The matching terms, as narrow rows (materialised: each column costs): `doc` (and `ts`) of an
   * inlined posting that passes the request filters, a term's key when its postings are to be read
   * (7 columns: 18 ms for the regex's 16,357 terms, 3: 11 ms).
   */
  terms(params: Params): string {
    const inlined = ["t.pulse = 1", ...this.query.filter(params, "t")].join(" AND ");
    const select = `t.ts, CASE WHEN ${inlined} THEN t.doc END AS doc, CASE WHEN t.pulse IS NULL THEN t.field || chr(1) || t.term END AS key`;
    return (this.source.patterns ?? []).map((pattern) => `(${patternTermsSql((v) => params.p(v), pattern, select)} LIMIT ${params.p(MAX_EXPANSION + 1)})`).join(" UNION ALL ");
  }

  /** Output columns `terms` and `capped` (`Verdicts`). */
  verdicts(params: Params): string {
    const cappedFields = (this.source.patterns ?? []).filter((p) => p.maxLength > MAX_TERM).map((p) => p.field);
    const capped = cappedFields.length ? `EXISTS (SELECT 1 FROM search_terms c WHERE c.field = ANY(${params.p(cappedFields, "::text[]")}) AND c.length > ${MAX_TERM})` : "false";
    return `(SELECT count(*) FROM m) AS terms, ${capped} AS capped`;
  }

  /** The matching (ts, doc), those at least `minTs` (SQL) when given. */
  stream(params: Params, minTs?: string): string {
    const scan = (cond: string) => this.query.postingsWhere(params, cond, minTs);
    const branches = [
      `(SELECT m.ts, m.doc FROM m WHERE ${["m.doc IS NOT NULL", ...this.query.notPast("m", minTs)].join(" AND ")})`,
      scan("p.key = ANY(ARRAY(SELECT m.key FROM m WHERE m.key IS NOT NULL))"),
    ];
    if (this.source.keys.length) branches.push(scan(`p.key = ANY(${keyList(params, this.source.keys)})`));
    for (const r of this.source.ranges) branches.push(scan(keyRange(params, r)));
    const enough = this.guarded ? ` WHERE (SELECT count(*) FROM m) > ${PROBE_KEYS}` : "";
    return `SELECT * FROM (${branches.join(" UNION ALL ")}) s${enough}`;
  }
}

/**
 * The conjunction with every pattern replaced by the terms it matches (`keys`, for probes) and, to
 * drive, the postings inlined in the dictionary plus the keys of the other terms; null: see the header.
 */
async function expandPatterns(client: pg.PoolClient, conj: PostingConjunction): Promise<PostingConjunction | null> {
  const expand = async (original: PostingConjunction["pos"][number]) => {
    const item = await rangesAsKeys(client, original);
    if (!("source" in item) || !item.source.patterns?.length) return item;
    let all: Set<string> | null = new Set(item.source.keys);
    const read = { keys: new Set(item.source.keys), patterns: item.source.patterns, inlined: 0, terms: item.source.keys.length };
    for (const pattern of item.source.patterns) {
      const matched = await matchTerms(client, pattern, MAX_EXPANSION, PROBE_KEYS);
      if (matched === null) return null;
      read.terms += matched.terms;
      if (read.terms > MAX_EXPANSION) return null;
      // Every key only while few enough to probe with.
      if (matched.keys === null) all = null;
      else if (all !== null) for (const key of matched.keys) all.add(key);
      for (const key of matched.unknown) read.keys.add(key);
      read.inlined += matched.inlined;
    }
    const source: PostingSource = { keys: all === null ? [] : [...all], ranges: item.source.ranges, read: { ...read, keys: [...read.keys] } };
    return { source };
  };
  const pos = await Promise.all(conj.pos.map(expand));
  const neg = await Promise.all(conj.neg.map(expand));
  if (pos.includes(null) || neg.includes(null)) return null;
  return { pos: pos as PostingConjunction["pos"], neg: neg as PostingConjunction["neg"] };
}

/**
 * A source with the prefix ranges of few dictionary terms replaced by those terms' keys: a driver
 * of few keys is read in order (stopping at the bound), and a source of keys may be a probe.
 */
async function rangesAsKeys(client: pg.PoolClient, item: PostingConjunction["pos"][number]): Promise<PostingConjunction["pos"][number]> {
  if (!("source" in item) || !item.source.ranges.some((r) => r.terms)) return item;
  const keys = new Set(item.source.keys);
  const ranges: PostingSource["ranges"] = [];
  for (const range of item.source.ranges) {
    const terms = range.terms && (await prefixTerms(client, range.terms.field, range.terms.prefix, Math.max(0, PROBE_KEYS - keys.size)));
    if (terms) for (const key of terms) keys.add(key);
    else ranges.push(range);
  }
  return { source: { ...item.source, keys: [...keys], ranges } };
}

/** How many keys a source stands for (a pattern's: its terms, also when `keys` does not list them). */
const termCount = (s: PostingSource) => (s.read ? s.read.terms : s.keys.length);

/** `p.key` within a key range. */
function keyRange(params: Params, r: PostingSource["ranges"][number]): string {
  return `p.key ${r.loInclusive ? ">=" : ">"} ${params.p(r.lo)} AND p.key ${r.hiInclusive ? "<=" : "<"} ${params.p(r.hi)}`;
}

/** How many of the newest matching postings are kept for a page of k (`pageCandidates`). */
const keptFor = (k: number) => (k === 0 ? 0 : 2 * k + PAGE_SLACK);

/** `@timestamp` present and within the range. */
function tsCondition(params: Params, ts: TsRange, alias: string): string {
  const conds = [`${alias}.ts > '-infinity'`];
  if (ts.lo !== null) conds.push(`${alias}.ts >= ${params.p(new Date(ts.lo).toISOString(), "::timestamptz")}`);
  if (ts.hi !== null) conds.push(`${alias}.ts <= ${params.p(new Date(ts.hi).toISOString(), "::timestamptz")}`);
  return conds.join(" AND ");
}

async function fewestPostings(sources: PostingSource[], counts: PostingCounts): Promise<PostingSource> {
  let best = sources[0]!;
  let fewest = DRIVER_PROBE;
  // Many keys (a pattern's terms) usually have few postings each: counted first, they cut the
  // count of a frequent term short.
  for (const s of [...sources].sort((a, b) => termCount(b) - termCount(a))) {
    // Inlined postings count unfiltered: an upper bound is enough to choose.
    const inline = s.read?.inlined ?? 0;
    const keys = s.read?.keys ?? s.keys;
    const n = inline + (inline < fewest && keys.length ? await counts.upTo(keys, fewest - inline) : 0);
    if (n < fewest) {
      fewest = n;
      best = s;
    }
  }
  return best;
}

/**
 * The filtered postings of a list of keys, counted up to a limit, once per list: a count below its
 * limit is exact and answers any later limit (the driver's choice counts the sources that become
 * probes). Lists are told apart by identity (`keys` and `read.keys` of one source differ).
 */
class PostingCounts {
  private readonly known = new Map<string[], { n: number; limit: number }>();

  constructor(
    private readonly client: pg.PoolClient,
    private readonly query: StreamSql,
  ) {}

  async upTo(keys: string[], limit: number): Promise<number> {
    const seen = this.known.get(keys);
    if (seen && (seen.n < seen.limit || seen.limit >= limit)) return Math.min(seen.n, limit);
    const params = new Params();
    const where = [`p.key = ANY(${keyList(params, keys)})`, ...this.query.filter(params, "p")].join(" AND ");
    const sql = `SELECT count(*) AS n FROM (SELECT 1 FROM search_postings p WHERE ${where} LIMIT ${params.p(limit)}) x`;
    const n = Number((await this.client.query<{ n: string }>(sql, params.values)).rows[0]!.n);
    this.known.set(keys, { n, limit });
    return n;
  }
}

/** Newest first, ties by id in code point order (UTF-8 byte order, as `COLLATE "C"`); oldest first its reverse. */
async function pageIds(client: pg.PoolClient, rows: Row[], req: SearchRequest): Promise<string[]> {
  const byDoc = new Map(rows.map((r) => [r.doc, r]));
  const { rows: named } = await client.query<{ doc: string; id: string }>("SELECT doc, id FROM search_documents WHERE doc = ANY($1::bigint[])", [[...byDoc.keys()]]);
  const hits = named.map((n) => ({ id: n.id, epoch: byDoc.get(n.doc)!.epoch, bytes: Buffer.from(n.id) }));
  const dir = directionOf(req);
  hits.sort((a, b) => dir.epochs(a.epoch, b.epoch) || (dir.asc ? Buffer.compare(b.bytes, a.bytes) : Buffer.compare(a.bytes, b.bytes)));
  return hits.slice(req.from, req.from + req.size).map((h) => h.id);
}
