export { PostgresSearchIndex, SEARCH_TABLE } from "./postgres-search-index.ts";
export { analyze } from "./analyzer.ts";
