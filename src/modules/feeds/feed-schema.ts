import { z } from "zod";

/**
 * Feed source formats, as they are stored and answered (spec 2.4). `sharing` is MISP's feed format
 * (manifest.json and one file per event), which the peer calls `misp`.
 */
export const FEED_FORMATS = ["csv", "json", "freetext", "sharing"] as const;
export type FeedFormat = (typeof FEED_FORMATS)[number];
/** What requests may send: the spec's names, and the peer's `misp` for `sharing` (stored and answered as `sharing`). */
export const FEED_FORMAT_INPUTS = [...FEED_FORMATS, "misp"] as const;
export type FeedFormatInput = (typeof FEED_FORMAT_INPUTS)[number];

export function canonicalFeedFormat(format: FeedFormatInput): FeedFormat {
  return format === "misp" ? "sharing" : format;
}

/** A request's source format in its canonical name, or null for an unknown one. */
export function parseFeedFormat(format: string): FeedFormat | null {
  return (FEED_FORMAT_INPUTS as readonly string[]).includes(format) ? canonicalFeedFormat(format as FeedFormatInput) : null;
}

/** Spec 4.6 rule 3: accepted file name endings per format. */
export const ACCEPTED_EXTENSIONS: Record<FeedFormat, readonly string[]> = {
  csv: [".csv", ".txt"],
  json: [".json", ".ndjson"],
  freetext: [".txt", ".csv"],
  sharing: [".zip", ".tar.gz", ".tgz"],
};

/** How a row's attribute type is found: fixed, from a column/field, or detected from the value ("auto"). */
const csvType = z.looseObject({ strategy: z.enum(["fixed", "column", "auto"]).default("auto"), value: z.string().max(100).optional(), column: z.number().int().min(0).max(1000).optional() });
const jsonType = z.looseObject({ strategy: z.enum(["fixed", "field", "auto"]).default("auto"), value: z.string().max(100).optional(), field: z.string().max(200).optional() });

/** Known keys are checked; other keys of the peer's configurations are kept as they are. */
export const feedSettingsSchema = z.looseObject({
  csvConfig: z
    .looseObject({
      delimiter: z.string().min(1).max(4).default(","),
      header: z.boolean().default(false),
      attribute: z.looseObject({ value_column: z.number().int().min(0).max(1000).default(0), type: csvType.optional() }).optional(),
    })
    .optional(),
  jsonConfig: z
    .looseObject({
      format: z.enum(["array", "ndjson"]).default("array"),
      items_path: z.string().max(200).optional(),
      attribute: z.looseObject({ value: z.string().max(200).default("value"), type: jsonType.optional() }).optional(),
    })
    .optional(),
  freetextConfig: z
    .looseObject({ type_detection: z.enum(["automatic", "fixed"]).default("automatic"), fixed_type: z.string().max(100).optional() })
    .optional(),
  localFile: z.looseObject({ filename: z.string().max(1024), size: z.number().int().min(0) }).optional(),
});
export type FeedSettings = z.infer<typeof feedSettingsSchema>;

/**
 * Why a network feed's URL cannot be fetched, or null. Parsed as the fetch parses it (WHATWG URL),
 * so what is stored is what can be fetched: http(s), a host, a valid port, no whitespace, and no
 * credentials (a URL is shown in answers; credentials belong in the write-only headers).
 */
export function networkUrlProblem(url: string): string | null {
  if (/\s/.test(url)) return "must not contain whitespace";
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "is not a valid URL";
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return "must be an http(s) URL";
  if (parsed.username !== "" || parsed.password !== "") return "must not carry credentials: put them in headers, which answers never show";
  if (parsed.hostname === "") return "must name a host";
  return null;
}
