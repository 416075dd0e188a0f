import { z } from "zod";
import { SIGHTINGS_CREATED_DOC as C, SIGHTING_DOC as S, SIGHTING_TYPES, SIGHTING_TYPES_DOC, type SightingsCreated } from "../../src/modules/sightings/index.ts";
import { named, timestamp } from "../contract.ts";

export const SightingsCreatedSchema = named(
  "SightingsCreated",
  z.object({
    result: z.string(),
    response: z.tuple([z.int(), z.array(z.object({ index: z.int(), detail: z.string() }))]).optional().describe("Array mode: [stored, skipped items]"),
    created: z.int().describe(C.created),
    capped: z.boolean().describe(C.capped),
  }),
  SIGHTING_TYPES_DOC.SightingsResult,
);

const SightingHitSchema = named(
  "SightingHit",
  z.object({
    _index: z.string(),
    _id: z.string(),
    _score: z.null(),
    _source: z
      .object({
        uuid: z.uuid().describe(S.uuid),
        value: z.string().describe(S.value),
        type: z.enum(SIGHTING_TYPES).describe(S.type),
        timestamp: z.number().describe(S.timestamp),
        attribute_uuid: z.uuid().describe(S.attributeUuid),
        attribute_type: z.string().describe(S.attributeType),
        event_uuid: z.uuid().describe(S.eventUuid),
        observer: z.object({ organisation: z.string().nullable().describe(S.organisation), source: z.string().describe(S.source) }).describe(S.observer),
        "@timestamp": timestamp,
      })
      .describe(SIGHTING_TYPES_DOC.Sighting),
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
