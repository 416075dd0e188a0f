import { graphql } from "../../gql/index.ts";

/** One index's matches over time (the histogram above Explore's results). */
export const SearchHistogramQuery = graphql(`
  query ExploreSearchHistogram($index: ExploreIndex!, $query: String!, $from: String, $to: String) {
    searchHistogram(index: $index, query: $query, from: $from, to: $to) {
      index
      interval
      from
      to
      total
      buckets {
        start
        count
      }
    }
  }
`);

/** Explore's bulk lookup of pasted indicators. */
export const LookupIndicatorsQuery = graphql(`
  query ExploreLookupIndicators($values: [String!]!) {
    lookupIndicators(values: $values) {
      input
      value
      detectedType
      found
      count
      eventCount
      types
      firstSeen
      lastSeen
      events {
        uuid
        info
        organisation
      }
    }
  }
`);
