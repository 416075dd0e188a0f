/** The sightings area's front door: what the REST shim, GraphQL, MCP, jobs and other areas may use. */
export { MAX_SIGHTINGS_PER_REQUEST, SIGHTING_TYPES, SightingsService } from "./sightings.service.ts";
export type { SightingHit, SightingInput, SightingsCreated } from "./sightings.service.ts";
