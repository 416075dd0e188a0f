import type pg from "pg";
import type { Sql } from "../platform/db/transaction.ts";
import type { SearchDocument, SearchIndex } from "../search/search-index.ts";
import { attributeDocumentPage, eventDocumentPage } from "./documents.ts";
import { ensureSearchIndices } from "./prepare.ts";

export const REBUILDABLE = ["svc-events", "svc-attributes"] as const;
export type RebuildableIndex = (typeof REBUILDABLE)[number];

const PAGE = 5000;

/** Where a rebuild is: every row with an id up to `after` is written (`written` documents so far). */
export interface RebuildCursor {
  after: number;
  written: number;
}

/** A cursor with the number of rows the index will hold (counted when the rebuild starts or resumes). */
export interface RebuildProgress extends RebuildCursor {
  total: number;
}

export interface RebuildOptions {
  /** Continue after this cursor instead of emptying the index first (a rebuild that was stopped). */
  from?: RebuildCursor | null;
  pageSize?: number;
  /** Called after each page is written, before the next is read: a cursor saved here resumes the rebuild. */
  onPage?: (progress: RebuildProgress) => Promise<void> | void;
}

/**
 * Rebuilds an index from PostgreSQL: empties it, then writes every document in id order, in pages.
 * Documents of rows gone from PostgreSQL disappear. Changes committed meanwhile are indexed by the
 * indexer as usual (both write the rows' current state, so the order does not matter), which is
 * also why a rebuild resumed from its cursor ends with the index a rebuild from scratch would leave.
 */
export async function rebuildIndex(sql: Sql, search: SearchIndex, index: RebuildableIndex, opts: RebuildOptions = {}): Promise<number> {
  await ensureSearchIndices(search);
  const table = index === "svc-events" ? "events" : "attributes";
  let { after, written } = opts.from ?? { after: 0, written: 0 };
  if (!opts.from) await search.clear(index);
  const { rows } = await sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE id > $1`, [after]);
  const total = written + rows[0].n;
  const page = index === "svc-events" ? eventDocumentPage : attributeDocumentPage;
  const read = (from: number) => {
    const p = page(sql, from, opts.pageSize ?? PAGE);
    // Awaited on the next turn; a failed write meanwhile must not leave it an unhandled rejection.
    p.catch(() => undefined);
    return p;
  };
  // The next page is read from PostgreSQL while this one is written to the search backend.
  let next = read(after);
  for (;;) {
    const { docs, last }: { docs: SearchDocument[]; last: number | null } = await next;
    if (last === null) break;
    next = read(last);
    await search.bulkIndex(index, docs);
    written += docs.length;
    after = last;
    await opts.onPage?.({ after, written, total: Math.max(total, written) });
  }
  await search.refresh(index);
  return written;
}

/**
 * A session lock per index for the length of a rebuild: a second rebuild of the same index is
 * refused (null) rather than interleaved, and a killed process's lock goes with its connection.
 */
export async function lockRebuild(pool: pg.Pool, index: RebuildableIndex): Promise<(() => Promise<void>) | null> {
  const client = await pool.connect();
  const { rows } = await client.query<{ locked: boolean }>("SELECT pg_try_advisory_lock(hashtext('rebuild:' || $1)) AS locked", [index]);
  if (!rows[0].locked) {
    client.release();
    return null;
  }
  return async () => {
    await client.query("SELECT pg_advisory_unlock(hashtext('rebuild:' || $1))", [index]);
    client.release();
  };
}
