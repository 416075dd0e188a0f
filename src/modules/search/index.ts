/** The search area's front door: what the REST shim, GraphQL, MCP, jobs and other areas may use. */
export { exploreExportQuery, parseBound } from "./explore-export-input.ts";
export type { ExploreExportQuery } from "./explore-export-input.ts";
export { openExport, withTimeRange } from "./explore-export.ts";
export type { ExportTarget } from "./explore-export.ts";
export { CONTENT_TYPES, csvHeader, csvRecord, encodeExport } from "./export-formats.ts";
export { SearchLimiter, searchLimiterOf } from "./search-limiter.ts";
export { SEARCH_HIT_DOC, SEARCH_PAGE_DOC, SEARCH_TYPES_DOC } from "./search.docs.ts";
export { MAX_SEARCH_PAGE_SIZE, MAX_SEARCH_WINDOW, SearchService, parseUserQuery, searchFailure } from "./search.service.ts";
export type { SearchField, SearchPage, SearchTarget } from "./search.service.ts";
