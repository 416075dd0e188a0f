/** The galaxies area's front door: what the REST shim, GraphQL, MCP, jobs and other areas may use. */
export { ATTACK_PATTERN_DOC, GALAXY_CLUSTER_DOC, GALAXY_DOC, GALAXY_TYPES_DOC, GALAXY_UPDATE_DOC } from "./galaxies.docs.ts";
export { GalaxiesService, MAX_RESOLVE_TOKENS, P2_DEFAULT_SIZE, P2_MAX_SIZE, checkP2Page, splitAttackPatternQuery } from "./galaxies.service.ts";
export type { AttackPattern, GalaxyUpdateResult, GalaxyWithClusters, P2Page } from "./galaxies.service.ts";
export { ATTACK_PATTERN_TYPE } from "./galaxy-source.ts";
