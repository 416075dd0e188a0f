/** The feeds area's front door: what the REST shim, GraphQL, MCP, jobs and other areas may use. */
export { FEED_FORMATS, FEED_FORMAT_INPUTS, feedSettingsSchema } from "./feed-schema.ts";
export { MAX_UPLOAD_BYTES } from "./feed-upload.ts";
export type { StagedUpload, UploadResult } from "./feed-upload.ts";
export { CREATED_FEED_DOC, FEED_DOC, FEED_MANIFEST_DOC, FEED_PREVIEW_ROW_DOC, FEED_TYPES_DOC, FEED_UPLOAD_DOC } from "./feeds.docs.ts";
export { feedCreateContract, feedPatchContract, feedPreviewContract } from "./feeds.contracts.ts";
export type { FeedInput, FeedPatch, FeedPreviewInput } from "./feeds.contracts.ts";
export { FeedsService } from "./feeds.service.ts";
export type { PreviewRow } from "./feeds.service.ts";
export { fetchFeedTask } from "./fetch-feed-task.ts";
export { detectIndicator, refang } from "./ingest/detect-type.ts";
export { allowList, guardedLookup, refusedAddress } from "./ingest/http-source.ts";
export { pruneFeedUploadsTask } from "./prune-feed-uploads.ts";
