import type { SearchPage } from "../../src/modules/search/search.service.ts";
import type { SearchHit } from "../../src/search/search-index.ts";
import { timestampMillis } from "../../src/search/timestamps.ts";


/** The peer's P3 envelope with raw-hit-shaped results (`_index`, `_id`, `_score`, `_source`, `sort`). */
export function searchPageOut(page: SearchPage, sortBy: "@timestamp" | "_score") {
  return {
    page: page.page,
    size: page.size,
    total: page.total,
    // Ours: whether `total` is exact ("eq") or a lower bound ("gte", past 10 000).
    total_relation: page.totalRelation,
    took: page.took,
    timed_out: page.timedOut,
    max_score: page.maxScore,
    results: page.hits.map((h) => searchHitOut(h, sortBy)),
  };
}

/** One raw hit as the peer's OpenSearch answers it (search results and the Explore export). */
export function searchHitOut(h: SearchHit, sortBy: "@timestamp" | "_score") {
  return {
    _index: h.index,
    _id: h.id,
    _score: h.score,
    _source: h.source,
    sort: [sortBy === "_score" ? h.score : timestampMillis(h.source["@timestamp"]), h.id],
  };
}
