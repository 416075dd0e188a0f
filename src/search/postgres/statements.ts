/**
 * The SQL statements of one search (`./postgres-search-index.ts` runs them; bench/search.ts
 * EXPLAINs the same ones). Text from constant fragments and `$n` placeholders only (`./compile.ts`).
 */
import { DEFAULT_TRACK_TOTAL_HITS, SearchQueryError, type SearchRequest } from "../search-index.ts";
import { FieldTypeError, SqlCompiler } from "./compile.ts";
import { candidateSources, type PostingSource } from "./postings-plan.ts";

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

/** Candidate sources per statement at most (each a semi-join the planner orders). */
const MAX_CANDIDATE_SOURCES = 4;

/**
 * A document has a posting of one of the source's keys: one probe of the postings index by (key, ts, doc), or,
 * as the planner prefers, a semi-join that reads the source's postings first.
 */
function hasPosting(c: SqlCompiler, s: PostingSource): string {
  if (s.keys.length === 0) return "FALSE";
  return `EXISTS (SELECT 1 FROM search_postings p WHERE p.key = ANY (${c.p(s.keys)}::text[]) AND p.ts = COALESCE(d.ts, '-infinity') AND p.doc = d.doc)`;
}

/**
 * The condition of a request over `search_documents d`: index, query, access and filters (its
 * values pushed to `c.params`). A query a field type cannot take is a `SearchQueryError` "invalid".
 * The query's conditions on fields with postings are tested on the row (`./compile.ts`); the
 * postings every match has (`candidateSources`) select the rows to test (table version 12: no GIN
 * on `fields` any more).
 */
export function whereOf(c: SqlCompiler, req: Pick<SearchRequest, "index" | "query" | "access" | "filters">): string {
  try {
    const conds = [`d.index_name = ${c.p(req.index)}`, `(${c.compileQuery(req.query)})`];
    // A key range is a range scan of the postings per document tested: slower than the row's own
    // test (`timestamp range (long)`: 20 -> 47 ms at 20,000 attributes), so only exact keys select.
    const sources = candidateSources(req.index, c.defaultFields, c.now, req.query).filter((s) => s.ranges.length === 0);
    for (const s of sources.slice(0, MAX_CANDIDATE_SOURCES)) conds.push(hasPosting(c, s));
    if (!req.access.admin) conds.push(`(${c.compileAccess(req.access)})`);
    for (const [field, value] of Object.entries(req.filters ?? {})) conds.push(`(${c.compileFilter(field, value)})`);
    return conds.join(" AND ");
  } catch (err) {
    if (err instanceof FieldTypeError) throw new SearchQueryError(err.message, "invalid");
    throw err;
  }
}

export function searchStatements(req: SearchRequest, now: number): SearchStatements {
  const c = new SqlCompiler(req.index, req.defaultFields, now);
  const where = whereOf(c, req);
  const direction = req.sort.order === "asc" ? "ASC" : "DESC";
  const order = (ts: string, id: string) => (req.sort.field === "@timestamp" ? `${ts} ${direction} NULLS LAST, ${id} COLLATE "C" ASC` : `${id} COLLATE "C" ASC`);
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
    page: (useTsIndex) => ({
      text: `SELECT d.id FROM search_documents d WHERE ${where} ORDER BY ${order(useTsIndex ? "d.ts" : "(d.ts + interval '0')", "d.id")} LIMIT $${n + 1} OFFSET $${n + 2}`,
      values: [...params, req.size, req.from],
    }),
  };
}
