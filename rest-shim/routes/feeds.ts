import { z } from "zod";
import type { Multipart } from "@fastify/multipart";
import { binaryPart, wireContract } from "../contract.ts";
import { defineRoute } from "../route.ts";
import { idParams, queryInt, skipLimitQuery } from "../schemas.ts";
import { errors } from "../../src/platform/errors.ts";
import { feedCreateContract, feedPatchContract, feedPreviewContract } from "../../src/modules/feeds/index.ts";
import type { StagedUpload } from "../../src/modules/feeds/index.ts";
import { taskRunOut } from "../serializers/tasks.ts";
import {
  FeedCreatedSchema,
  FeedExploreSchema,
  FeedFetchSchema,
  FeedPreviewSchema,
  FeedSchema,
  FeedUploadSchema,
  feedExploreOut,
  feedFetchOut,
  feedOut,
  feedPreviewOut,
  feedUploadOut,
} from "../serializers/feeds.ts";

/** The feeds contracts on the wire: snake_case fields (the preview's limit is a query parameter). */
const createWire = wireContract(feedCreateContract);
const patchWire = wireContract(feedPatchContract);
const previewWire = wireContract(feedPreviewContract.omit({ limit: true }));

const PREVIEW_OPERATION_IDS = { csv: "previewCsvFeed", json: "previewJsonFeed", freetext: "previewFreetextFeed" } as const;

const previewRoute = (format: "csv" | "json" | "freetext") =>
  defineRoute({
    method: "POST", path: `/feeds/${format}/preview`, operationId: PREVIEW_OPERATION_IDS[format], tag: "feeds",
    summary: `The first rows of a ${format} source (an upload key or a URL) as ingestion would read them, without writing anything: value and type, or the reason it would be rejected`,
    scopes: ["feeds:preview"], status: 200, response: FeedPreviewSchema, body: previewWire.object, query: z.object({ limit: queryInt(1, 100, format === "freetext" ? 10 : 5) }).strict(),
    handler: async ({ principal, body, query, services }) => feedPreviewOut(await services.feeds.preview(principal, format, { ...previewWire.fromWire(body), limit: query.limit })),
  });

export const feedRoutes = [
  previewRoute("csv"),
  previewRoute("json"),
  previewRoute("freetext"),
  defineRoute({
    method: "GET", path: "/feeds/{feed_id}/explore", operationId: "exploreFeed", tag: "feeds", summary: "A MISP feed's manifest, page by page (page from 0, limit 1..100): {events, total, page, limit}",
    scopes: ["feeds:read"], status: 200, response: FeedExploreSchema, params: idParams("feed_id"), query: z.object({ page: queryInt(0, 1_000_000, 0), limit: queryInt(1, 100, 20) }).strict(),
    handler: async ({ principal, params, query, services }) => feedExploreOut(await services.feeds.explore(principal, params.feed_id, query.page, query.limit)),
  }),
  defineRoute({
    method: "GET", path: "/feeds/", operationId: "listFeeds", tag: "feeds", summary: "Your organisation's feeds (administrators: every feed), skip/limit, plain array; header values are redacted (********)",
    scopes: ["feeds:read"], status: 200, response: z.array(FeedSchema), query: skipLimitQuery,
    handler: async ({ principal, query, services }) => (await services.feeds.list(principal, query)).map(feedOut),
  }),
  defineRoute({
    method: "GET", path: "/feeds/{feed_id}", operationId: "getFeed", tag: "feeds", summary: "One feed of your organisation (another's: 404); header values are redacted (********)",
    scopes: ["feeds:read"], status: 200, response: FeedSchema, params: idParams("feed_id"),
    handler: async ({ principal, params, services }) => feedOut(await services.feeds.get(principal, params.feed_id)),
  }),
  defineRoute({
    method: "POST", path: "/feeds/upload", operationId: "uploadFeedFile", tag: "feeds",
    summary:
      "Upload a feed file (multipart: file, source_format csv|json|freetext|sharing; the peer's misp is taken as sharing and answered as sharing), streamed to storage under feed-uploads/<uuid>; at most 2 GB (413). Sharing archives (.zip, .tar.gz) are extracted safely: manifest.json, hashes.csv and <event-uuid>.json at the root are kept",
    scopes: ["feeds:create"], status: 200, response: FeedUploadSchema, bodyType: "multipart",
    multipartBody: z
      .object({
        file: binaryPart().describe("The feed file: CSV, JSON, text, a MISP event, or a sharing archive (.zip, .tar.gz)"),
        source_format: z.enum(["csv", "json", "freetext", "sharing", "misp"]).describe("How to read it (misp is taken as sharing)"),
      })
      .strict(),
    handler: async ({ principal, request, services }) => {
      let staged: StagedUpload | null = null;
      let format: string | undefined;
      try {
        for await (const part of request.parts() as AsyncIterable<Multipart>) {
          if (part.type === "file") {
            if (part.fieldname !== "file" || staged) {
              part.file.resume();
              throw errors.invalidField(["body", part.fieldname], "only one file part, named file, is accepted");
            }
            const file = part.file;
            staged = await services.feeds.stage(principal, part.filename ?? "", file, () => file.truncated);
          } else if (part.fieldname === "source_format") {
            format = String(part.value);
          } else {
            throw errors.invalidField(["body", part.fieldname], "Extra inputs are not permitted");
          }
        }
        if (!staged) throw errors.invalidField(["body", "file"], "Field required");
        if (format === undefined) throw errors.invalidField(["body", "source_format"], "Field required");
        return feedUploadOut(await services.feeds.upload(principal, staged, format));
      } catch (err) {
        throw multipartError(err);
      } finally {
        await services.feeds.discardStaged(staged);
      }
    },
  }),
  defineRoute({
    method: "POST", path: "/feeds/", operationId: "createFeed", tag: "feeds",
    summary: "Create a feed (source_format csv, json, freetext or sharing; misp is taken as sharing); a local one (input_source local, url = the upload's key) is ingested once at once, as you: the response's ingestion is that task run; its settings.localFile is the upload's filename and size",
    scopes: ["feeds:create"], status: 201, response: FeedCreatedSchema, body: createWire.object,
    handler: async ({ principal, body, services }) => {
      const { feed, ingestion } = await services.feeds.create(principal, createWire.fromWire(body));
      return { ...feedOut(feed), ingestion: ingestion ? taskRunOut(ingestion) : null };
    },
  }),
  defineRoute({
    method: "PATCH", path: "/feeds/{feed_id}", operationId: "updateFeed", tag: "feeds",
    summary: "Change a feed; replacing an uploaded file is a new url, read by the next fetch (settings.localFile becomes the new upload's filename and size). headers replaces the set; a header sent back as ******** keeps its stored value",
    scopes: ["feeds:update"], status: 200, response: FeedSchema, params: idParams("feed_id"), body: patchWire.object,
    handler: async ({ principal, params, body, services }) => feedOut(await services.feeds.update(principal, params.feed_id, patchWire.fromWire(body))),
  }),
  defineRoute({
    method: "DELETE", path: "/feeds/{feed_id}", operationId: "deleteFeed", tag: "feeds", summary: "Delete a feed and its schedules (its events stay)",
    scopes: ["feeds:delete"], status: 204, params: idParams("feed_id"),
    handler: ({ principal, params, services }) => services.feeds.delete(principal, params.feed_id),
  }),
  defineRoute({
    method: "POST", path: "/feeds/{feed_id}/fetch", operationId: "fetchFeed", tag: "feeds",
    summary: "Fetch the feed now, as you: {task: {id, name, status}} (the peer's shape) and the run, whose progress and counts GET /tasks/{id} shows",
    scopes: ["feeds:fetch"], status: 200, response: FeedFetchSchema, params: idParams("feed_id"),
    handler: async ({ principal, params, services }) => feedFetchOut(taskRunOut(await services.feeds.fetch(principal, params.feed_id))),
  }),
];

/** Errors of the multipart reader itself (too many parts or fields, a cut stream) are 4xx too. */
function multipartError(err: unknown): unknown {
  const code = (err as { code?: string }).code ?? "";
  if (code === "FST_PARTS_LIMIT" || code === "FST_FILES_LIMIT" || code === "FST_FIELDS_LIMIT") return errors.badRequest("Too many parts in the upload: one file and source_format");
  if (code === "FST_REQ_FILE_TOO_LARGE") return errors.payloadTooLarge("Uploaded file exceeds maximum allowed size (2147483648 bytes)");
  if (code === "FST_INVALID_MULTIPART_CONTENT_TYPE" || code === "FST_MULTIPART_INVALID_CONTENT_TYPE") return errors.unsupportedMediaType("Content-Type must be multipart/form-data");
  if (/Unexpected end of (form|multipart data)|Malformed part header|Multipart: Boundary not found/i.test((err as Error).message ?? "")) return errors.badRequest("The multipart body is malformed");
  return err;
}
