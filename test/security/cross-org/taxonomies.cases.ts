import crypto from "node:crypto";
import type { GraphqlCase } from "./graphql.ts";
import type { RestCase } from "./rest.ts";
import type { CrossOrgWorld } from "./world.ts";

const fixtures = new WeakMap<CrossOrgWorld, Promise<{ id: number; uuid: string }>>();

/** One small taxonomy with a predicate and an entry, written directly: taxonomies are instance-wide. */
function taxonomy(w: CrossOrgWorld): Promise<{ id: number; uuid: string }> {
  let f = fixtures.get(w);
  if (!f) {
    f = (async () => {
      const pool = w.app.booted.ctx.db.pool;
      const uuid = crypto.randomUUID();
      const ns = `cross-org-${uuid.slice(0, 8)}`;
      const { rows } = await pool.query<{ id: number }>("INSERT INTO taxonomies (uuid, namespace, version, exclusive) VALUES ($1, $2, 1, true) RETURNING id", [uuid, ns]);
      const p = await pool.query<{ id: number }>("INSERT INTO taxonomy_predicates (taxonomy_id, value, tag_name) VALUES ($1, 'level', $2) RETURNING id", [rows[0].id, `${ns}:level`]);
      await pool.query("INSERT INTO taxonomy_entries (taxonomy_predicate_id, value, tag_name) VALUES ($1, 'high', $2)", [p.rows[0].id, `${ns}:level="high"`]);
      return { id: rows[0].id, uuid };
    })();
    fixtures.set(w, f);
  }
  return f;
}

/** Taxonomies are instance-wide: B reads them like everyone ("shared"); importing and changing them is the administrator's. */
export const taxonomiesRest: RestCase[] = [
  { route: "POST /taxonomies/update", request: () => ({ path: "/taxonomies/update" }), b: "denied", validator: { status: 200 } },
  { route: "GET /taxonomies/", request: () => ({ path: "/taxonomies/?size=100" }), b: "shared", validator: { status: 200 } },
  { route: "GET /taxonomies/{taxonomy_id}", request: async ({ w }) => ({ path: `/taxonomies/${(await taxonomy(w)).uuid}` }), b: "shared", validator: { status: 200 } },
  { route: "PATCH /taxonomies/{taxonomy_id}", request: async ({ w }) => ({ path: `/taxonomies/${(await taxonomy(w)).id}`, json: { enabled: true } }), b: "denied", validator: { status: 200 } },
];

export const taxonomiesGraphql: GraphqlCase[] = [
  { field: "Query.taxonomies", scopes: ["taxonomies:read"], query: "{ taxonomies(size: 100) { items { id namespace predicateCount } } }", b: "shared", validator: { status: 200 } },
  {
    field: "Query.taxonomy", scopes: ["taxonomies:read"],
    query: "query($id: Int) { taxonomy(id: $id) { id namespace predicates { tagName entries { tagName } } } }",
    variables: async ({ w }) => ({ id: (await taxonomy(w)).id }),
    b: "shared", validator: { status: 200 },
  },
  {
    field: "Mutation.setTaxonomyFlags", scopes: ["taxonomies:update", "taxonomies:admin"],
    query: "mutation($id: Int!) { setTaxonomyFlags(id: $id, enabled: true) { id enabled } }",
    variables: async ({ w }) => ({ id: (await taxonomy(w)).id }),
    b: "denied", validator: { status: 200 },
  },
  { field: "Mutation.updateTaxonomies", scopes: ["taxonomies:update", "taxonomies:admin"], query: "mutation { updateTaxonomies { taxonomies } }", b: "denied", validator: { status: 200 } },
];
