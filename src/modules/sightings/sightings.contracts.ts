import { z } from "zod";
import { MAX_VALUE_LENGTH } from "../attributes/index.ts";

/** MISP's sighting types, by code. */
export const SIGHTING_TYPES = ["sighting", "false-positive", "expiration"] as const;
export type SightingTypeName = (typeof SIGHTING_TYPES)[number];

/**
 * Names and codes a client may send: ours, MISP's codes, and the peer's `positive`/`negative`. A Map:
 * a plain object would answer `constructor` or `__proto__` with what it inherits.
 */
const TYPE_ALIASES = new Map<string, number>([
  ["sighting", 0],
  ["positive", 0],
  ["0", 0],
  ["false-positive", 1],
  ["negative", 1],
  ["1", 1],
  ["expiration", 2],
  ["2", 2],
]);

/** The type code for a name or code; undefined when it is none of them. */
export function sightingTypeCode(t: string | number): number | undefined {
  return TYPE_ALIASES.get(String(t).trim().toLowerCase());
}

export const MAX_SIGHTINGS_PER_REQUEST = 1000;
const MAX_TIMESTAMP = 253_402_300_799;
const CONTROL = /[\u0000-\u001f\u007f]/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const TYPE_MESSAGE = `must be one of ${SIGHTING_TYPES.join(", ")} (or 0, 1, 2)`;
const noNul = (s: string) => !s.includes("\0");

/** A sighting type: a name, an alias or a code, as its code. */
export const sightingType = z
  .union([z.string().max(64), z.number().int()])
  .refine((t) => sightingTypeCode(t) !== undefined, TYPE_MESSAGE)
  .transform((t) => sightingTypeCode(t)!)
  .describe("sighting (default), false-positive or expiration; also 0, 1, 2 and the peer's positive/negative");

/**
 * One sighting, in the service's vocabulary: of the named attribute, or of every readable live
 * attribute whose value (or a composite half) is exactly `value`. An empty value is refused, or
 * skipped in the REST array form: that depends on the form, so the service decides it.
 */
export const sightingContract = z
  .object({
    value: z
      .string()
      .trim()
      .refine(noNul, "must not contain NUL bytes")
      .max(MAX_VALUE_LENGTH, `must be at most ${MAX_VALUE_LENGTH} characters`)
      .optional()
      .describe("The value seen; required unless attributeUuid is given, and then the attribute's value (or one of its halves)"),
    type: sightingType.optional(),
    timestamp: z.number().min(0, "must be epoch seconds between 1970 and 9999").max(MAX_TIMESTAMP, "must be epoch seconds between 1970 and 9999").optional().describe("When it was seen, epoch seconds (fractions allowed); default now"),
    attributeUuid: z.string().regex(UUID, "Invalid UUID").transform((u) => u.toLowerCase()).optional().describe("The attribute seen; omitted: every readable live attribute with the value"),
    source: z
      .string()
      .refine(noNul, "must not contain NUL bytes")
      .refine((s) => s.includes("\0") || !CONTROL.test(s), "must not contain control characters")
      .max(255, "must be at most 255 characters")
      .optional()
      .describe("Where it was seen (a sensor's name), at most 255 characters"),
  })
  .strict()
  .refine((s) => s.value !== undefined || s.attributeUuid !== undefined, { path: ["value"], message: "Field required (or give attribute_uuid)" });

/** The list form: 1 to 1000 sightings. */
export const sightingsContract = z
  .array(sightingContract)
  .min(1, "no sightings given")
  .max(MAX_SIGHTINGS_PER_REQUEST, `at most ${MAX_SIGHTINGS_PER_REQUEST} sightings per request`);

/** `GET /sightings/` and GraphQL `sightings`: P1 paging (size 1 to 100, default 10) and the filters. */
export const sightingListContract = z
  .object({
    page: z.number().int().min(1).max(1_000_000).default(1).describe("Page number, from 1"),
    size: z.number().int().min(1).max(100).default(10).describe("Items per page, 1 to 100 (default 10)"),
    attributeUuid: z.string().regex(UUID, "Invalid UUID").transform((u) => u.toLowerCase()).optional().describe("Only this attribute's sightings"),
    type: sightingType.optional(),
  })
  .strict();

export type SightingInput = z.input<typeof sightingContract>;
export type Sighting = z.output<typeof sightingContract>;
export type SightingListQuery = z.input<typeof sightingListContract>;
