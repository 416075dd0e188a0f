import crypto from "node:crypto";
import { expectFor, type MatrixCase, type MatrixWorld } from "../../support/authz-matrix.ts";

/** Role 3 ("user") reads warninglists but cannot import, enable or disable them (warninglists:update is admin-level). */
const readers = expectFor.anyUser;
const updaters = expectFor.adminOnly;

const fixtures = new WeakMap<MatrixWorld, Promise<number>>();

/** A small list written directly, so that read routes have something to read. */
function fixtureList(w: MatrixWorld): Promise<number> {
  let f = fixtures.get(w);
  if (!f) {
    f = (async () => {
      const pool = w.app.booted.ctx.db.pool;
      const { rows } = await pool.query<{ id: number }>(
        "INSERT INTO warninglists (name, version, type, matching_attributes, entry_count) VALUES ($1, 1, 'string', '{md5}', 1) RETURNING id",
        [`matrix ${crypto.randomUUID()}`],
      );
      await pool.query("INSERT INTO warninglist_entries (warninglist_id, position, value) VALUES ($1, 0, 'd41d8cd98f00b204e9800998ecf8427e')", [rows[0].id]);
      return rows[0].id;
    })();
    fixtures.set(w, f);
  }
  return f;
}

export const warninglistCases: MatrixCase[] = [
  // The matrix app reads warninglists from ../shared/data/misp-warninglists (see authorization-matrix.test.ts).
  { route: "POST /warninglists/update", request: () => ({ path: "/warninglists/update" }), expect: updaters(200) },
  { route: "GET /warninglists/", request: () => ({ path: "/warninglists/?size=5&enabled=false" }), expect: readers(200) },
  { route: "GET /warninglists/{warninglist_id}", request: async (_a, w) => ({ path: `/warninglists/${await fixtureList(w)}?size=1` }), expect: readers(200) },
  {
    route: "PATCH /warninglists/{warninglist_id}",
    request: async (_a, w) => ({ path: `/warninglists/${await fixtureList(w)}`, json: { enabled: true } }),
    expect: updaters(200),
  },
];
