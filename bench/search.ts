/**
 * Search benchmark: the PostgreSQL and OpenSearch backends of `SearchIndex` side by side, in one run,
 * over the same synthetic documents (`./search-data.ts`: 10 000 events x 100 attributes generated
 * from the real value distributions of ../shared/data, deterministic).
 *
 * 1. Indexing: documents are generated in batches (`--batch`, default 5 000 attributes plus their
 *    events) and written with `bulkIndex` into a scratch PostgreSQL database (`bench_search_<pid>`,
 *    table created by `ensureIndices`), then, generated again, into OpenSearch (unique index prefix).
 *    Throughput = documents (attributes + events) / time spent in `bulkIndex` plus the final
 *    `refresh` (generation is not counted). Then `VACUUM (ANALYZE) search_documents, search_postings, search_terms` (timed
 *    separately: statistics, GIN pending lists, visibility map; autovacuum would do the same a little
 *    later, in the middle of the measurements) and a wait for OpenSearch's merges to finish.
 * 2. Queries: the 20 Explore queries of `QUERIES` (6 of them also as a non-administrator of
 *    organisation 1), each as Explore's first page (src/modules/search/search.service.ts): size 10,
 *    sorted by `@timestamp` desc (the `oldestFirst` rows asc),
 *    filter `deleted: false`, the total counted up to 10,000 as Explore's (no `trackTotalHits`). One warm-up per backend,
 *    then `--runs` (default 20) runs interleaved (pg, os, pg, os...).
 *    Latency = wall time of `search()` in this process (client, network and server). Reported:
 *    median and p95 (nearest rank) per backend, pg/os p95 ratio, totals (both backends must agree)
 *    and whether the first pages agree. Goal: PostgreSQL p95 < 100 ms and <= 3x OpenSearch's p95.
 * 3. For each query that misses the goal, EXPLAIN (ANALYZE, BUFFERS) of the statements the
 *    PostgreSQL backend runs (`searchStatements`: the collect statement and both page plans).
 *
 *   npx tsx bench/search.ts                        # 1 000 000 attributes, 10 000 events
 *   npx tsx bench/search.ts --attributes 100000    # quick run
 *   options: --runs 20  --batch 5000  --seed 20261123  --keep (keep the database and indices)
 *     --compact (after VACUUM, rebuild the PostgreSQL backend's B-tree indexes as the weekly
 *     `compact_search_indexes` job does once they have grown; timed separately)
 *   npx tsx bench/search.ts --reuse bench_search_123 bench-search-123-abcdef-   # queries only, on what --keep kept
 *     (the database is first brought to the current table version; indexing figures are left out)
 *
 * Prints one JSON document on stdout and a compact table on stderr (with progress).
 * Needs the test PostgreSQL (TEST_DATABASE_URL, default postgresql://postgres@127.0.0.1:5432/postgres)
 * and OpenSearch (OPENSEARCH_URL, default http://127.0.0.1:9200). Deletes only what it created.
 */
import crypto from "node:crypto";
import os from "node:os";
import { pathToFileURL } from "node:url";
import pg from "pg";
import { INDEX_FIELDS } from "../src/search/fields.ts";
import type { LuceneAst } from "../src/search/lucene/ast.ts";
import { parseLucene } from "../src/search/lucene/parse.ts";
import { OpenSearchSearchIndex } from "../src/search/opensearch/index.ts";
import { compactSearchIndexes, type IndexCompaction } from "../src/search/postgres/compaction.ts";
import { PostgresSearchIndex } from "../src/search/postgres/index.ts";
import { jsonbDriver, searchStatements } from "../src/search/postgres/statements.ts";
import { withFuzzyExpanded } from "../src/search/postgres/fuzzy.ts";
import type { IndexName, SearchAccess, SearchIndex, SearchRequest, SearchResult } from "../src/search/search-index.ts";
import { ADMIN_URL, databaseUrl, withAdminClient } from "../test/support/databases.ts";
import type { Doc } from "../test/support/search-fixtures.ts";
import { median, round } from "./lib.ts";
import { generateEvents } from "./search-data.ts";

const A = "svc-attributes" as const;
const E = "svc-events" as const;
const r = String.raw;

interface BenchQuery {
  label: string;
  index: IndexName;
  q: string;
  /** Also run as a non-administrator of organisation 1. */
  nonAdmin?: boolean;
  /** `@timestamp` ascending (oldest first: newest first reversed, on both paths of the PostgreSQL backend). */
  oldestFirst?: boolean;
}

/** The fixed mix: analyst-style Explore queries (most from test/integration/search-conformance.queries.ts). */
export const QUERIES: BenchQuery[] = [
  { label: "landing page (match all)", index: A, q: "", nonAdmin: true },
  { label: "field term on type", index: A, q: "type:ip-dst", nonAdmin: true },
  { label: "keyword exact type", index: A, q: "type.keyword:sha256" },
  { label: "category phrase", index: A, q: 'category:"Network activity"', nonAdmin: true },
  { label: "value term (domain)", index: A, q: "value:gugehotel.cn" },
  { label: "default-field term (IP)", index: A, q: "180.169.28.58" },
  { label: "wildcard suffix (TLD)", index: A, q: "value:*.top", nonAdmin: true },
  { label: "wildcard prefix", index: A, q: "value:ukraine*" },
  { label: "leading wildcard (infix)", index: A, q: "value:*forukraine*" },
  { label: "type + value suffix", index: A, q: "type:domain AND value:*.xyz" },
  { label: "OR of two types", index: A, q: "type:sha256 OR type:md5" },
  { label: "OR group AND NOT", index: A, q: "(type:url OR type:link) AND NOT value:virustotal.com" },
  { label: "@timestamp date math", index: A, q: "@timestamp:>=now-1y", nonAdmin: true },
  { label: "timestamp range (long)", index: A, q: "timestamp:[1700000000 TO *]" },
  { label: "_exists_ expanded.ip", index: A, q: "_exists_:expanded.ip" },
  { label: "CIDR on expanded.ip", index: A, q: r`expanded.ip:66.0.0.0\/8` },
  { label: "attribute tags.name phrase", index: A, q: 'tags.name:"osint:source-type"' },
  { label: "regex (md5-shaped tokens)", index: A, q: "value:/[0-9a-f]{32}/" },
  { label: "events: info word", index: E, q: "info:ransomware", nonAdmin: true },
  { label: "events: tags.name phrase", index: E, q: 'tags.name:"tlp:white"' },
  { label: "fuzzy value (1 edit)", index: A, q: "value:gugehotel.cm~1" },
  { label: "fuzzy default field (AUTO)", index: A, q: "gugehotle.cn~" },
  { label: "events: fuzzy info word", index: E, q: "info:ransomwre~", nonAdmin: true },
  { label: "events: phrase slop", index: E, q: 'info:"ransomware osint"~3' },
  { label: "phrase slop on category", index: A, q: 'category:"activity network"~2' },
  { label: "oldest first: conjunction", index: A, q: 'category:"network activity" AND type:ip-dst', oldestFirst: true },
  { label: "oldest first: OR of two types", index: A, q: "type:md5 OR type:sha1", oldestFirst: true },
  { label: "oldest first: broad term", index: A, q: "type:domain", oldestFirst: true },
  { label: "oldest first: _exists_ object_uuid", index: A, q: "_exists_:object_uuid", oldestFirst: true },
  { label: "oldest first: NOT _exists_ object_uuid AND type:md5", index: A, q: "NOT _exists_:object_uuid AND type:md5", oldestFirst: true },
  { label: "oldest first: landing page (match all)", index: A, q: "", oldestFirst: true },
  { label: "oldest first: value term (domain)", index: A, q: "value:gugehotel.cn", oldestFirst: true },
  { label: "oldest first: wildcard suffix (TLD)", index: A, q: "value:*.top", oldestFirst: true },
  { label: "oldest first: wildcard prefix", index: A, q: "value:ukraine*", oldestFirst: true },
  { label: "oldest first: timestamp range (long)", index: A, q: "timestamp:[1700000000 TO *]", oldestFirst: true },
  { label: "rare term + case-free regex", index: A, q: r`value:gugehotel.cn AND value.keyword:/[a-z0-9]+\.[gG][uU][gG][eE][hH][oO][tT][eE][lL]\.[cC][nN]/` },
  { label: "rare term + infix wildcard", index: A, q: "value:gugehotel.cn AND value.keyword:*hotel*" },
];

const ADMIN: SearchAccess = { admin: true, orgId: null };
const ORG1: SearchAccess = { admin: false, orgId: 1 };
const GOAL_P95_MS = 100;
const GOAL_MAX_RATIO = 3;
/** Longer than Explore's SEARCH_TIMEOUT_MS (default 10 s) so slow queries are measured, not cut; runs over it are counted. */
const TIMEOUT_MS = 60_000;
const EXPLORE_TIMEOUT_MS = 10_000;
/** Explore's default filter (src/modules/search/search.service.ts: deleted documents are left out unless asked for). */
const EXPLORE_FILTERS = { deleted: false };

interface Options {
  attributes: number;
  attributesPerEvent: number;
  runs: number;
  batch: number;
  seed: number;
  keep: boolean;
  /** Rebuild the B-tree indexes (src/search/postgres/compaction.ts) before the queries. */
  compact: boolean;
  /** Queries only, on a database and indices kept by an earlier `--keep`. */
  reuse: { db: string; prefix: string } | null;
}

function parseArgs(argv: string[]): Options {
  const opts: Options = { attributes: 1_000_000, attributesPerEvent: 100, runs: 20, batch: 5_000, seed: 20261123, keep: false, compact: false, reuse: null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const num = () => {
      const n = Number(argv[++i]);
      if (!Number.isInteger(n) || n <= 0) throw new Error(`${a} needs a positive integer`);
      return n;
    };
    if (a === "--attributes") opts.attributes = num();
    else if (a === "--runs") opts.runs = num();
    else if (a === "--batch") opts.batch = num();
    else if (a === "--seed") opts.seed = num();
    else if (a === "--keep") opts.keep = true;
    else if (a === "--compact") opts.compact = true;
    else if (a === "--reuse") {
      const [db, prefix] = [argv[++i], argv[++i]];
      if (!db || !/^bench_search_\d+$/.test(db) || !prefix?.startsWith("bench-search-")) throw new Error("--reuse needs a database and an index prefix that --keep left");
      opts.reuse = { db, prefix };
      opts.keep = true;
    }
    else throw new Error(`unknown argument ${a}`);
  }
  return opts;
}

const log = (msg: string) => process.stderr.write(`[${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
const loadavg = () => os.loadavg().map((l) => round(l, 1));
/** Nearest-rank percentile. */
const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.max(0, Math.ceil((p / 100) * s.length) - 1)]!;
};

// ---------------------------------------------------------------- indexing

interface LoadResult {
  documents: number;
  attributes: number;
  events: number;
  seconds: number;
  refresh_seconds: number;
  docs_per_second: number;
}

async function load(backend: SearchIndex, opts: Options): Promise<LoadResult> {
  const events = Math.ceil(opts.attributes / opts.attributesPerEvent);
  let attrBatch: Doc[] = [];
  let eventBatch: Doc[] = [];
  let ms = 0;
  let attributes = 0;
  let nEvents = 0;
  let nextReport = 0.1;
  const flush = async () => {
    const t0 = performance.now();
    if (attrBatch.length) await backend.bulkIndex(A, attrBatch);
    if (eventBatch.length) await backend.bulkIndex(E, eventBatch);
    ms += performance.now() - t0;
    attributes += attrBatch.length;
    nEvents += eventBatch.length;
    attrBatch = [];
    eventBatch = [];
    if (nEvents / events >= nextReport) {
      log(`${backend.backend}: ${attributes} attributes, ${nEvents} events, ${round((attributes + nEvents) / (ms / 1000))} docs/s, load ${loadavg().join(" ")}`);
      nextReport += 0.1;
    }
  };
  for (const { event, attributes: attrs } of generateEvents({ events, attributesPerEvent: opts.attributesPerEvent, seed: opts.seed })) {
    eventBatch.push(event);
    for (const a of attrs) attrBatch.push(a);
    if (attrBatch.length >= opts.batch) await flush();
  }
  await flush();
  const t0 = performance.now();
  await backend.refresh();
  const refreshMs = performance.now() - t0;
  ms += refreshMs;
  const documents = attributes + nEvents;
  return {
    documents,
    attributes,
    events: nEvents,
    seconds: round(ms / 1000, 1),
    refresh_seconds: round(refreshMs / 1000, 2),
    docs_per_second: round(documents / (ms / 1000)),
  };
}

/** What a kept database holds (`--reuse`): no indexing figures. */
async function stored(pool: pg.Pool): Promise<LoadResult> {
  const { rows } = await pool.query<{ index_name: string; n: string }>("SELECT index_name, count(*) AS n FROM search_documents GROUP BY 1");
  const n = (index: IndexName) => Number(rows.find((r) => r.index_name === index)?.n ?? 0);
  return { documents: n(A) + n(E), attributes: n(A), events: n(E), seconds: 0, refresh_seconds: 0, docs_per_second: 0 };
}

// ---------------------------------------------------------------- queries

function request(q: BenchQuery, query: LuceneAst, access: SearchAccess): SearchRequest {
  return {
    index: q.index,
    query,
    defaultFields: INDEX_FIELDS[q.index].defaultFields,
    access,
    filters: EXPLORE_FILTERS,
    from: 0,
    size: 10,
    sort: { field: "@timestamp", order: q.oldestFirst ? "asc" : "desc" },
    timeoutMs: TIMEOUT_MS,
  };
}

interface Timed {
  ms: number;
  result?: SearchResult;
  error?: string;
}

async function timed(backend: SearchIndex, req: SearchRequest): Promise<Timed> {
  const t0 = performance.now();
  try {
    const result = await backend.search(req);
    return { ms: performance.now() - t0, result };
  } catch (err) {
    return { ms: performance.now() - t0, error: err instanceof Error ? err.message : String(err) };
  }
}

interface Stats {
  median_ms: number;
  p95_ms: number;
  min_ms: number;
  max_ms: number;
}

const stats = (xs: number[]): Stats => ({
  median_ms: round(median(xs), 1),
  p95_ms: round(percentile(xs, 95), 1),
  min_ms: round(Math.min(...xs), 1),
  max_ms: round(Math.max(...xs), 1),
});

interface QueryResult {
  label: string;
  index: IndexName;
  q: string;
  access: "admin" | "org 1";
  total: { postgres: number | null; opensearch: number | null };
  totals_agree: boolean;
  first_page_agrees: boolean;
  errors: { postgres: string[]; opensearch: string[] };
  /** Runs slower than Explore's default timeout (they would fail there). */
  runs_over_explore_timeout: { postgres: number; opensearch: number };
  postgres: Stats | null;
  opensearch: Stats | null;
  ratio_p95: number | null;
  goal_met: boolean;
  loadavg: number[];
}

async function measure(q: BenchQuery, access: SearchAccess, backends: { postgres: SearchIndex; opensearch: SearchIndex }, runs: number): Promise<QueryResult> {
  const req = request(q, parseLucene(q.q), access);
  const load = loadavg();
  const times = { postgres: [] as number[], opensearch: [] as number[] };
  const totals = { postgres: new Set<number>(), opensearch: new Set<number>() };
  const pages = { postgres: new Set<string>(), opensearch: new Set<string>() };
  const errors = { postgres: new Set<string>(), opensearch: new Set<string>() };
  for (let i = -1; i < runs; i++) {
    for (const name of ["postgres", "opensearch"] as const) {
      const t = await timed(backends[name], req);
      if (t.error) errors[name].add(t.error);
      if (t.result) {
        totals[name].add(t.result.total);
        pages[name].add(t.result.hits.map((h) => h.id).join(","));
      }
      if (i >= 0 && !t.error) times[name].push(t.ms);
    }
  }
  const one = (s: Set<number>) => (s.size === 1 ? [...s][0]! : null);
  const pgStats = times.postgres.length ? stats(times.postgres) : null;
  const osStats = times.opensearch.length ? stats(times.opensearch) : null;
  const ratio = pgStats && osStats ? round(pgStats.p95_ms / osStats.p95_ms, 2) : null;
  const totalPg = one(totals.postgres);
  const totalOs = one(totals.opensearch);
  return {
    label: q.label,
    index: q.index,
    q: q.q,
    access: access.admin ? "admin" : "org 1",
    total: { postgres: totalPg, opensearch: totalOs },
    totals_agree: totalPg !== null && totalPg === totalOs,
    first_page_agrees: pages.postgres.size === 1 && pages.opensearch.size === 1 && [...pages.postgres][0] === [...pages.opensearch][0],
    errors: { postgres: [...errors.postgres], opensearch: [...errors.opensearch] },
    runs_over_explore_timeout: {
      postgres: times.postgres.filter((t) => t > EXPLORE_TIMEOUT_MS).length,
      opensearch: times.opensearch.filter((t) => t > EXPLORE_TIMEOUT_MS).length,
    },
    postgres: pgStats,
    opensearch: osStats,
    ratio_p95: ratio,
    goal_met: pgStats !== null && ratio !== null && pgStats.p95_ms < GOAL_P95_MS && ratio <= GOAL_MAX_RATIO,
    loadavg: load,
  };
}

/**
 * EXPLAIN (ANALYZE, BUFFERS) of the statements the PostgreSQL backend runs (`searchStatements`):
 * the collect statement (count, and the page when there are fewer matches than it collects) and
 * the page along the ts index and as a top-N sort (with many matches it runs one or both).
 */
async function explain(pool: pg.Pool, q: BenchQuery, access: SearchAccess): Promise<{ collect: string; page_ts_walk: string; page_top_n: string }> {
  const now = Date.now();
  const req = request(q, parseLucene(q.q), access);
  // Fuzzy terms are expanded against the dictionary first, as the backend does (its statements then hold exact terms).
  const expanded = { ...req, query: await withFuzzyExpanded(pool, req, now, TIMEOUT_MS) };
  const st = searchStatements(expanded, now, await jsonbDriver(pool, expanded, now));
  const text = async ({ text: sql, values }: { text: string; values: unknown[] }) => {
    const client = await pool.connect();
    try {
      await client.query("BEGIN");
      await client.query("SELECT set_config('jit', 'off', true)");
      const plan = (await client.query<{ "QUERY PLAN": string }>(`EXPLAIN (ANALYZE, BUFFERS) ${sql}`, values)).rows.map((row) => row["QUERY PLAN"]).join("\n");
      return `-- params ${JSON.stringify(values)}\n${sql}\n${plan}`;
    } finally {
      await client.query("ROLLBACK");
      client.release();
    }
  };
  return { collect: await text(st.collect), page_ts_walk: await text(st.page(true)), page_top_n: await text(st.page(false)) };
}

// ---------------------------------------------------------------- output

function table(results: QueryResult[]): string {
  const rows = [["query", "access", "hits pg/os", "pg med", "pg p95", "os med", "os p95", "p95 ratio", "goal"]];
  for (const x of results) {
    const hits = x.totals_agree ? String(x.total.postgres) : `${x.total.postgres} / ${x.total.opensearch}`;
    rows.push([
      x.label,
      x.access,
      `${hits}${x.first_page_agrees ? "" : " (page differs)"}`,
      String(x.postgres?.median_ms ?? "err"),
      String(x.postgres?.p95_ms ?? "err"),
      String(x.opensearch?.median_ms ?? "err"),
      String(x.opensearch?.p95_ms ?? "err"),
      String(x.ratio_p95 ?? "-"),
      x.goal_met ? "ok" : "MISS",
    ]);
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  return rows.map((row) => row.map((cell, i) => (i === 0 || i === 1 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join("  ")).join("\n");
}

// ---------------------------------------------------------------- main

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const urls = (process.env.OPENSEARCH_URL ?? "http://127.0.0.1:9200")
    .split(",")
    .map((u) => u.trim())
    .filter(Boolean);
  const dbName = opts.reuse?.db ?? `bench_search_${process.pid}`;
  const prefix = opts.reuse?.prefix ?? `bench-search-${process.pid}-${crypto.randomBytes(3).toString("hex")}-`;
  const started = new Date().toISOString();
  const loadStart = loadavg();
  let pool: pg.Pool | undefined;
  let opensearch: OpenSearchSearchIndex | undefined;
  let dbCreated = false;

  let cleaned = false;
  const cleanup = async () => {
    if (cleaned) return;
    cleaned = true;
    if (opts.keep) {
      log(`--keep: database ${dbName} and OpenSearch indices ${prefix}* are left in place`);
      await pool?.end().catch(() => undefined);
      await opensearch?.close().catch(() => undefined);
      return;
    }
    if (opensearch) {
      await opensearch.client.indices.delete({ index: `${prefix}*` }, { ignore: [404] }).catch((err) => log(`delete indices: ${err}`));
      await opensearch.client.indices.deleteIndexTemplate({ name: `${prefix}*` }, { ignore: [404] }).catch((err) => log(`delete templates: ${err}`));
      await opensearch.close().catch(() => undefined);
    }
    await pool?.end().catch(() => undefined);
    if (dbCreated) await withAdminClient((c) => c.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`)).catch((err) => log(`drop database: ${err}`));
    log("cleaned up");
  };
  for (const sig of ["SIGINT", "SIGTERM"] as const) {
    process.once(sig, () => {
      log(`${sig}: cleaning up`);
      void cleanup().finally(() => process.exit(130));
    });
  }

  try {
    if (!opts.reuse) {
      await withAdminClient((c) => c.query(`CREATE DATABASE ${dbName}`));
      dbCreated = true;
    }
    pool = new pg.Pool({ connectionString: databaseUrl(dbName), max: 4 });
    const postgres = new PostgresSearchIndex(pool);
    opensearch = new OpenSearchSearchIndex(urls, { prefix });
    await postgres.ensureIndices();
    await opensearch.ensureIndices();
    log(`database ${dbName} (${new URL(ADMIN_URL).host}), OpenSearch ${urls.join(",")} prefix ${prefix}; ${opts.attributes} attributes`);

    // 1. indexing
    const pgLoad = opts.reuse ? await stored(pool) : await load(postgres, opts);
    log(`postgres loaded: ${JSON.stringify(pgLoad)}`);
    let t0 = performance.now();
    await pool.query("VACUUM (ANALYZE) search_documents, search_postings, search_terms");
    const vacuumSeconds = round((performance.now() - t0) / 1000, 1);
    let compaction: { seconds: number; indexes: IndexCompaction[] } | null = null;
    if (opts.compact) {
      t0 = performance.now();
      const indexes = await compactSearchIndexes(pool, { force: true });
      compaction = { seconds: round((performance.now() - t0) / 1000, 1), indexes };
      log(`compaction (the weekly job's REINDEX CONCURRENTLY, forced): ${compaction.seconds} s`);
    }
    const pgSize = (
      await pool.query<{ table: string; total: string; toast: string }>(
        `SELECT pg_table_size('search_documents') AS table, pg_total_relation_size('search_documents') + pg_total_relation_size('search_postings') + pg_total_relation_size('search_terms')
             + COALESCE(pg_total_relation_size(to_regclass('search_audiences')), 0) + COALESCE(pg_total_relation_size(to_regclass('search_facets')), 0) AS total,
           (SELECT sum(pg_total_relation_size(reltoastrelid)) FROM pg_class WHERE oid IN ('search_documents'::regclass, 'search_postings'::regclass, 'search_terms'::regclass)) AS toast`,
      )
    ).rows[0]!;
    const indexSizes = (
      await pool.query<{ name: string; bytes: string }>(
        "SELECT indexrelid::regclass::text AS name, pg_relation_size(indexrelid) AS bytes FROM pg_index WHERE indrelid IN ('search_documents'::regclass, 'search_postings'::regclass, 'search_terms'::regclass) UNION ALL SELECT 'search_postings (table)', pg_table_size('search_postings') UNION ALL SELECT 'search_terms (table)', pg_table_size('search_terms')",
      )
    ).rows;
    log(`VACUUM (ANALYZE): ${vacuumSeconds} s`);

    const osLoad = opts.reuse ? pgLoad : await load(opensearch, opts);
    log(`opensearch loaded: ${JSON.stringify(osLoad)}`);
    t0 = performance.now();
    for (;;) {
      const st = await opensearch.client.indices.stats({ index: `${prefix}*`, metric: "merge" });
      const current = (st.body._all?.total?.merges?.current as number | undefined) ?? 0;
      if (current === 0 || performance.now() - t0 > 300_000) break;
      await new Promise((res) => setTimeout(res, 2_000));
    }
    const mergeWaitSeconds = round((performance.now() - t0) / 1000, 1);
    const osIndex = opensearch;
    const osStore = async () =>
      (await osIndex.client.cat.indices({ index: `${prefix}*`, format: "json", bytes: "b" })).body as unknown as {
        index: string;
        "docs.count": string;
        "store.size": string;
      }[];
    const osIndicesAsLoaded = await osStore();
    // The size comparison: OpenSearch's store after a flush and a merge to one segment.
    t0 = performance.now();
    await opensearch.client.indices.flush({ index: `${prefix}*` });
    await opensearch.client.indices.forcemerge({ index: `${prefix}*`, max_num_segments: 1 });
    const forceMergeSeconds = round((performance.now() - t0) / 1000, 1);
    const mib = (rows: { "store.size": string }[]) => round(rows.reduce((n, i) => n + Number(i["store.size"]), 0) / 2 ** 20, 1);
    // The merged-away segments are deleted only once no searcher holds them: read as the merge
    // returned, the 1,000,000-attribute run's store was 621 MiB where one segment held ~306.
    await opensearch.client.indices.refresh({ index: `${prefix}*` });
    let osIndices = await osStore();
    for (let tries = 0; tries < 30; tries++) {
      await new Promise((res) => setTimeout(res, 2_000));
      const again = await osStore();
      const settled = mib(again) === mib(osIndices);
      osIndices = again;
      if (settled) break;
    }

    // Both backends hold every document.
    const counts = (await pool.query<{ index_name: string; n: string }>("SELECT index_name, count(*) AS n FROM search_documents GROUP BY 1")).rows;
    for (const index of [A, E]) {
      const want = index === A ? pgLoad.attributes : pgLoad.events;
      const pgN = Number(counts.find((c) => c.index_name === index)?.n ?? 0);
      const osN = Number((await opensearch.client.count({ index: opensearch.indexName(index) })).body.count);
      if (pgN !== want || osN !== want) throw new Error(`${index}: expected ${want} documents, postgres has ${pgN}, opensearch ${osN}`);
    }

    // 2. queries
    const results: QueryResult[] = [];
    for (const q of QUERIES) {
      for (const access of q.nonAdmin ? [ADMIN, ORG1] : [ADMIN]) {
        const res = await measure(q, access, { postgres, opensearch }, opts.runs);
        results.push(res);
        log(
          `${q.label} [${res.access}] hits ${res.total.postgres}/${res.total.opensearch} pg ${res.postgres?.median_ms}/${res.postgres?.p95_ms} os ${res.opensearch?.median_ms}/${res.opensearch?.p95_ms} ms${res.goal_met ? "" : " MISS"}`,
        );
      }
    }

    // 3. plans of the misses, worst first
    const misses = results.filter((x) => !x.goal_met).sort((a, b) => (b.postgres?.p95_ms ?? Infinity) - (a.postgres?.p95_ms ?? Infinity));
    const plans: Record<string, Awaited<ReturnType<typeof explain>>> = {};
    for (const m of misses) {
      const q = QUERIES.find((x) => x.label === m.label)!;
      plans[`${m.label} [${m.access}]`] = await explain(pool, q, m.access === "admin" ? ADMIN : ORG1);
    }

    const summary = {
      date: started,
      machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, node: process.version, loadavg_start: loadStart, loadavg_end: loadavg() },
      command: `npx tsx bench/search.ts ${process.argv.slice(2).join(" ")}`.trim(),
      postgres_server: (await pool.query<{ v: string }>("SELECT version() AS v")).rows[0]!.v,
      opensearch_server: ((await opensearch.client.info()).body as { version: { number: string } }).version.number,
      scale: { attributes: pgLoad.attributes, events: pgLoad.events, attributes_per_event: opts.attributesPerEvent, seed: opts.seed },
      runs_per_query: opts.runs,
      request: { size: 10, from: 0, sort: "@timestamp desc (oldestFirst rows asc)", filters: EXPLORE_FILTERS, non_admin: ORG1, timeout_ms: TIMEOUT_MS },
      indexing: {
        postgres: {
          ...pgLoad,
          vacuum_analyze_seconds: vacuumSeconds,
          compaction,
          table_mib: round(Number(pgSize.table) / 2 ** 20),
          total_with_indexes_mib: round(Number(pgSize.total) / 2 ** 20),
          toast_mib: round(Number(pgSize.toast) / 2 ** 20, 1),
          indexes_mib: Object.fromEntries(indexSizes.map((i) => [i.name, round(Number(i.bytes) / 2 ** 20)])),
        },
        opensearch: {
          ...osLoad,
          merge_wait_seconds: mergeWaitSeconds,
          force_merge_seconds: forceMergeSeconds,
          store_as_loaded_mib: mib(osIndicesAsLoaded),
          store_mib: Object.fromEntries(osIndices.map((i) => [i.index.slice(prefix.length), round(Number(i["store.size"]) / 2 ** 20, 1)])),
          store_total_mib: mib(osIndices),
        },
        postgres_to_opensearch: {
          docs_per_second: round(pgLoad.docs_per_second / osLoad.docs_per_second, 3),
          bytes: round(Number(pgSize.total) / 2 ** 20 / mib(osIndices), 2),
        },
      },
      goal: {
        p95_under_ms: GOAL_P95_MS,
        max_ratio_to_opensearch_p95: GOAL_MAX_RATIO,
        met: results.filter((x) => x.goal_met).length,
        missed: misses.map((m) => `${m.label} [${m.access}]`),
      },
      mismatches: results
        .filter((x) => !x.totals_agree || !x.first_page_agrees || x.errors.postgres.length || x.errors.opensearch.length)
        .map((x) => ({ label: x.label, access: x.access, q: x.q, total: x.total, first_page_agrees: x.first_page_agrees, errors: x.errors })),
      queries: results,
      explain: plans,
    };
    process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
    process.stderr.write(`\n${table(results)}\n\n`);
    process.stderr.write(
      `indexing docs/s: postgres ${pgLoad.docs_per_second} (${pgLoad.seconds} s; VACUUM ANALYZE ${vacuumSeconds} s), opensearch ${osLoad.docs_per_second} (${osLoad.seconds} s): ${round(pgLoad.docs_per_second / osLoad.docs_per_second, 3)}x\n` +
        `on disk: postgres ${round(Number(pgSize.total) / 2 ** 20)} MiB (tables, indexes, TOAST), opensearch ${mib(osIndices)} MiB (flushed, merged to one segment; ${mib(osIndicesAsLoaded)} MiB as loaded): ${round(Number(pgSize.total) / 2 ** 20 / mib(osIndices), 1)}x\n`,
    );
  } finally {
    await cleanup();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
