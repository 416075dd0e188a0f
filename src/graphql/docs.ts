import { ANALYSIS_LEVELS, THREAT_LEVELS } from "../mcp/levels.ts";

const levels = (l: readonly { level: number; name: string }[]) => l.map((x) => `${x.level} ${x.name}`).join(", ");

/**
 * Descriptions shared by many GraphQL fields and arguments, written once. Module-specific ones stay
 * beside their types; REST names are given where GraphQL's camelCase name differs only by case
 * style (`eventUuid` is REST's `event_uuid`), so they are not repeated field by field.
 */
export const DOC = {
  uuid: "UUID (RFC 4122, lower-case hex with dashes)",
  eventUuid: "UUID of the event it belongs to",
  objectUuid: "UUID of the MISP object it belongs to; null for a standalone attribute",
  attributeUuid: "UUID of the attribute",
  id: "Numeric id",
  orgId: "Numeric id of the organisation",
  userId: "Numeric id of the user",
  roleId: "Numeric id of the role",
  createdAt: "When it was created (ISO 8601, UTC)",
  updatedAt: "When it was last changed (ISO 8601, UTC)",
  epochSeconds: "Unix time in seconds (UTC)",
  timestamp: "Last change, Unix time in seconds (MISP's timestamp)",
  distribution:
    "MISP distribution level: 0 your organisation only, 1 this community, 2 connected communities, 3 all communities, 4 a sharing group, 5 (objects and attributes only) the event's own",
  eventDistribution: "MISP distribution level: 0 your organisation only, 1 this community, 2 connected communities, 3 all communities, 4 a sharing group",
  sharingGroupId: "Sharing group id when distribution is 4; null otherwise",
  threatLevel: `Threat level (REST threat_level_id): ${levels(THREAT_LEVELS)}`,
  analysis: `Analysis state: ${levels(ANALYSIS_LEVELS)}`,
  comment: "Free-text comment",
  deleted: "Soft-deleted: kept and restorable, left out of search, hunts and correlations",
  firstSeen: "When the thing observed was first seen (ISO 8601); null if unknown",
  lastSeen: "When the thing observed was last seen (ISO 8601); null if unknown",
  scopes: "Scope names (see the scopes query), for example events:read",
  done: "True once done (errors are returned as GraphQL errors)",
  name: "Display name",
  tagArg: "The tag's name (1 to 255 characters); an unknown tag is created",
  namespace: "Settings namespace (for example notifications, search)",
  /** Why a JSON value is not typed, for the fields that stay `JSON`. */
  freeForm: "Free-form JSON",
} as const;
