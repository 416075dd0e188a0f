export { OpenSearchSearchIndex, type OpenSearchSearchIndexOptions } from "./opensearch-search-index.ts";
export { printLucene, escapeTerm, escapeField } from "./ast-to-query-string.ts";
export { mappingsFor, exactField, KEYWORD_IGNORE_ABOVE } from "./mappings.ts";
