import type { CaseContext } from "./expectations.ts";
import type { GraphqlCase } from "./graphql.ts";
import type { RestCase } from "./rest.ts";

/**
 * Explore export (issue 21): GET /events/export and GET /attributes/export stream every matching
 * search document the caller may read. B's callers export everything (`query=*`, JSON: the same hits
 * as search, so the judges can read them): nothing of A's private event, nor A's distribution-0
 * attribute inside the shared event, while what B may read of A's shared event is there (the
 * export filters, it does not come back empty). The validator's export holds A's private documents.
 */
interface Hit {
  _id: string;
  _source: Record<string, unknown>;
}

const ids = (hits: Hit[]) => new Set(hits.map((h) => h._id.toLowerCase()));

function attributesCheck(hits: Hit[], { w }: CaseContext): string | null {
  const got = ids(hits);
  for (const [what, uuid] of [
    ["distribution-0 attribute of A's shared event", w.a.sharedPrivateAttribute.uuid],
    ["attribute of A's private event", w.a.privateAttribute.uuid],
  ] as const) {
    if (got.has(uuid.toLowerCase())) return `the export holds A's ${what} (${uuid})`;
  }
  return got.has(w.a.sharedAttribute.uuid.toLowerCase()) ? null : "the export lacks the attribute of A's shared event B may read";
}

function eventsCheck(hits: Hit[], { w }: CaseContext): string | null {
  const got = ids(hits);
  if (got.has(w.a.privateEvent.uuid.toLowerCase())) return "the export holds A's private event";
  const shared = hits.find((h) => h._id.toLowerCase() === w.a.sharedEvent.uuid.toLowerCase());
  if (!shared) return "the export lacks A's shared event";
  // As in search: the event document counts what every reader may see (B: the shared attribute and the one in the shared object).
  return shared._source.attribute_count === 2 ? null : `A's shared event counts ${String(shared._source.attribute_count)} attributes for B, expected 2`;
}

export const exploreExportRest: RestCase[] = [
  {
    route: "GET /events/export",
    request: () => ({ path: "/events/export?query=*&format=json" }),
    b: "filtered", validator: { status: 200 }, validatorFinds: (w) => [w.a.privateEvent.uuid],
    bCheck: eventsCheck,
  },
  {
    route: "GET /attributes/export",
    request: () => ({ path: "/attributes/export?query=*&format=json" }),
    b: "filtered", validator: { status: 200 }, validatorFinds: (w) => [w.a.privateAttribute.uuid, w.a.sharedPrivateAttribute.uuid],
    bCheck: attributesCheck,
  },
];

export const exploreExportGraphql: GraphqlCase[] = [
  {
    // Only a URL (checked, not run): B's answer names nothing of A's; the download itself is the REST row.
    field: "Query.exploreExportUrl", scopes: ["attributes:read"],
    query: `{ exploreExportUrl(target: ATTRIBUTES, query: "*", format: JSON) }`,
    b: "filtered", validator: { status: 200 },
    bCheck: (r) => (r.data.exploreExportUrl === "/attributes/export?query=*&format=json" ? null : `unexpected URL ${JSON.stringify(r.data.exploreExportUrl)}`),
  },
];
