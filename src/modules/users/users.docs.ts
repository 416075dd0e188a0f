/**
 * What a user account's fields mean, written once for every adapter (GraphQL descriptions, REST
 * serializer schemas, MCP tools). Names are the service's; adapters add their own field names.
 */
export const USER_DOC = {
  id: "Numeric id of the user",
  email: "E-mail address, the login name (stored lower-case)",
  orgId: "Numeric id of the user's organisation",
  roleId: "Numeric id of the user's role, which gives the scopes",
  disabled: "A disabled account cannot log in and its API keys are refused",
  role: "The user's role",
  organisation: "The user's organisation",
  password: "New password, 8 to 1024 characters; omitted: unchanged (on create: the account has no password and cannot log in with one)",
} as const;

/** The types' own descriptions, by the name both APIs give them. */
export const USER_TYPES_DOC = {
  User: "A user account (never its password or password hash)",
} as const;
