/** The sightings area's front door: what the REST shim, GraphQL, MCP, jobs and other areas may use. */
export { MAX_SIGHTINGS_PER_REQUEST, SIGHTING_TYPES, sightingContract, sightingListContract, sightingType, sightingTypeCode, sightingsContract } from "./sightings.contracts.ts";
export type { Sighting, SightingInput, SightingListQuery, SightingTypeName } from "./sightings.contracts.ts";
export { SIGHTINGS_CREATED_DOC, SIGHTING_DOC, SIGHTING_TYPES_DOC } from "./sightings.docs.ts";
export { SightingsService, readableSightingWhere } from "./sightings.service.ts";
export type { SightingHit, SightingSelection, SightingsCreated, StoredSighting } from "./sightings.service.ts";
