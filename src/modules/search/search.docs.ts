/**
 * What a search page's and a search hit's fields mean, written once for every adapter (GraphQL
 * descriptions, REST serializer schemas, MCP tools). Names are the service's; adapters add their
 * own field names.
 */
export const SEARCH_HIT_DOC = {
  index: "The index it comes from",
  id: "The document's id in the index (an event's or attribute's uuid; <source>|<target>|<match_type> for a correlation)",
  score: "Relevance when sorted by _score; null when sorted by @timestamp",
  source: "The indexed document, in the index's own fields (snake_case, the peer's search documents)",
} as const;

export const SEARCH_PAGE_DOC = {
  total: "Number of matching documents: exact up to 10 000, then a lower bound",
  totalRelation: "Whether total is exact: eq, it is; gte, it is a lower bound and there are more (the count stops at 10 000)",
  took: "Milliseconds the search took in the backend",
  maxScore: "The best hit's relevance; null unless sorted by _score",
  hits: "The hits of this page",
} as const;

/** The types' own descriptions, by GraphQL's name (REST has one per index: EventSearchHit, EventSearchPage, ...). */
export const SEARCH_TYPES_DOC = {
  SearchHit: "One search hit: an indexed document (the fields of the peer's search documents) with its index, id and relevance",
  SearchPage: "One page of search hits, in the peer's P3 search envelope",
} as const;
