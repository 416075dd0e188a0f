import crypto from "node:crypto";
import { expectFor, type MatrixCase, type MatrixWorld } from "../../support/authz-matrix.ts";

/** Role 3 ("user") reads galaxies but cannot import, enable or disable them. */
const readers = expectFor.anyUser;
const updaters = (ok: number) => ({ anonymous: 401, wrongScope: 403, otherUser: 403, owner: 403, admin: ok });

const fixtures = new WeakMap<MatrixWorld, Promise<{ id: number; uuid: string }>>();

/** A small galaxy with two clusters, written directly so that read routes have something to read. */
function fixtureGalaxy(w: MatrixWorld): Promise<{ id: number; uuid: string }> {
  let f = fixtures.get(w);
  if (!f) {
    f = (async () => {
      const uuid = crypto.randomUUID();
      const { rows } = await w.app.booted.ctx.db.pool.query<{ id: number }>(
        `INSERT INTO galaxies (uuid, name, type, version) VALUES ($1, 'Matrix fixture', 'matrix-fixture', '1') RETURNING id`,
        [uuid],
      );
      for (const value of ["Alpha - X0001", "Beta - X0002"]) {
        await w.app.booted.ctx.db.pool.query(
          `INSERT INTO galaxy_clusters (uuid, galaxy_id, type, value, tag_name, external_ids)
           VALUES ($1, $2, 'matrix-fixture', $3, $4, $5)`,
          [crypto.randomUUID(), rows[0].id, value, `misp-galaxy:matrix-fixture="${value}"`, [value.slice(-5)]],
        );
      }
      return { id: rows[0].id, uuid };
    })();
    fixtures.set(w, f);
  }
  return f;
}

export const galaxyCases: MatrixCase[] = [
  {
    route: "POST /galaxies/update",
    // The matrix app reads galaxies from ../shared/data/misp-galaxy (see authorization-matrix.test.ts).
    request: () => ({ path: "/galaxies/update" }),
    expect: updaters(200),
  },
  { route: "GET /galaxies/", request: () => ({ path: "/galaxies/?size=5" }), expect: readers(200) },
  { route: "GET /galaxies/mitre-attack-patterns", request: () => ({ path: "/galaxies/mitre-attack-patterns?filter=T1059" }), expect: readers(200) },
  { route: "GET /galaxies/{galaxy_id}", request: async (_a, w) => ({ path: `/galaxies/${(await fixtureGalaxy(w)).uuid}` }), expect: readers(200) },
  {
    route: "GET /galaxies/{galaxy_id}/clusters",
    request: async (_a, w) => ({ path: `/galaxies/${(await fixtureGalaxy(w)).id}/clusters?filter=x0002` }),
    expect: readers(200),
  },
  {
    route: "PATCH /galaxies/{galaxy_id}",
    request: async (_a, w) => ({ path: `/galaxies/${(await fixtureGalaxy(w)).id}`, json: { enabled: true } }),
    expect: updaters(200),
  },
];
