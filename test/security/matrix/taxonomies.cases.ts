import crypto from "node:crypto";
import { expectFor, type MatrixCase, type MatrixWorld } from "../../support/authz-matrix.ts";

/** Role 3 ("user") reads taxonomies but cannot import, enable or disable them (taxonomies:update + taxonomies:admin). */
const readers = expectFor.anyUser;
const updaters = expectFor.adminOnly;

const fixtures = new WeakMap<MatrixWorld, Promise<{ id: number; uuid: string }>>();

/** A small taxonomy with one predicate and one entry, written directly so that read routes have something to read. */
function fixtureTaxonomy(w: MatrixWorld): Promise<{ id: number; uuid: string }> {
  let f = fixtures.get(w);
  if (!f) {
    f = (async () => {
      const pool = w.app.booted.ctx.db.pool;
      const uuid = crypto.randomUUID();
      const ns = `matrix-${uuid.slice(0, 8)}`;
      const { rows } = await pool.query<{ id: number }>("INSERT INTO taxonomies (uuid, namespace, version) VALUES ($1, $2, 1) RETURNING id", [uuid, ns]);
      const p = await pool.query<{ id: number }>("INSERT INTO taxonomy_predicates (taxonomy_id, value, tag_name, exclusive) VALUES ($1, 'level', $2, true) RETURNING id", [rows[0].id, `${ns}:level`]);
      await pool.query("INSERT INTO taxonomy_entries (taxonomy_predicate_id, value, tag_name) VALUES ($1, 'high', $2)", [p.rows[0].id, `${ns}:level="high"`]);
      return { id: rows[0].id, uuid };
    })();
    fixtures.set(w, f);
  }
  return f;
}

export const taxonomyCases: MatrixCase[] = [
  // The matrix app reads taxonomies from ../shared/data/misp-taxonomies (see authorization-matrix.test.ts).
  { route: "POST /taxonomies/update", request: () => ({ path: "/taxonomies/update" }), expect: updaters(200) },
  { route: "GET /taxonomies/", request: () => ({ path: "/taxonomies/?size=5&enabled=false" }), expect: readers(200) },
  { route: "GET /taxonomies/{taxonomy_id}", request: async (_a, w) => ({ path: `/taxonomies/${(await fixtureTaxonomy(w)).uuid}` }), expect: readers(200) },
  {
    route: "PATCH /taxonomies/{taxonomy_id}",
    request: async (_a, w) => ({ path: `/taxonomies/${(await fixtureTaxonomy(w)).id}`, json: { enabled: true } }),
    expect: updaters(200),
  },
];
