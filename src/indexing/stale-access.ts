/**
 * Documents an older indexer wrote (`../search/fields.ts` STALE_DOCUMENTS: without their audience,
 * or attributes without `expanded.value`) are indexed again from PostgreSQL. Until then OpenSearch
 * shows documents without an audience to administrators only and the PostgreSQL backend as it did
 * before (its events' distribution alone), and MISP's value match reads attributes without
 * `expanded.value` the older way (rest-shim/misp/rest-search-query.ts). Runs at worker start; a
 * few statements when nothing is stale.
 */
import type { Sql } from "../platform/db/transaction.ts";
import { STALE_DOCUMENTS } from "../search/fields.ts";
import { parseLucene } from "../search/lucene/parse.ts";
import { INDEX_NAMES, type IndexName, type SearchIndex } from "../search/search-index.ts";
import { loadAttributeDocuments, loadCorrelationDocuments, loadEventDocuments } from "./documents.ts";
import { ensureSearchIndices } from "./prepare.ts";

const PAGE = 1000;
const TIMEOUT_MS = 120_000;

/** Re-indexes every stale document; returns how many were written or removed per index. */
export async function reindexStaleAccess(sql: Sql, search: SearchIndex): Promise<Record<IndexName, number>> {
  await ensureSearchIndices(search);
  const counts = Object.fromEntries(INDEX_NAMES.map((i) => [i, 0])) as Record<IndexName, number>;
  for (const index of INDEX_NAMES) {
    let previous = "";
    for (;;) {
      const ids = await staleDocumentIds(search, index, PAGE, TIMEOUT_MS);
      // A page that comes back unchanged was not written (no progress): stop instead of looping.
      if (ids.length === 0 || ids.join() === previous) break;
      previous = ids.join();
      counts[index] += await rewrite(sql, search, index, ids);
      await search.refresh(index);
    }
  }
  return counts;
}

/** The ids of at most `size` stale documents of an index, newest first. */
export async function staleDocumentIds(search: SearchIndex, index: IndexName, size: number, timeoutMs: number): Promise<string[]> {
  const { hits } = await search.search({
    index, query: parseLucene(STALE_DOCUMENTS[index]), defaultFields: [], access: { admin: true, orgId: null }, from: 0, size,
    sort: { field: "@timestamp", order: "desc" }, timeoutMs, trackTotalHits: size,
  });
  return hits.map((h) => h.id);
}

/** Writes the documents of these ids again from PostgreSQL, and removes those whose rows are gone. */
async function rewrite(sql: Sql, search: SearchIndex, index: IndexName, ids: string[]): Promise<number> {
  const docs =
    index === "svc-events" ? await loadEventDocuments(sql, ids)
    : index === "svc-attributes" ? await loadAttributeDocuments(sql, ids)
    // A correlation document's id is `<source uuid>|<target uuid>|<match type>`.
    : await loadCorrelationDocuments(sql, [...new Set(ids.map((id) => id.split("|")[0]))]);
  const written = new Set(docs.map((d) => d.id));
  const gone = ids.filter((id) => !written.has(id));
  if (docs.length) await search.bulkIndex(index, docs);
  if (gone.length) await search.deleteByIds(index, gone);
  return ids.length;
}
