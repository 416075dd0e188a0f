/**
 * What an organisation's fields mean, written once for every adapter (GraphQL descriptions, REST
 * serializer schemas, MCP tools). Names are the service's; adapters add their own field names.
 */
export const ORG_DOC = {
  id: "Numeric id of the organisation",
  name: "Organisation name, unique",
  uuid: "The organisation's UUID, the same on every instance that knows it",
  description: "Free-text description",
  type: "Kind of organisation (free text, for example CERT, vendor)",
  nationality: "Country of the organisation (free text)",
  sector: "Business sector (free text)",
  contacts: "Contact details (free text)",
  local: "A local organisation has users on this instance; others are known only through shared data",
  restrictedToDomain: "E-mail domains the organisation's users must have; empty: any",
  landingPage: "URL of the organisation's landing page",
  createdBy: "Id of the user who created it; null for the built-in ones",
} as const;

/** The types' own descriptions, by the name both APIs give them. */
export const ORG_TYPES_DOC = {
  Organisation: "An organisation: owns users, events and feeds",
} as const;
