/**
 * GET /events/export and GET /attributes/export (peer notes 3.4, 3.5; issue 21): every document the
 * caller may read that matches an Explore query, streamed (`src/modules/search/explore-export.ts`
 * walks the index, `src/modules/search/export-formats.ts` writes json, ndjson or csv).
 *
 * - Streamed with backpressure: the body is a Node `Readable` over an async generator; the next
 *   page is read only when the socket has taken the previous one, so memory is about one page.
 * - Before the first byte (the first page is read before the headers go out) errors answer as any
 *   route's: 400 `invalid_query`, 422 bad parameters, 429 with Retry-After, 503 timeouts.
 * - After it, a failure can only cut the response: the stream is destroyed (Fastify then destroys
 *   the socket: the client sees a body that ends before its last chunk) and the failure is logged.
 * - Whatever ends the download (finished, failed, client gone), the stream's `close` closes the
 *   walk: OpenSearch's point in time is deleted, the caller's search slot released.
 */
import { Readable } from "node:stream";
import { defineRoute } from "../route.ts";
import { searchHitOut } from "../serializers/search.ts";
import { exploreExportQuery, type ExploreExportQuery } from "../../src/modules/search/index.ts";
import type { ExportTarget } from "../../src/modules/search/index.ts";
import { CONTENT_TYPES, encodeExport } from "../../src/modules/search/index.ts";

/** Bytes buffered ahead of the socket (one page is written as one chunk, whatever this is). */
const HIGH_WATER_MARK = 64 * 1024;

/** `20260131T101500Z`: the moment of the download, in a file name. */
const fileStamp = (d: Date) => d.toISOString().replace(/\.\d{3}/, "").replace(/[-:]/g, "");

const exportRoute = (target: ExportTarget, defaultField: string) =>
  defineRoute<undefined, ExploreExportQuery>({
    method: "GET", path: `/${target}/export`, operationId: target === "events" ? "exportEventSearch" : "exportAttributeSearch", tag: target,
    summary:
      `Every ${target === "events" ? "event" : "attribute"} document the caller may read that matches the Lucene query (default field \`${defaultField}\`, as /${target}/search; soft-deleted ones left out), newest @timestamp first, streamed as a download: ` +
      "format=json (an array of the search routes' raw hits), ndjson (the same hits, one per line) or csv (the peer's columns, RFC 4180, cells starting with = + - @ TAB or CR prefixed with a single quote); " +
      "from/to bound @timestamp (inclusive; epoch seconds, YYYY-MM-DD or ISO 8601 date-time). No 10 000 cap. Holds one of the caller's concurrent searches while it streams (429 beyond). " +
      "Errors before the first byte are JSON (400 invalid_query, 422, 429, 503); a failure later cuts the download short.",
    scopes: [`${target}:read`], status: 200,
    download: { mediaTypes: ["application/json", "application/x-ndjson", "text/csv"] },
    query: exploreExportQuery,
    handler: async ({ principal, query, services, reply }) => {
      const pages = await services.search.exportPages(principal, target, { query: query.query, from: query.from, to: query.to });
      const body = Readable.from(
        encodeExport(query.format, target, pages, (h) => searchHitOut(h, "@timestamp")),
        { objectMode: false, highWaterMark: HIGH_WATER_MARK },
      );
      // Also when the stream is destroyed before its generator ever ran (the client left at once).
      body.once("close", () => void pages.close());
      reply.header("Content-Type", CONTENT_TYPES[query.format]);
      reply.header("Content-Disposition", `attachment; filename="${target}-${fileStamp(new Date())}.${query.format}"`);
      reply.header("Cache-Control", "no-store");
      return body;
    },
  });

export const exploreExportRoutes = [exportRoute("events", "info"), exportRoute("attributes", "value")];
