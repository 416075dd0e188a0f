/** The taxonomies area's front door: what the REST shim, GraphQL, MCP, jobs and other areas may use. */
export { P2_DEFAULT_SIZE, P2_MAX_SIZE, taxonomyFlagsContract, taxonomyListContract } from "./taxonomies.contracts.ts";
export type { TaxonomyFlags, TaxonomyListQuery } from "./taxonomies.contracts.ts";
export { TAXONOMY_DOC, TAXONOMY_ENTRY_DOC, TAXONOMY_PREDICATE_DOC, TAXONOMY_TYPES_DOC, TAXONOMY_UPDATE_DOC } from "./taxonomies.docs.ts";
export { TaxonomiesService, WITH_PREDICATES, checkExclusiveTags, entryTagName, predicateTagName } from "./taxonomies.service.ts";
export type { TagIndexTaxonomy, TagTaxonomy } from "./taxonomies.repository.ts";
export type { TaxonomyCounted, TaxonomyPage, TaxonomyQuery, TaxonomyUpdateResult, TaxonomyWithPredicates } from "./taxonomies.service.ts";
export { checkRequiredTaxonomies } from "./required-taxonomies.ts";
