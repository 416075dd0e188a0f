/** The galaxies area's front door: what the REST shim, GraphQL, MCP, jobs and other areas may use. */
export { attackPatternQueryContract, clusterListContract, galaxyFlagsContract, galaxyListContract, p2PageFields } from "./galaxies.contracts.ts";
export type { ClusterListQuery, GalaxyFlags, GalaxyListQuery } from "./galaxies.contracts.ts";
export { ATTACK_PATTERN_DOC, GALAXY_CLUSTER_DOC, GALAXY_DOC, GALAXY_TYPES_DOC, GALAXY_UPDATE_DOC } from "./galaxies.docs.ts";
export { GalaxiesService, MAX_RESOLVE_TOKENS, P2_DEFAULT_SIZE, P2_MAX_SIZE, splitAttackPatternQuery } from "./galaxies.service.ts";
export type { AttackPattern, ClusterQuery, GalaxyQuery, GalaxyUpdateResult, GalaxyWithClusters, P2Page } from "./galaxies.service.ts";
export { ATTACK_PATTERN_TYPE } from "./galaxy-source.ts";
