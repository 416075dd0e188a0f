/**
 * What a notification's fields mean, written once for every adapter (GraphQL descriptions, REST
 * serializer schemas, MCP tools). Names are the service's (a notification row's, snake_case).
 */
export const NOTIFICATION_DOC = {
  id: "Numeric id of the notification",
  user_id: "Numeric id of its recipient",
  type: "What happened, dot-separated <entity>.<change> (spec 6.2; for example event.created, attribute.updated, object.attribute.created, attribute.sighting.created, hunt.result.changed)",
  entity_type: "What it is about: event, attribute, object or hunt",
  entity_uuid: "UUID of what it is about; null for hunts (numeric ids)",
  read: "Marked read",
  payload: "The details, by kind (spec 6.3)",
} as const;

/** The types' own descriptions, by the name both APIs give them. */
export const NOTIFICATION_TYPES_DOC = {
  Notification: "A notification to its user: something followed changed, or a hunt's result changed (spec 2.5, 6)",
} as const;
