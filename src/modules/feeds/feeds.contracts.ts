import { z } from "zod";
import { FEED_FORMAT_INPUTS, canonicalFeedFormat, feedSettingsSchema } from "./feed-schema.ts";
import { FEED_DOC } from "./feeds.docs.ts";

/**
 * The input contracts of feed writes and previews, in the service's vocabulary: the service checks
 * every caller's input with them (REST derives its bodies, GraphQL its checks). What needs the
 * stored feed or upload (the url's shape for its input source, the upload's kind, a redacted header
 * with nothing stored) stays in the service.
 */
const text = (max: number) => z.string().trim().min(1).max(max);
const INPUT_SOURCES = ["network", "local"] as const;

const inputSource = z.enum(INPUT_SOURCES).describe(FEED_DOC.inputSource);
const url = text(2048).describe(`${FEED_DOC.url}, at most 2048 characters`);
const settings = feedSettingsSchema.nullable().optional().describe(FEED_DOC.settings);
const headers = z
  .record(z.string().max(200), z.string().max(4096))
  .nullable()
  .optional()
  .describe(`${FEED_DOC.headers}; a value sent back as ******** keeps the stored one (names at most 200 characters, values 4096)`);

export const feedCreateContract = z
  .object({
    name: text(255).describe(`${FEED_DOC.name}, 1 to 255 characters`),
    provider: text(255).describe(`${FEED_DOC.provider}, 1 to 255 characters`),
    url,
    // The peer's `misp` is accepted for `sharing`; answers say `sharing`.
    sourceFormat: z.enum(FEED_FORMAT_INPUTS).transform(canonicalFeedFormat).describe(`${FEED_DOC.sourceFormat}: csv, json, freetext or sharing (misp)`),
    inputSource,
    enabled: z.boolean().optional().describe(`${FEED_DOC.enabled} (default false)`),
    distribution: z.int().min(0).max(5).optional().describe(`${FEED_DOC.distribution} (default 0)`),
    fixedEvent: z.boolean().optional().describe(`${FEED_DOC.fixedEvent} (default false)`),
    eventUuid: z
      .guid()
      .transform((u) => u.toLowerCase())
      .nullable()
      .optional()
      .describe(FEED_DOC.eventUuid),
    publish: z.boolean().optional().describe(`${FEED_DOC.publish} (default false)`),
    overrideIds: z.boolean().optional().describe(`${FEED_DOC.overrideIds} (default false)`),
    skipWarninglisted: z.boolean().optional().describe(`${FEED_DOC.skipWarninglisted} (default false)`),
    tags: z.array(text(255)).max(50).optional().describe(`${FEED_DOC.tags} (at most 50)`),
    rules: z.record(z.string(), z.unknown()).nullable().optional().describe(FEED_DOC.rules),
    settings,
    headers,
  })
  .strict();

/** A change: the fields given. */
export const feedPatchContract = feedCreateContract.partial();

/** What a preview reads: a source (an upload key or a URL) with its settings, and how many rows. */
export const feedPreviewContract = z
  .object({
    inputSource,
    url,
    settings,
    headers,
    limit: z.int().min(1).max(100).optional().describe("Rows to read, 1 to 100 (default 10 for freetext, 5 otherwise)"),
  })
  .strict();

export type FeedInput = z.input<typeof feedCreateContract>;
export type FeedPatch = z.input<typeof feedPatchContract>;
export type FeedPreviewInput = z.input<typeof feedPreviewContract>;
