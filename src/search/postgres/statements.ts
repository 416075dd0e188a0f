/**
 * The SQL statements of one search (`./postgres-search-index.ts` runs them; bench/search.ts
 * EXPLAINs the same ones). Text from constant fragments and `$n` placeholders only (`./compile.ts`).
 */
import { DEFAULT_TRACK_TOTAL_HITS, SearchQueryError, type SearchRequest } from "../search-index.ts";
import { FieldTypeError, SqlCompiler } from "./compile.ts";
import type { Sql } from "../../platform/db/transaction.ts";
import { candidateSources } from "./postings-plan.ts";

export interface Statement {
  text: string;
  values: unknown[];
}

export interface SearchStatements {
  /** Count exactly up to this (null: count every match). */
  bound: number | null;
  /** Rows `collect` reads at most; reaching it means "many" (`page` then finds the hits). */
  collectLimit: number;
  /** `n` (matches, at most collectLimit) and `ids` (the page, valid when n < collectLimit). */
  collect: Statement;
  /** Every match counted (bound null and many). */
  count: Statement;
  /** The page among all matches: along the ts index, or collected and sorted (top-N). */
  page(useTsIndex: boolean): Statement;
}

/**
 * A candidate source of at most this many postings drives the JSONB path: the documents that have
 * its postings and those of the other sources are read by `doc` and tested. In larger tables a
 * source of up to a DRIVER_SHARE-th of the documents drives too: a scan tests every row.
 */
const DRIVER_POSTINGS = 10_000;
const DRIVER_SHARE = 8;
/** Sources looked up per driving posting at most (each one index descent). */
const MAX_PROBES = 3;
/**
 * A driver of at most this many postings has the query's wildcards and regexes tested on its rows
 * only (`SqlCompiler.patternsOnRow`): a few microseconds a row, where a pattern's dictionary
 * candidates cost the dictionary whatever the driver (a case-free regex reads every term of its
 * length). With more, the candidates may spare reading most of the driver's rows.
 */
export const ROW_PATTERNS = 500;

/** The JSONB path's candidates: documents with a posting of `keys` and of one key of each `probes`. */
export interface JsonbDriver {
  keys: string[];
  probes: string[][];
  /** The postings of `keys`, counted unfiltered up to the driver's cap (an upper bound of its documents). */
  postings: number;
}

/**
 * The candidate source (`candidateSources`) with the fewest postings drives, when it has few enough
 * (null: none does, the rows are tested without candidates); when it has more than
 * DRIVER_POSTINGS, the other sources are looked up for each of its postings, in the postings index.
 * The postings are counted unfiltered, each up to the limit, in one statement: an upper bound is
 * enough to choose. `scaled: false`: DRIVER_POSTINGS whatever the table's size (a scan reads the
 * driver's documents again for each page).
 *
 * Version 12 added every source as an EXISTS condition and left the join order to the planner,
 * which cannot tell that a row's JSONB test costs ~2 us: it hashed the sources' postings beside a
 * sequential scan of the documents (`category:"network activity" AND type:ip-dst`: 67-97 ms where
 * the GIN of version 11 took 8-14), and broad sources (a sloppy phrase's tokens) were read whole
 * into hashes that selected nothing.
 */
export async function jsonbDriver(
  client: Sql,
  req: Pick<SearchRequest, "index" | "query" | "defaultFields">,
  now: number,
  { scaled = true }: { scaled?: boolean } = {},
): Promise<JsonbDriver | null> {
  const sources = candidateSources(req.index, req.defaultFields, now, req.query);
  if (sources.length === 0) return null;
  const values: unknown[] = [DRIVER_POSTINGS, scaled ? DRIVER_SHARE : 2 ** 31 - 1];
  const counts = sources.map((s) => {
    values.push(s.keys);
    return `(SELECT count(*) FROM (SELECT 1 FROM search_postings p WHERE p.key = ANY ($${values.length}::text[]) LIMIT (SELECT cap FROM c)) x)`;
  });
  const { rows } = await client.query<{ n: string[]; cap: string }>(
    `WITH c AS (SELECT greatest($1::bigint, (SELECT (reltuples / $2::int)::bigint FROM pg_class WHERE oid = 'search_documents'::regclass)) + 1 AS cap)
     SELECT ARRAY[${counts.join(", ")}]::text[] AS n, (SELECT cap FROM c)::text AS cap`,
    values,
  );
  const n = rows[0]!.n.map(Number);
  const fewest = n.indexOf(Math.min(...n));
  if (n[fewest]! >= Number(rows[0]!.cap)) return null;
  // A few thousand documents are read and tested about as fast as their postings are looked up.
  if (n[fewest]! <= DRIVER_POSTINGS) return { keys: sources[fewest]!.keys, probes: [], postings: n[fewest]! };
  const probes = sources
    .map((s, i) => ({ keys: s.keys, n: n[i]! }))
    .filter((_, i) => i !== fewest)
    .sort((x, y) => x.n - y.n)
    .slice(0, MAX_PROBES)
    .map((s) => s.keys);
  return { keys: sources[fewest]!.keys, probes, postings: n[fewest]! };
}

/**
 * The documents of a driver, as an array computed once (an InitPlan: as a join the planner would
 * hash the postings beside a sequential scan of the documents); each probe is a lookup per
 * driving posting (a semi-join could hash every posting of a broad source).
 */
function driverCondition(c: SqlCompiler, driver: JsonbDriver): string {
  const probes = driver.probes.map((keys) => `(SELECT true FROM search_postings q WHERE q.key = ANY (${c.p(keys)}::text[]) AND q.ts = p.ts AND q.doc = p.doc LIMIT 1) IS NOT NULL`);
  return `d.doc = ANY (ARRAY(SELECT p.doc FROM search_postings p WHERE ${[`p.key = ANY (${c.p(driver.keys)}::text[])`, ...probes].join(" AND ")}))`;
}

/**
 * The condition of a request over `search_documents d`: index, query, access and filters (its
 * values pushed to `c.params`). A query a field type cannot take is a `SearchQueryError` "invalid".
 * The query's conditions on fields with postings are tested on the row (`./compile.ts`); `driver`
 * (`jsonbDriver`: postings every match has) selects the rows to test; a driver of few postings has
 * the patterns tested on its rows only.
 */
export function whereOf(c: SqlCompiler, req: Pick<SearchRequest, "index" | "query" | "access" | "filters">, driver: JsonbDriver | null = null): string {
  c.patternsOnRow = driver !== null && driver.probes.length === 0 && driver.postings <= ROW_PATTERNS;
  try {
    const conds = [`d.index_name = ${c.p(req.index)}`, `(${c.compileQuery(req.query)})`];
    if (driver !== null) conds.push(driverCondition(c, driver));
    if (!req.access.admin) conds.push(`(${c.compileAccess(req.access)})`);
    for (const [field, value] of Object.entries(req.filters ?? {})) conds.push(`(${c.compileFilter(field, value)})`);
    return conds.join(" AND ");
  } catch (err) {
    if (err instanceof FieldTypeError) throw new SearchQueryError(err.message, "invalid");
    throw err;
  }
}

/**
 * `driver` (`jsonbDriver`) selects the rows collect, count and the top-N page test; the walk of the
 * ts index for a page among more matches than collect holds tests its rows without it (as a filter
 * of the walk it would be a search of the driver's array per row).
 */
export function searchStatements(req: SearchRequest, now: number, driver: JsonbDriver | null = null): SearchStatements {
  const c = new SqlCompiler(req.index, req.defaultFields, now);
  const where = whereOf(c, req, driver);
  const plain = driver === null ? { c, where } : (() => {
    const own = new SqlCompiler(req.index, req.defaultFields, now);
    return { c: own, where: whereOf(own, req) };
  })();
  // Oldest first is newest first reversed (documents without a time first, ties in descending id
  // order), as on OpenSearch: the ts index read backwards gives it, and a page walks it and stops
  // after its rows instead of sorting every match (1-2 s for 10,000+ matches at 1,000,000).
  const order = (ts: string, id: string) =>
    req.sort.field !== "@timestamp" ? `${id} COLLATE "C" ASC` : req.sort.order === "asc" ? `${ts} ASC NULLS FIRST, ${id} COLLATE "C" DESC` : `${ts} DESC NULLS LAST, ${id} COLLATE "C" ASC`;
  const bound = req.trackTotalHits === true ? null : (req.trackTotalHits ?? DEFAULT_TRACK_TOTAL_HITS);
  // One more than the count needs (exact totals count the rest with `count`).
  const collectLimit = (bound ?? DEFAULT_TRACK_TOTAL_HITS) + 1;
  const params = c.params;
  const n = params.length;
  return {
    bound,
    collectLimit,
    // One pass collects (id, ts) of up to collectLimit matches: the count and, when they are all the
    // matches, the page too (a top-N sort of what was collected) - no second scan.
    collect: {
      text: `WITH m AS MATERIALIZED (SELECT d.id, d.ts FROM search_documents d WHERE ${where} LIMIT $${n + 3})
        SELECT (SELECT count(*) FROM m) AS n, ARRAY(SELECT m.id FROM m ORDER BY ${order("m.ts", "m.id")} LIMIT $${n + 1} OFFSET $${n + 2}) AS ids`,
      values: [...params, req.size, req.from, collectLimit],
    },
    count: { text: `SELECT count(*) AS n FROM search_documents d WHERE ${where}`, values: params },
    // `d.ts + interval '0'` sorts the same but keeps the planner off the ts index (the top-N plan).
    page: (useTsIndex) => {
      const own = useTsIndex ? plain : { c, where };
      const m = own.c.params.length;
      return {
        text: `SELECT d.id FROM search_documents d WHERE ${own.where} ORDER BY ${order(useTsIndex ? "d.ts" : "(d.ts + interval '0')", "d.id")} LIMIT $${m + 1} OFFSET $${m + 2}`,
        values: [...own.c.params, req.size, req.from],
      };
    },
  };
}
