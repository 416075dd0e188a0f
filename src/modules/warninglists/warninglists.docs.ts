/**
 * What warninglists' fields mean, written once for every adapter (GraphQL descriptions, REST
 * serializer schemas). Names are the service's; adapters add their own field names.
 */
export const WARNINGLIST_DOC = {
  id: "Numeric id of the warninglist",
  name: "The list's name, as misp-warninglists publishes it (unique)",
  version: "The list's version (an integer, as misp-warninglists publishes it)",
  description: "What it lists",
  type: "How its entries match: string (the value, case-insensitive), substring (part of the value, case-insensitive), hostname (the host of the value, or a subdomain of it), cidr (an address or network inside a listed network, IPv4 or IPv6) or regex",
  matchingAttributes: "Attribute types it applies to; empty: every type",
  enabled: "Enabled: attribute values are matched against it when written; its hits show on attributes, in search (warnings.name) and keep values out of correlation and, where a feed asks for it, out of feed ingestion",
  entryCount: "How many entries it has",
  entries: "One page of its entries, in the file's order",
} as const;

export const WARNING_DOC = {
  id: "Numeric id of the warninglist",
  name: "Name of the warninglist",
  warnings: "The enabled warninglists the value is on (known-good or noisy values: public DNS resolvers, cloud ranges, top domains...); empty when none",
} as const;

export const WARNINGLIST_UPDATE_DOC = {
  lists: "Warninglists imported or refreshed (read from WARNINGLISTS_SOURCE)",
  lists_created: "Warninglists new",
  lists_changed: "Warninglists whose entries were rewritten (new, or another version or entry count)",
  entries: "Entries now stored for them",
  entries_refused: "Entries left out: not usable for the list's type (a regex that could backtrack catastrophically, an address that is not one)",
  refused: "The first refused entries, with their list and why",
  took_ms: "How long the import took, in milliseconds",
} as const;

export const WARNINGLIST_TYPES_DOC = {
  Warninglist: "A MISP warninglist: known-good or noisy values (public DNS resolvers, cloud ranges, top domains) that attribute values are matched against",
  Warning: "A warninglist hit of an attribute",
  WarninglistUpdateResult: "What a warninglist import did",
} as const;
