import type { Sql } from "../platform/db/transaction.ts";
import type { SearchDocument, SearchIndex } from "../search/search-index.ts";
import { attributeDocumentPage, eventDocumentPage } from "./documents.ts";
import { ensureSearchIndices } from "./prepare.ts";

export const REBUILDABLE = ["svc-events", "svc-attributes"] as const;
export type RebuildableIndex = (typeof REBUILDABLE)[number];

const PAGE = 5000;

/**
 * Rebuilds an index from PostgreSQL: empties it, then writes every document in id order, in pages.
 * Documents of rows gone from PostgreSQL disappear. Changes committed meanwhile are indexed by the
 * indexer as usual (both write the rows' current state, so the order does not matter).
 */
export async function rebuildIndex(
  sql: Sql,
  search: SearchIndex,
  index: RebuildableIndex,
  onProgress: (written: number) => void = () => {},
): Promise<number> {
  await ensureSearchIndices(search);
  await search.clear(index);
  const page = index === "svc-events" ? eventDocumentPage : attributeDocumentPage;
  let after = 0;
  let written = 0;
  for (;;) {
    const { docs, last }: { docs: SearchDocument[]; last: number | null } = await page(sql, after, PAGE);
    if (last === null) break;
    await search.bulkIndex(index, docs);
    written += docs.length;
    after = last;
    onProgress(written);
  }
  await search.refresh(index);
  return written;
}
