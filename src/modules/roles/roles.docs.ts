/**
 * What a role's fields mean, written once for every adapter (GraphQL descriptions, REST serializer
 * schemas, MCP tools). Names are the service's; adapters add their own field names.
 */
export const ROLE_DOC = {
  id: "Numeric id of the role",
  name: "Role name, unique",
  scopes: "The scopes the role grants (see the scope catalogue); * is every scope (administrator)",
  defaultRole: "The role new users get when none is given; one role at most is the default",
} as const;

/** The scope catalogue (every scope with what it allows). */
export const SCOPE_DOC = {
  catalogue: "Every scope, with a one-line description of what it allows",
  name: "Scope name, <area>:<action> (for example events:read), or * for every scope",
  description: "What the scope allows",
} as const;

/** The types' own descriptions, by the name both APIs give them. */
export const ROLE_TYPES_DOC = {
  Role: "A role: a named set of scopes given to users",
} as const;
