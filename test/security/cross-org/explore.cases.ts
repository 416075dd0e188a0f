import type { GraphqlCase } from "./graphql.ts";

/**
 * Explore's field list, histogram and bulk lookup. The field list is the same for everyone. The
 * histogram counts only what the caller may read: A's private attribute and its distribution-0
 * copy in the shared event are matched by the query with the shared attribute, of which B counts
 * only the shared one (so B's answer is not empty because the query is). The lookup asks for A's
 * private value and the shared one (the answer's selection leaves out the values it echoes): B
 * finds the shared one in A's shared event only, the private one not at all; the validator finds
 * A's private event.
 */
export const exploreGraphql: GraphqlCase[] = [
  { field: "Query.searchFields", scopes: ["events:read"], query: "{ searchFields { index name type } }", b: "shared", validator: { status: 200 } },
  {
    field: "Query.searchHistogram", scopes: ["attributes:read"],
    query: "query($q: String!) { searchHistogram(index: ATTRIBUTES, query: $q) { interval total buckets { start count } } }",
    variables: ({ w }) => ({ q: `value:"${w.a.privateAttribute.value}" OR uuid:${w.a.sharedAttribute.uuid}` }),
    b: "filtered", validator: { status: 200 },
    bCheck: (r) => (r.data.searchHistogram.total === 1 ? null : `B counts ${String(r.data.searchHistogram.total)} matches, expected the shared attribute alone`),
  },
  {
    field: "Query.lookupIndicators", scopes: ["attributes:read", "events:read"],
    query: "query($v: [String!]!) { lookupIndicators(values: $v) { found count types firstSeen lastSeen events { uuid info organisation } } }",
    variables: ({ w }) => ({ v: [w.a.privateAttribute.value, w.a.sharedAttribute.value] }),
    b: "filtered", validator: { status: 200 }, validatorFinds: (w) => [w.a.privateEvent.uuid],
    bCheck: (r, { w }) => {
      const [priv, shared] = r.data.lookupIndicators as { found: boolean; events: { uuid: string }[] }[];
      if (priv?.found !== false) return "B finds A's private value";
      return shared?.found && shared.events.some((e) => e.uuid === w.a.sharedEvent.uuid) ? null : "B does not find the shared value in A's shared event";
    },
  },
];
