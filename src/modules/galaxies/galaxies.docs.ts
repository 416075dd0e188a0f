/**
 * What galaxies' and clusters' fields mean, written once for every adapter (GraphQL descriptions,
 * REST serializer schemas, MCP tools). Names are the service's; adapters add their own field names.
 */
export const GALAXY_CLUSTER_DOC = {
  id: "Numeric id of the cluster",
  uuid: "The cluster's UUID (the MISP galaxy's)",
  galaxyId: "Numeric id of its galaxy",
  collectionUuid: "UUID of the cluster collection it came from",
  type: "Its galaxy's type (for example mitre-attack-pattern, threat-actor)",
  value: "The cluster's name (for example APT28, Command and Scripting Interpreter - T1059)",
  tagName: 'The tag that attaches it: misp-galaxy:<galaxy type>="<value>"',
  description: "What it is",
  source: "Where the cluster collection comes from",
  authors: "The cluster collection's authors",
  version: "The cluster collection's version",
  externalIds: "The cluster's meta.external_id upper-cased: ATT&CK technique codes such as T1059, T1059.001",
  meta: "MISP's meta object of the cluster as imported (external_id, synonyms, refs, country, kill_chain, ...): free-form, each galaxy has its own keys",
  related: "MISP's related clusters ({dest-uuid, type, tags}), kept verbatim as the galaxy publishes them",
} as const;

export const GALAXY_DOC = {
  id: "Numeric id of the galaxy",
  uuid: "The galaxy's UUID (MISP's)",
  name: "The galaxy's name",
  type: "The galaxy's type, the middle of its clusters' tags (for example mitre-attack-pattern)",
  description: "What it holds",
  version: "The galaxy's version",
  icon: "Font Awesome icon name",
  namespace: "The galaxy's namespace (for example mitre-attack, misp)",
  killChainOrder: "MISP's kill chain order as imported, an object of kill chain name to ordered phases; null if none",
  enabled: "Enabled: its clusters' tags (one per cluster) can be attached",
  localOnly: "Its tags are only attached locally: they stay on this instance",
  default: "A default galaxy, enabled at import",
} as const;

export const ATTACK_PATTERN_DOC = {
  uuid: "The cluster's UUID",
  value: "The technique's name with its code (for example Phishing - T1566)",
  description: "What the technique is",
  external_id: "The ATT&CK code (for example T1566, T1059.001); null when the cluster has none",
} as const;

export const GALAXY_UPDATE_DOC = {
  galaxies: "Galaxies imported or refreshed (read from GALAXY_SOURCE)",
  clusters_created: "Clusters new",
  clusters_updated: "Clusters changed",
  clusters_unchanged: "Clusters already as published",
  took_ms: "How long the import took, in milliseconds",
} as const;

/** The types' own descriptions (GalaxyUpdateResult is REST's GalaxyUpdate). */
export const GALAXY_TYPES_DOC = {
  GalaxyCluster: "A galaxy cluster: one threat actor, technique, tool, ... of a galaxy, attached as a tag; MISP's meta and related kept as imported",
  Galaxy: "A MISP galaxy: a collection of clusters (threat actors, ATT&CK techniques, ...) that can be attached as tags once enabled",
  AttackPattern: "A MITRE ATT&CK technique (a cluster of the mitre-attack-pattern galaxy)",
  GalaxyUpdateResult: "What a galaxy import did",
} as const;
