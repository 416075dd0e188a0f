/**
 * The PostgreSQL backend of `SearchIndex` (`../search-index.ts`): the embedded default.
 *
 * - Storage: table `search_documents` (migration `20261123110000_search_documents`, upgraded at
 *   start by `ensureIndices` through `./schema.ts`; columns and the values precomputed at index
 *   time in `./documents.ts`) and its postings, `search_postings` (`./postings.ts`), written
 *   together (`./writes.ts`).
 * - Queries: two paths with the same answers (test/integration/search-postgres-postings.test.ts).
 *   The postings answer what `./postings-plan.ts` can plan (most Explore queries) with index-only
 *   scans (`./postings-search.ts`), newest or oldest first; the rest (and patterns beside a rare
 *   term, tested on its documents) takes the JSONB path: `./compile.ts` turns the parsed
 *   Lucene AST into a parameterised condition (no user text in the SQL, ever); access and request
 *   filters are ANDed to it (`./statements.ts`). Every query is compiled by the JSONB compiler
 *   first, which decides its errors (400s) for both paths.
 * - Sort: `@timestamp` newest first (missing last) then id in code point order, as the OpenSearch
 *   backend (`_id` asc); oldest first its exact reverse (the ts index read backwards); `_score`: scoring is NOT implemented: every hit scores 1, so `_score` sorting is
 *   id order (the conformance check compares hit sets for `_score` sorts). With an `@timestamp`
 *   sort hits carry `score: null`, as OpenSearch does.
 * - `total`: counted in one snapshot with the page, exactly up to `trackTotalHits` (default
 *   10 000, as OpenSearch) and then "gte": counting 900 000 JSONB documents costs seconds.
 * - JSONB path: one statement collects (id, ts) of up to 10 001 matches: the count, and with fewer matches the
 *   page too (top-N of what was collected); the candidate source with the fewest postings, when
 *   they are few, selects the rows it tests (`./statements.ts` `jsonbDriver`). With many, the `ts`
 *   index is walked from the newest row, which stops after `from + size` matches - unless the
 *   matches are old or clustered; so that
 *   walk gets a short time budget, and past it the top-N plan runs over all matches instead. The
 *   sources of the page are read last, by primary key (unpacked from `body`, `./packing.ts`).
 * - JIT is off for searches: compiling a broad scan's plan took longer than the search.
 * - `from + size` is capped at 10 000 as OpenSearch's `max_result_window`.
 * - Scans (every match, Explore export): a keyset walk along the ts index, one short statement
 *   per page (`./scan.ts`).
 * - Histograms over `@timestamp`: one grouped statement on the JSONB path (`./histogram.ts`).
 * - Timeouts: each search is one transaction with `statement_timeout` set locally (bound
 *   parameter via set_config); a cancelled statement raises `SearchQueryError(kind "timeout")`.
 *   PostgreSQL's regex engine does not backtrack catastrophically, but the timeout bounds anything.
 * - Strings with U+0000 (JSONB and TEXT cannot hold it) are stored with U+FFFD instead.
 */
import type pg from "pg";
import { withTransaction } from "../../platform/db/transaction.ts";
import { pipelined } from "../../platform/pipeline.ts";
import { INDEX_FIELDS } from "../fields.ts";
import {
  INDEX_NAMES,
  SearchQueryError,
  type IndexName,
  type SearchDocument,
  type SearchHit,
  type SearchIndex,
  type SearchRequest,
  type SearchResult,
  type ScanRequest,
  type HistogramRequest,
  type HistogramResult,
} from "../search-index.ts";
import { histogramOf } from "./histogram.ts";
import { buildRow } from "./documents.ts";
import { pgCode } from "./failures.ts";
import { unpack } from "./packing.ts";
import { withFuzzyExpanded } from "./fuzzy.ts";
import { inReadOnlyTransaction, rowsOf } from "./read-only.ts";
import { scanByKeyset } from "./scan.ts";
import { ensureSearchSchema } from "./schema.ts";
import { planPostings } from "./postings-plan.ts";
import { searchByPostings, type PostingsAnswer } from "./postings-search.ts";
import { jsonbDriver, searchStatements } from "./statements.ts";
import { clearIndex, deleteDocumentsByIds, deleteDocumentsByTerms, packedRow, upsertDocuments, type PackedRow } from "./writes.ts";

/** How long the newest-first index walk may take before the top-N plan is used instead. */
const TS_WALK_BUDGET_MS = 40;
/** The same, when the postings can give the page instead (up to 50,000 of them sorted: ~25 ms). */
const TS_WALK_BUDGET_WITH_POSTINGS_MS = 15;

export const SEARCH_TABLE = "search_documents";
const MAX_RESULT_WINDOW = 10_000;
const BULK_CHUNK = 500;

function sanitize(value: unknown): unknown {
  if (typeof value === "string") return value.includes("\u0000") ? value.replace(/\u0000/g, "\ufffd") : value;
  if (Array.isArray(value)) return value.map(sanitize);
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[sanitize(k) as string] = sanitize(v);
    return out;
  }
  return value;
}

/** Documents built between two turns of the event loop (`buildRows`). */
const BUILD_SLICE = 50;

/** A chunk's rows, the last write of an id repeated within it winning (as in a bulk request). */
async function buildRows(index: IndexName, docs: SearchDocument[]): Promise<PackedRow[]> {
  const byId = new Map<string, SearchDocument>();
  for (const d of docs) byId.set(d.id, { id: d.id, source: sanitize(d.source) as Record<string, unknown> });
  const rows: PackedRow[] = [];
  for (const d of byId.values()) {
    if (rows.length % BUILD_SLICE === BUILD_SLICE - 1) await new Promise((resolve) => setImmediate(resolve));
    rows.push(packedRow(buildRow(index, d)));
  }
  return rows;
}

export class PostgresSearchIndex implements SearchIndex {
  readonly backend = "postgres" as const;

  /**
   * `pool` writes and maintains the tables; searches run on `searchPool` (default: `pool`), the
   * service's small pool of search connections. `postings: false` answers every search on the
   * JSONB path (tests compare the two). `progress` is told the steps of a table upgrade at start.
   */
  constructor(
    private readonly pool: pg.Pool,
    private readonly options: { postings?: boolean; searchPool?: pg.Pool; progress?: (message: string) => void } = {},
  ) {}

  async ensureIndices(): Promise<void> {
    await ensureSearchSchema(this.pool, { progress: this.options.progress });
  }

  /**
   * Chunks of BULK_CHUNK documents, one transaction each. The rows of the next chunk are built
   * (analysed, packed: ~0.3 ms a document) while the database writes the current one (`pipelined`),
   * in slices that leave the event loop free to send the transaction's statements.
   */
  async bulkIndex(index: IndexName, docs: SearchDocument[]): Promise<void> {
    const chunks: SearchDocument[][] = [];
    for (let i = 0; i < docs.length; i += BULK_CHUNK) chunks.push(docs.slice(i, i + BULK_CHUNK));
    await pipelined(
      chunks,
      (chunk) => buildRows(index, chunk),
      (rows) => withTransaction(this.pool, (client) => upsertDocuments(client, index, rows)),
    );
  }

  async deleteByIds(index: IndexName, ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await withTransaction(this.pool, (client) => deleteDocumentsByIds(client, index, ids));
  }

  async deleteByTerms(index: IndexName, field: string, values: string[]): Promise<void> {
    if (values.length === 0) return;
    const type = INDEX_FIELDS[index].fields[field];
    if (type === undefined) return;
    const key = type === "text" ? `${field}.keyword` : field;
    await withTransaction(this.pool, (client) => deleteDocumentsByTerms(client, index, key, values));
  }

  async refresh(): Promise<void> {
    // Writes are visible once committed.
  }

  async clear(index: IndexName): Promise<void> {
    await withTransaction(this.pool, (client) => clearIndex(client, index));
  }

  async health(): Promise<{ ok: boolean; reason?: string }> {
    try {
      const { rows } = await this.pool.query<{ t: string | null }>("SELECT to_regclass($1)::text AS t", [SEARCH_TABLE]);
      return rows[0]?.t ? { ok: true } : { ok: false, reason: "table search_documents is missing" };
    } catch (err) {
      return { ok: false, reason: err instanceof Error ? err.message : String(err) };
    }
  }

  async close(): Promise<void> {
    // The pools belong to the caller.
  }

  async search(req: SearchRequest): Promise<SearchResult> {
    const started = Date.now();
    if (!INDEX_NAMES.includes(req.index)) throw new SearchQueryError(`Unknown index ${String(req.index)}`, "invalid");
    if (!Number.isInteger(req.from) || !Number.isInteger(req.size) || req.from < 0 || req.size < 0) {
      throw new SearchQueryError("from and size must be non-negative integers", "invalid");
    }
    if (req.from + req.size > MAX_RESULT_WINDOW) {
      throw new SearchQueryError(`from + size must be at most ${MAX_RESULT_WINDOW}`, "invalid");
    }
    const now = Date.now();
    if (Number.isNaN(req.timeoutMs)) throw new SearchQueryError("timeoutMs must be a number", "invalid");
    // statement_timeout is an int4 of milliseconds.
    const timeoutMs = Math.min(2_147_483_647, Math.max(1, Math.floor(req.timeoutMs)));
    const pool = this.options.searchPool ?? this.pool;
    req = { ...req, query: await withFuzzyExpanded(pool, req, now, timeoutMs) };
    // Compiling validates the query (400s) whichever path answers it.
    let st = searchStatements(req, now);
    const { bound } = st;

    // One snapshot for every statement: the page's sources are those of the counted matches.
    return inReadOnlyTransaction(pool, timeoutMs, "repeatable read", async (client) => {
      const plan = this.options.postings === false ? null : planPostings(req, now);
      const answer = plan === null ? null : await searchByPostings(client, req, plan, bound);
      let matches: number;
      let ids: string[];
      let pageNeeded: boolean;
      let fallback: PostingsAnswer["fallback"];
      if (answer !== null && !("driver" in answer)) {
        matches = answer.matches;
        ids = answer.ids ?? [];
        pageNeeded = answer.ids === null && req.size > 0;
        fallback = answer.fallback;
      } else {
        // A rare term beside patterns (`RowTested`) drives: the patterns are tested on its rows.
        const driver = answer?.driver ?? (await jsonbDriver(client, req, now));
        if (driver !== null) st = searchStatements(req, now, driver);
        const collected = await client.query<{ n: string; ids: string[] }>(st.collect.text, st.collect.values);
        matches = Number(collected.rows[0]?.n ?? 0);
        ids = collected.rows[0]?.ids ?? [];
        const many = matches >= st.collectLimit;
        if (many && bound === null) matches = Number((await client.query<{ n: string }>(st.count.text, st.count.values)).rows[0]?.n ?? 0);
        pageNeeded = many && req.size > 0;
      }
      if (pageNeeded) {
        const page = async (useTsIndex: boolean) => {
          const { text, values } = st.page(useTsIndex);
          return (await client.query<{ id: string }>(text, values)).rows.map((r) => r.id);
        };
        ids = req.sort.field === "@timestamp" ? await this.pageByTsWalk(client, page, timeoutMs, fallback) : await page(false);
      }
      const sources = new Map<string, Record<string, unknown>>();
      if (ids.length) {
        const rows = await rowsOf<{ id: string; body: Buffer }>(client, "SELECT id, body FROM search_documents WHERE index_name = $1 AND id = ANY($2::text[])", [req.index, ids]);
        for (const r of rows) sources.set(r.id, unpack(r.body).source);
      }
      const hits: SearchHit[] = ids.map((id) => ({
        index: req.index,
        id,
        score: req.sort.field === "_score" ? 1 : null,
        source: sources.get(id)!,
      }));
      const capped = bound !== null && matches > bound;
      return { total: capped ? bound : matches, totalRelation: capped ? "gte" : "eq", hits, tookMs: Date.now() - started };
    });
  }

  scan(req: ScanRequest): AsyncIterable<SearchHit[]> {
    return scanByKeyset(this.options.searchPool ?? this.pool, req);
  }

  histogram(req: HistogramRequest): Promise<HistogramResult> {
    return histogramOf(this.options.searchPool ?? this.pool, req);
  }

  /**
   * Many matches: walk the ts index from the newest row within a short budget; when the matches are
   * sparse near that end the walk is cancelled (savepoint) and the postings' page (`fallback`, when
   * they give one: a shorter budget) or the top-N plan answers instead.
   */
  private async pageByTsWalk(
    client: pg.PoolClient,
    page: (useTsIndex: boolean) => Promise<string[]>,
    timeoutMs: number,
    fallback?: () => Promise<string[] | null>,
  ): Promise<string[]> {
    const budget = Math.min(fallback ? TS_WALK_BUDGET_WITH_POSTINGS_MS : TS_WALK_BUDGET_MS, timeoutMs);
    await client.query("SAVEPOINT ts_walk");
    await client.query("SELECT set_config('statement_timeout', $1, true)", [String(budget)]);
    try {
      const rows = await page(true);
      await client.query("RELEASE SAVEPOINT ts_walk");
      await client.query("SELECT set_config('statement_timeout', $1, true)", [String(timeoutMs)]);
      return rows;
    } catch (err) {
      if (pgCode(err) !== "57014" || budget >= timeoutMs) throw err;
      await client.query("ROLLBACK TO SAVEPOINT ts_walk");
      await client.query("SELECT set_config('statement_timeout', $1, true)", [String(timeoutMs)]);
      return (await fallback?.()) ?? page(false);
    }
  }
}
