import { graphql } from "../../gql/index.ts";

export const SearchEventsQuery = graphql(`
  query ExploreSearchEvents($query: String!, $page: Int!, $size: Int!) {
    searchEvents(query: $query, page: $page, size: $size) {
      page
      size
      total
      totalRelation
      hits {
        id
        source
      }
    }
  }
`);

export const SearchAttributesQuery = graphql(`
  query ExploreSearchAttributes($query: String!, $page: Int!, $size: Int!) {
    searchAttributes(query: $query, page: $page, size: $size) {
      page
      size
      total
      totalRelation
      hits {
        id
        source
      }
    }
  }
`);

/**
 * The export URL of a query, and the page's parse check of the user's query alone: the API checks
 * the query when it names the download (400 with the parser's position) without searching.
 */
export const ExportUrlQuery = graphql(`
  query ExploreExportUrl($target: ExploreExportTarget!, $query: String!) {
    exploreExportUrl(target: $target, query: $query, format: JSON)
  }
`);

export const SearchFieldsQuery = graphql(`
  query ExploreSearchFields {
    searchFields {
      index
      name
      type
    }
  }
`);

export const SavedSearchesQuery = graphql(`
  query ExploreSavedSearches {
    userSetting(namespace: "explore")
  }
`);

export const SetSavedSearchesMutation = graphql(`
  mutation ExploreSetSavedSearches($value: JSON!) {
    setUserSetting(namespace: "explore", value: $value)
  }
`);
