import type { SightingsCreated } from "../../src/modules/sightings/sightings.service.ts";

/**
 * The peer's answers: `{result}` for one sighting, `{result, response: [count, errors]}` for an
 * array; both add `created` (sightings stored, one per matched attribute) and `capped`.
 */
export function sightingsCreatedOut(r: SightingsCreated, single: boolean) {
  if (single) return { result: "Sighting created successfully", created: r.created, capped: r.capped };
  return { result: "Sightings created successfully", response: [r.created, r.skipped], created: r.created, capped: r.capped };
}
