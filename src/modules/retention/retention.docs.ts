/**
 * What the retention configuration's, preview's and badge's fields mean, written once for every
 * adapter (GraphQL descriptions, REST serializer schemas, MCP tools). Names are the service's;
 * adapters add their own field names.
 */
export const RETENTION_DOC = {
  enabled: "Master switch: old events are deleted when true, nothing is deleted while false",
  periodDays: "Events whose last change is older than this many days are deleted",
  warningDays: "Events within this many days of expiry are marked expiring (a warning badge)",
  exemptTags: "Events carrying any of these tags (exact names) are never deleted",
} as const;

export const RETENTION_PREVIEW_DOC = {
  count: "Events the next enforcement would delete with this period, across all organisations",
  periodDays: "The period counted with: the one asked, else the configured one",
} as const;

/** An event's retention badge (the events' `retention` field). */
export const RETENTION_BADGE_DOC = {
  badge: "The retention badge: expired, or expiring within the warning period; null when retention is disabled, the event is exempt or far from expiry",
  status: "Expired or expiring",
  expiresInDays: "Days until it expires, 0 or less once expired",
} as const;

/** The badge's states. */
export const RETENTION_BADGE_STATUS_DOC = {
  expired: "The next enforcement deletes it",
  expiring: "Within the warning days of expiry",
} as const;

/** The types' own descriptions, by the name both APIs give them. */
export const RETENTION_TYPES_DOC = {
  RetentionStatus: "The event retention configuration (spec 2.3; the runtime setting retention)",
  RetentionPreview: "How many events the next enforcement would delete with a retention period (spec 4.5)",
  RetentionBadge: "Where an event stands with retention: expired, the next enforcement deletes it; expiring, it is within the warning days of it",
} as const;
