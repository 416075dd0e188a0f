/**
 * What taxonomies', predicates' and entries' fields mean, written once for every adapter (GraphQL
 * descriptions, REST serializer schemas). Names are the service's; adapters add their own field names.
 */
export const TAXONOMY_DOC = {
  id: "Numeric id of the taxonomy",
  uuid: "The taxonomy's UUID (MISP's); null if its file has none",
  namespace: "The taxonomy's namespace, the first part of its tags (for example tlp, admiralty-scale)",
  description: "What it classifies",
  expanded: "Its long name; null if none",
  version: "The taxonomy's version (an integer, as misp-taxonomies publishes it)",
  enabled: "Enabled: its tags exist and its exclusivity is enforced when tagging",
  exclusive: "At most one of its tags on one event or attribute (for example tlp)",
  required: "Marked as required on this instance (stored; not enforced)",
  highlighted: "Its tags are highlighted in the interface",
  predicateCount: "How many predicates it has",
  entryCount: "How many entries its predicates have",
} as const;

export const TAXONOMY_PREDICATE_DOC = {
  id: "Numeric id of the predicate",
  uuid: "The predicate's UUID (MISP's); null if none",
  taxonomyId: "Numeric id of its taxonomy",
  value: "The predicate (for example red in tlp:red)",
  expanded: "Its long form; null if none",
  description: "What it means; null if none",
  colour: "Its colour (#rrggbb); null if none",
  numericalValue: "Its numerical value; null if none",
  exclusive: "At most one of its entries on one event or attribute",
  tagName: "The tag that attaches it: namespace:predicate",
  entries: "Its entries, by value",
} as const;

export const TAXONOMY_ENTRY_DOC = {
  id: "Numeric id of the entry",
  uuid: "The entry's UUID (MISP's); null if none",
  taxonomyPredicateId: "Numeric id of its predicate",
  value: "The entry (for example 1 in admiralty-scale:source-reliability=\"1\")",
  expanded: "Its long form; null if none",
  description: "What it means; null if none",
  colour: "Its colour (#rrggbb); null if none",
  numericalValue: "Its numerical value; null if none",
  tagName: 'The tag that attaches it: namespace:predicate="entry"',
} as const;

export const TAXONOMY_UPDATE_DOC = {
  taxonomies: "Taxonomies imported or refreshed (read from TAXONOMIES_SOURCE)",
  taxonomies_created: "Taxonomies new",
  predicates: "Predicates now stored for them",
  entries: "Entries now stored for them",
  took_ms: "How long the import took, in milliseconds",
} as const;

export const TAXONOMY_TYPES_DOC = {
  Taxonomy: "A MISP taxonomy: a namespace of machine tags (namespace:predicate=\"entry\") with colours, numerical values and exclusivity",
  TaxonomyPredicate: "A predicate of a taxonomy, attached as namespace:predicate (or through one of its entries)",
  TaxonomyEntry: "An entry of a predicate, attached as namespace:predicate=\"entry\"",
  TaxonomyUpdateResult: "What a taxonomy import did",
} as const;
