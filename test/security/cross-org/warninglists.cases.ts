import crypto from "node:crypto";
import type { GraphqlCase } from "./graphql.ts";
import type { RestCase } from "./rest.ts";
import type { CrossOrgWorld } from "./world.ts";

const fixtures = new WeakMap<CrossOrgWorld, Promise<number>>();

/** One small list written directly: warninglists are instance-wide. */
function warninglist(w: CrossOrgWorld): Promise<number> {
  let f = fixtures.get(w);
  if (!f) {
    f = (async () => {
      const pool = w.app.booted.ctx.db.pool;
      const { rows } = await pool.query<{ id: number }>(
        "INSERT INTO warninglists (name, version, type, matching_attributes, entry_count) VALUES ($1, 1, 'cidr', '{ip-dst}', 1) RETURNING id",
        [`cross-org ${crypto.randomUUID()}`],
      );
      await pool.query("INSERT INTO warninglist_entries (warninglist_id, position, value) VALUES ($1, 0, '192.0.2.0/24')", [rows[0].id]);
      return rows[0].id;
    })();
    fixtures.set(w, f);
  }
  return f;
}

/** Warninglists are instance-wide: B reads them like everyone ("shared"); importing and enabling them is the administrator's. */
export const warninglistsRest: RestCase[] = [
  { route: "POST /warninglists/update", request: () => ({ path: "/warninglists/update" }), b: "denied", validator: { status: 200 } },
  { route: "GET /warninglists/", request: () => ({ path: "/warninglists/?size=100" }), b: "shared", validator: { status: 200 } },
  { route: "GET /warninglists/{warninglist_id}", request: async ({ w }) => ({ path: `/warninglists/${await warninglist(w)}` }), b: "shared", validator: { status: 200 } },
  { route: "PATCH /warninglists/{warninglist_id}", request: async ({ w }) => ({ path: `/warninglists/${await warninglist(w)}`, json: { enabled: true } }), b: "denied", validator: { status: 200 } },
];

export const warninglistsGraphql: GraphqlCase[] = [
  { field: "Query.warninglists", scopes: ["warninglists:read"], query: "{ warninglists(size: 100) { items { id name entryCount } } }", b: "shared", validator: { status: 200 } },
  {
    field: "Query.warninglist", scopes: ["warninglists:read"],
    query: "query($id: Int!) { warninglist(id: $id) { id name entries(size: 5) } }",
    variables: async ({ w }) => ({ id: await warninglist(w) }),
    b: "shared", validator: { status: 200 },
  },
  {
    field: "Mutation.setWarninglistEnabled", scopes: ["warninglists:update"],
    query: "mutation($id: Int!) { setWarninglistEnabled(id: $id, enabled: true) { id enabled } }",
    variables: async ({ w }) => ({ id: await warninglist(w) }),
    b: "denied", validator: { status: 200 },
  },
  { field: "Mutation.updateWarninglists", scopes: ["warninglists:update"], query: "mutation { updateWarninglists { lists } }", b: "denied", validator: { status: 200 } },
];
