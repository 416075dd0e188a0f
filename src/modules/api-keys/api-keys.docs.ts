/**
 * What an API key's fields mean, written once for every adapter (GraphQL descriptions, REST
 * serializer schemas, MCP tools). Names are the service's; adapters add their own field names.
 */
export const API_KEY_DOC = {
  id: "Numeric id of the API key",
  userId: "Numeric id of its owner",
  name: "The key's name, 1 to 255 characters",
  comment: "Free-text comment, at most 2000 characters",
  scopes: "The scopes the key may use (at most 200); its effective scopes are also bounded by its owner's current role",
  expiresAt: "When it stops working; null: never",
  disabled: "Disabled by its owner",
  adminDisabled: "Locked by an administrator: its owner cannot enable or delete it",
  lastUsedAt: "When it last authenticated a request; null if never",
  token: "The raw 40-hex secret, shown only in this answer, never again: store it now",
} as const;

/** The types' own descriptions, by the name both APIs give them. */
export const API_KEY_TYPES_DOC = {
  ApiKey: "An API key as its owner and administrators see it: never the token or its hash (the secret is shown once, when it is created)",
  CreatedApiKey: "A new API key with its secret, returned only this once",
} as const;
