/**
 * What an audit log record's fields mean, written once for every adapter (GraphQL descriptions,
 * REST serializer schemas, MCP tools). Names are the service's; adapters add their own field names.
 */
export const AUDIT_DOC = {
  id: "Numeric id of the record",
  createdAt: "When it happened",
  action: "What was done, <resource>.<verb> (for example user.created, auth.login_failed)",
  actorUserId: "Id of the user who acted; null for the system",
  actorEmail: "That user's e-mail address at the time",
  actorType: "The kind of actor: user (a login token), api_key or system (scheduled and background work)",
  actorCredentialId: "The API key used; null otherwise",
  resourceType: "The kind of resource acted on (for example user, event, hunt); null if none",
  resourceId: "Numeric id of the resource acted on; null if none or not numeric",
  ipAddress: "The client's IP address",
  userAgent: "The client's User-Agent header",
  metadata: "Details of the action: a JSON value whose shape depends on the action (each action records its own)",
} as const;

/** The types' own descriptions, by the name both APIs give them. */
export const AUDIT_TYPES_DOC = {
  AuditEntry: "One audit log record",
} as const;
