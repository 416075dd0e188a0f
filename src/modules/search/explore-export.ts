/**
 * Explore export (issue 21): EVERY document of an index that matches a query and that the caller
 * may read, page by page, for a streamed download (`rest-shim/routes/explore-export.ts`).
 *
 * - The same query as search: parsed by `parseUserQuery` (400 `invalid_query`), the same default
 *   fields, the same access filter (the documents' audience, `SearchAccess`), soft-deleted documents
 *   left out (`deleted: false`), in search's default order (`@timestamp` desc, then id). `from` /
 *   `to` add a range on `@timestamp` to the query, as Explore's time filter does.
 * - No 10 000 cap: the backend's `scan` (OpenSearch: a point in time and `search_after`;
 *   PostgreSQL: a keyset walk), pages of `EXPORT_PAGE_SIZE`, each under the search timeout and one
 *   turn of the search gate.
 * - The export takes one of the caller's concurrent-search slots (`./search-limiter.ts`) from the
 *   start until its pages are closed: 429 with Retry-After beyond the limit, before anything is
 *   sent.
 * - The first page is read before `openExport` returns, so that a query the backend refuses, a
 *   timeout or a backend that is down answer with a status and the JSON error body; later failures
 *   can only cut the stream (logged here).
 */
import type { AppContext } from "../../app-context.ts";
import { authorize, type Principal } from "../../auth/principal.ts";
import { searchAccessOf } from "../../auth/distribution.ts";
import { fromZodError } from "../../platform/errors.ts";
import { INDEX_FIELDS } from "../../search/fields.ts";
import type { LuceneAst, RangeNode } from "../../search/lucene/ast.ts";
import type { IndexName, SearchHit } from "../../search/search-index.ts";
import { exploreExportQuery } from "./explore-export-input.ts";
import type { SearchLimiter } from "./search-limiter.ts";
import { parseUserQuery, searchFailure } from "./search.service.ts";

export type ExportTarget = "events" | "attributes";

const INDEX_OF: Record<ExportTarget, IndexName> = { events: "svc-events", attributes: "svc-attributes" };

/** Documents per page: OpenSearch's default export page in the peer, ~1 MB of attributes. */
export const EXPORT_PAGE_SIZE = 1_000;

export interface ExportInput {
  query: string;
  from?: Date;
  to?: Date;
}

export interface OpenExportArgs {
  ctx: AppContext;
  limiter: SearchLimiter;
  principal: Principal;
  target: ExportTarget;
  input: ExportInput;
  /** Completes a page's hits in place before they are handed out (event documents' owner counts). */
  complete?: (hits: SearchHit[]) => Promise<void>;
  /** Documents per page (default `EXPORT_PAGE_SIZE`). */
  pageSize?: number;
}

/**
 * The pages of an export. `close()` (idempotent) stops the walk: the backend's iterator is returned
 * (OpenSearch deletes its PIT) and the caller's slot is released. It must be called however the
 * download ends (finished, failed, client gone), also when iteration never started: a generator's
 * `return()` before its first `next()` would skip its `finally`.
 */
export class ExportPages implements AsyncIterableIterator<SearchHit[]> {
  private first: SearchHit[] | null;
  private closed: Promise<void> | null = null;
  pages = 0;
  documents = 0;

  constructor(
    private readonly args: OpenExportArgs,
    private readonly walk: AsyncIterator<SearchHit[]>,
    first: SearchHit[] | null,
    private readonly release: () => void,
  ) {
    this.first = first;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  async next(): Promise<IteratorResult<SearchHit[]>> {
    if (this.closed) return { done: true, value: undefined };
    try {
      let hits = this.first;
      this.first = null;
      if (hits === null) {
        const r = await this.walk.next();
        if (r.done) {
          await this.close();
          return { done: true, value: undefined };
        }
        hits = r.value;
      }
      await this.args.complete?.(hits);
      this.pages += 1;
      this.documents += hits.length;
      return { done: false, value: hits };
    } catch (err) {
      this.args.ctx.log.error(
        { err, target: this.args.target, userId: this.args.principal.userId, pages: this.pages, documents: this.documents },
        "explore export failed mid-stream: the download is cut",
      );
      await this.close();
      throw searchFailure(err);
    }
  }

  async return(): Promise<IteratorResult<SearchHit[]>> {
    await this.close();
    return { done: true, value: undefined };
  }

  close(): Promise<void> {
    // The slot is released once the walk has let go of what it holds (an in-flight page finishes first).
    this.closed ??= Promise.resolve(this.walk.return?.())
      .catch(() => undefined)
      .then(() => this.release());
    return this.closed;
  }
}

/** Starts an export: slot, query, first page; errors here are answered as errors (nothing sent yet). */
export async function openExport(args: OpenExportArgs): Promise<ExportPages> {
  const { ctx, principal, target, input } = args;
  const release = await args.limiter.acquire(principal);
  let walk: AsyncIterator<SearchHit[]> | null = null;
  try {
    const index = INDEX_OF[target];
    walk = ctx.search
      .scan({
        index,
        query: withTimeRange(parseUserQuery(input.query), input.from, input.to),
        defaultFields: INDEX_FIELDS[index].defaultFields,
        access: searchAccessOf(principal),
        filters: { deleted: false },
        pageSize: args.pageSize ?? EXPORT_PAGE_SIZE,
        timeoutMs: ctx.config.SEARCH_TIMEOUT_MS,
      })
      [Symbol.asyncIterator]();
    const first = await walk.next();
    return new ExportPages(args, walk, first.done ? [] : first.value, release);
  } catch (err) {
    await Promise.resolve(walk?.return?.()).catch(() => undefined);
    release();
    throw searchFailure(err);
  }
}

/** The query ANDed with `@timestamp:[from TO to]` (both inclusive; an absent side is open). */
export function withTimeRange(query: LuceneAst, from?: Date, to?: Date): LuceneAst {
  if (!from && !to) return query;
  const range: RangeNode = {
    kind: "range",
    field: "@timestamp",
    lower: from ? from.toISOString() : null,
    upper: to ? to.toISOString() : null,
    includeLower: Boolean(from),
    includeUpper: Boolean(to),
  };
  return { kind: "bool", must: [query, range], should: [], mustNot: [] };
}

/**
 * The relative URL of an export's download (GraphQL's `exploreExportUrl`: GraphQL answers JSON, so
 * it names the REST stream instead of carrying it). Checked as the download would be: the scope,
 * the parameters (422) and the query (400); the query itself runs when the URL is fetched.
 */
export function exportUrl(p: Principal | null, target: ExportTarget, params: { query: string; format: string; from?: string; to?: string }): string {
  authorize(p, `${target}:read`);
  const given = Object.fromEntries(Object.entries(params).filter(([, v]) => v !== undefined));
  const checked = exploreExportQuery.safeParse(given);
  if (!checked.success) throw fromZodError(checked.error, "args");
  parseUserQuery(params.query);
  return `/${target}/export?${new URLSearchParams(given as Record<string, string>).toString()}`;
}
