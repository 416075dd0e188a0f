/** The sightings area's front door: what the REST shim, GraphQL, MCP, jobs and other areas may use. */
export { SIGHTINGS_CREATED_DOC, SIGHTING_DOC, SIGHTING_TYPES_DOC } from "./sightings.docs.ts";
export { MAX_SIGHTINGS_PER_REQUEST, SIGHTING_TYPES, SightingsService } from "./sightings.service.ts";
export type { SightingHit, SightingInput, SightingsCreated } from "./sightings.service.ts";
