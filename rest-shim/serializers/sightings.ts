import { z } from "zod";
import { SIGHTING_TYPES, type SightingsCreated } from "../../src/modules/sightings/index.ts";
import { named, timestamp } from "../contract.ts";

export const SightingsCreatedSchema = named(
  "SightingsCreated",
  z.object({
    result: z.string(),
    response: z.tuple([z.int(), z.array(z.object({ index: z.int(), detail: z.string() }))]).optional().describe("Array mode: [stored, skipped items]"),
    created: z.int().describe("Sightings stored: one per matched attribute per item"),
    capped: z.boolean().describe("The per-request cap cut the matches short"),
  }),
);

const SightingHitSchema = named(
  "SightingHit",
  z.object({
    _index: z.string(),
    _id: z.string(),
    _score: z.null(),
    _source: z.object({
      uuid: z.uuid(),
      value: z.string(),
      type: z.enum(SIGHTING_TYPES),
      timestamp: z.number().describe("When it was seen, Unix seconds"),
      attribute_uuid: z.uuid(),
      attribute_type: z.string(),
      event_uuid: z.uuid(),
      observer: z.object({ organisation: z.string().nullable(), source: z.string() }),
      "@timestamp": timestamp,
    }),
  }),
);

export const SightingSearchSchema = named(
  "SightingSearch",
  z.object({
    page: z.int(),
    size: z.int(),
    total: z.int(),
    took: z.int().describe("Milliseconds"),
    timed_out: z.boolean(),
    max_score: z.null(),
    results: z.array(SightingHitSchema),
  }),
  "Sightings in the peer's P3 search envelope",
);

/**
 * The peer's answers: `{result}` for one sighting, `{result, response: [count, errors]}` for an
 * array; both add `created` (sightings stored, one per matched attribute) and `capped`.
 */
export function sightingsCreatedOut(r: SightingsCreated, single: boolean): z.output<typeof SightingsCreatedSchema> {
  if (single) return { result: "Sighting created successfully", created: r.created, capped: r.capped };
  return { result: "Sightings created successfully", response: [r.created, r.skipped], created: r.created, capped: r.capped };
}
