/**
 * Every match of a query on the PostgreSQL backend (`SearchIndex.scan`, Explore export): a keyset
 * walk in the order of search's default sort, `ts` desc then `id` in code point order, which is the
 * order of the index `search_documents_ts_idx (index_name, ts DESC NULLS LAST, id COLLATE "C")`.
 *
 * - Each page is ONE statement (`LIMIT pageSize`, the key of the page's last row as the bound of the
 *   next), in a short read-only transaction with the search `statement_timeout` (`./read-only.ts`),
 *   on a connection of the search pool taken for that page only: a client reading slowly holds no connection, no
 *   snapshot and no lock between pages. The walk is therefore not a snapshot (OpenSearch's PIT
 *   is): a document written during it shows in a later page if its key sorts after the current
 *   position, and one whose `@timestamp` moved across the position can be missed or listed twice.
 *   The indexer does not move `@timestamp` on updates (peer notes 4.8), so this stays theoretical.
 * - Documents without `ts` come last, in a second phase by id, as OpenSearch's `missing: _last`.
 * - The query is compiled once (`now` of date math fixed for the whole walk); the planner chooses
 *   per page between the ts index with the query as a filter (broad queries) and the other
 *   indexes plus a top-N sort (narrow ones); either is bounded by the statement timeout. At 100,000
 *   attributes a page of 1,000 took 4-5 ms along the ts index (match all, `type:domain`) and
 *   1-20 ms by bitmap and sort (`type:md5`, `value:*.pro`, a single value).
 */
import type pg from "pg";
import { MAX_SCAN_PAGE_SIZE, type ScanRequest, type SearchHit } from "../search-index.ts";
import { SqlCompiler } from "./compile.ts";
import { hasFuzzy, withFuzzyExpanded } from "./fuzzy.ts";
import { unpack } from "./packing.ts";
import { inReadOnlyTransaction, rowsOf } from "./read-only.ts";
import { jsonbDriver, whereOf } from "./statements.ts";

interface Row {
  id: string;
  /** `ts` as text: the exact stored value, bound again as the next page's key. */
  ts: string | null;
  /** `./packing.ts` */
  body: Buffer;
}

/** The position after a page: the last row's key. */
type Key = { ts: string | null; id: string } | null;

export async function* scanByKeyset(pool: pg.Pool, req: ScanRequest): AsyncGenerator<SearchHit[]> {
  const size = Math.min(MAX_SCAN_PAGE_SIZE, Math.max(1, Math.floor(req.pageSize)));
  const timeoutMs = Math.min(2_147_483_647, Math.max(1, Math.floor(req.timeoutMs)));
  const now = Date.now();
  const turn = req.turn ?? ((ms, fn) => fn(ms));
  // Only a fuzzy term reads the dictionary first (a turn of its own); then a turn counts the candidates' postings (`jsonbDriver`).
  const query = hasFuzzy(req.query) ? await turn(timeoutMs, (remainingMs) => withFuzzyExpanded(pool, req, now, remainingMs)) : req.query;
  const c = new SqlCompiler(req.index, req.defaultFields, now);
  // Validated (400s) before the driver's postings are counted. A small driver only: each page reads
  // the driver's documents again.
  whereOf(new SqlCompiler(req.index, req.defaultFields, now), { ...req, query });
  const driver = await turn(timeoutMs, (remainingMs) => inReadOnlyTransaction(pool, remainingMs, "read committed", (client) => jsonbDriver(client, { ...req, query }, now, { scaled: false })));
  const where = whereOf(c, { ...req, query }, driver);
  for (const phase of ["dated", "undated"] as const) {
    let after: Key = null;
    for (;;) {
      const { text, values } = pageStatement(where, c.params, phase, after, size);
      const rows = await turn(timeoutMs, (remainingMs) => inReadOnlyTransaction(pool, remainingMs, "read committed", (client) => rowsOf<Row>(client, text, values)));
      if (rows.length === 0) break;
      yield rows.map((r) => ({ index: req.index, id: r.id, score: null, source: unpack(r.body).source }));
      if (rows.length < size) break;
      const last = rows[rows.length - 1]!;
      after = { ts: last.ts, id: last.id };
    }
  }
}

function pageStatement(where: string, base: unknown[], phase: "dated" | "undated", after: Key, size: number): { text: string; values: unknown[] } {
  const values = [...base];
  const p = (v: unknown) => {
    values.push(v);
    return `$${values.length}`;
  };
  const conds = [where];
  let order: string;
  if (phase === "dated") {
    conds.push("d.ts IS NOT NULL");
    if (after) {
      const ts = p(after.ts);
      // `ts <= key` bounds the index range; the OR keeps the rows of the same ts after the key's id.
      conds.push(`d.ts <= ${ts}::timestamptz`, `(d.ts < ${ts}::timestamptz OR d.id COLLATE "C" > ${p(after.id)})`);
    }
    order = `d.ts DESC NULLS LAST, d.id COLLATE "C"`;
  } else {
    conds.push("d.ts IS NULL");
    if (after) conds.push(`d.id COLLATE "C" > ${p(after.id)}`);
    order = `d.id COLLATE "C"`;
  }
  return {
    text: `SELECT d.id, d.ts::text AS ts, d.body FROM search_documents d WHERE ${conds.join(" AND ")} ORDER BY ${order} LIMIT ${p(size)}`,
    values,
  };
}
