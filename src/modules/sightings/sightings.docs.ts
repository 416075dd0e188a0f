/**
 * What a sighting's fields mean, written once for every adapter (GraphQL descriptions, REST
 * serializer schemas, MCP tools). Names are the service's; adapters add their own field names.
 */
export const SIGHTING_DOC = {
  uuid: "The sighting's UUID",
  type: "The kind of sighting: sighting, false-positive or expiration",
  value: "The sighted value (the attribute's)",
  timestamp: "When it was seen, Unix time in seconds (UTC)",
  attributeUuid: "UUID of the attribute sighted",
  attributeType: "The attribute's MISP type",
  eventUuid: "UUID of the event the sighted attribute belongs to",
  observer: "Who saw it and where",
  organisation: "The sighting organisation's name",
  source: "Where it was seen (free text)",
} as const;

/** What recording sightings did. */
export const SIGHTINGS_CREATED_DOC = {
  created: "Sightings stored: one per matched attribute per item",
  capped: "True when the per-request cap cut the matches short",
} as const;

/** The types' own descriptions (SightingsResult is REST's SightingsCreated). */
export const SIGHTING_TYPES_DOC = {
  Sighting: "One sighting of one attribute (type: sighting, false-positive or expiration)",
  SightingsResult: "What recording sightings did",
} as const;
