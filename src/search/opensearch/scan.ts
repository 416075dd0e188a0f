/**
 * Every match of a query on OpenSearch (`SearchIndex.scan`, Explore export), past the 10 000 window.
 *
 * - A point in time (PIT, OpenSearch 2.4+) on the index: every page reads the same snapshot, so a
 *   document written during the walk neither appears twice nor shifts the pages. Each page renews
 *   the keep-alive; the PIT is deleted when the walk ends, fails or is abandoned (`return()` of the
 *   iterator: the HTTP client went away), and would expire on its own after `PIT_KEEP_ALIVE` of
 *   silence otherwise.
 * - Order and tiebreaker: `@timestamp` desc, then `_id` asc, as `search`'s default sort, so an
 *   export lists what search pages list, in the same order, and the PostgreSQL backend walks its
 *   `ts` index in exactly that order. OpenSearch 2.19 has no `_shard_doc` sort (Elasticsearch's
 *   implicit PIT tiebreaker: "No mapping found for [_shard_doc]"); `_id` is unique in the index.
 * - Documents without `@timestamp` come last: a second phase over them, by `_id`. One walk with
 *   `missing: _last` would need the sentinel sort value (-2^63) in `search_after`, which JSON
 *   numbers in JavaScript cannot carry exactly.
 * - Every page is one `_search` with `track_total_hits: false`, the search timeout and the
 *   `cancel_after_time_interval` of `search`, in a turn of the search gate (`req.turn`); its body is
 *   read as bytes and parsed hit by hit (`./hits-splitter.ts`: V8 puts what a large `JSON.parse`
 *   builds straight into the old generation).
 */
import type { IncomingMessage } from "node:http";
import zlib from "node:zlib";
import { errors, type Client } from "@opensearch-project/opensearch";
import { MAX_SCAN_PAGE_SIZE, SearchQueryError, type IndexName, type ScanRequest, type SearchHit } from "../search-index.ts";
import { parseSearchResponse, type SplitSearchResponse } from "./hits-splitter.ts";
import type { AnyQuery } from "./opensearch-search-index.ts";

/** How long OpenSearch keeps the PIT between two pages (a client reading slowly pauses the walk). */
export const PIT_KEEP_ALIVE = "5m";

export interface PitScanDeps {
  client: Client;
  /** The physical index name. */
  indexName: string;
  /** The request's query with further filters ANDed (`queryOf`). */
  queryWith(extraFilter: AnyQuery[]): AnyQuery;
  /** A failed request as a `SearchQueryError` (`searchError`). */
  failure(err: unknown, timeoutMs: number): Error;
}

const HAS_TIMESTAMP: AnyQuery = { exists: { field: "@timestamp" } };

/** The two phases: documents with `@timestamp` (newest first), then those without (by id). */
const PHASES: { filter: AnyQuery[]; sort: AnyQuery[] }[] = [
  { filter: [HAS_TIMESTAMP], sort: [{ "@timestamp": { order: "desc" } }, { _id: { order: "asc" } }] },
  { filter: [{ bool: { must_not: [HAS_TIMESTAMP] } }], sort: [{ _id: { order: "asc" } }] },
];

interface RawHit {
  _id: string;
  _source?: Record<string, unknown>;
  sort?: unknown[];
}

export async function* scanWithPit(deps: PitScanDeps, req: ScanRequest): AsyncGenerator<SearchHit[]> {
  const size = Math.min(MAX_SCAN_PAGE_SIZE, Math.max(1, Math.floor(req.pageSize)));
  const turn = req.turn ?? ((ms, fn) => fn(ms));
  let pitId: string | null = null;
  try {
    for (const phase of PHASES) {
      let after: unknown[] | null = null;
      for (;;) {
        const hits: RawHit[] = await turn(req.timeoutMs, async (remainingMs) => {
          pitId ??= await openPit(deps, remainingMs);
          const page = await searchPage(deps, req.index, pitId, phase, after, size, remainingMs);
          pitId = page.pitId ?? pitId;
          return page.hits;
        });
        if (hits.length === 0) break;
        yield hits.map((h) => ({ index: req.index, id: h._id, score: null, source: h._source ?? {} }));
        if (hits.length < size) break;
        after = hits[hits.length - 1]!.sort ?? null;
        if (after === null) throw new SearchQueryError("OpenSearch returned a hit without sort values", "unavailable");
      }
    }
  } finally {
    if (pitId !== null) await closePit(deps, pitId);
  }
}

async function openPit(deps: PitScanDeps, timeoutMs: number): Promise<string> {
  try {
    const res = await deps.client.createPit({ index: [deps.indexName], keep_alive: PIT_KEEP_ALIVE }, { requestTimeout: timeoutMs + 1_000, maxRetries: 1 });
    return res.body.pit_id;
  } catch (err) {
    throw deps.failure(err, timeoutMs);
  }
}

async function searchPage(
  deps: PitScanDeps,
  index: IndexName,
  pitId: string,
  phase: (typeof PHASES)[number],
  after: unknown[] | null,
  size: number,
  timeoutMs: number,
): Promise<{ hits: RawHit[]; pitId: string | undefined }> {
  const timeout = `${Math.max(1, Math.floor(timeoutMs))}ms`;
  let body: SplitSearchResponse;
  try {
    const res = await deps.client.search(
      {
        cancel_after_time_interval: timeout,
        body: {
          pit: { id: pitId, keep_alive: PIT_KEEP_ALIVE },
          query: deps.queryWith(phase.filter),
          size,
          sort: phase.sort as never,
          track_total_hits: false,
          timeout,
          ...(after ? { search_after: after as never } : {}),
        },
      },
      // The body as bytes, parsed hit by hit (`./hits-splitter.ts`).
      { requestTimeout: timeoutMs + 1_000, maxRetries: 1, asStream: true },
    );
    body = parseSearchResponse(await readBody(res.body as unknown as IncomingMessage, timeoutMs + 1_000));
    if (res.statusCode === null || res.statusCode >= 300) throw new errors.ResponseError({ ...res, body: body.envelope } as never);
  } catch (err) {
    throw deps.failure(err, timeoutMs);
  }
  if (body.envelope.timed_out === true) throw new SearchQueryError(`A page of the ${index} export timed out after ${timeoutMs} ms`, "timeout");
  const pit = body.envelope.pit_id;
  return { hits: body.hits as RawHit[], pitId: typeof pit === "string" ? pit : undefined };
}

/** A response body as one Buffer (outside V8's heap), within `timeoutMs`; gzip or deflate undone. */
async function readBody(stream: IncomingMessage, timeoutMs: number): Promise<Buffer> {
  const encoding = String(stream.headers["content-encoding"] ?? "").toLowerCase();
  const source: NodeJS.ReadableStream = encoding.includes("gzip") ? stream.pipe(zlib.createGunzip()) : encoding.includes("deflate") ? stream.pipe(zlib.createInflate()) : stream;
  const timer = setTimeout(() => stream.destroy(new errors.TimeoutError("Request timed out", null as never)), timeoutMs);
  try {
    const chunks: Buffer[] = [];
    for await (const chunk of source) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  } finally {
    clearTimeout(timer);
  }
}

/** Deletes the PIT; a failure leaves it to expire (it is logged by nobody: the walk is over). */
async function closePit(deps: PitScanDeps, pitId: string): Promise<void> {
  await deps.client.deletePit({ body: { pit_id: [pitId] } }, { requestTimeout: 10_000, maxRetries: 1 }).catch(() => undefined);
}
