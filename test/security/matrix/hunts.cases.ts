import { expectFor, type Actor, type MatrixCase, type MatrixWorld } from "../../support/authz-matrix.ts";

/**
 * Hunts belong to their creator: the owner's hunt is found by the owner and by administrators
 * (who manage every hunt; a run still searches with the owner's access), another user gets 404.
 * Role 3 (owner, otherUser) holds hunts:*; the wrong-scope key only tags:read. Listing everyone's
 * hunts (`all=true`) is for administrators.
 */
async function ownersHunt(w: MatrixWorld, run = false): Promise<number> {
  const res = await w.app.http.post("/hunts/", { token: w.owner.token, json: { name: w.unique("matrix"), query: "type:domain" } });
  if (res.status !== 201) throw new Error(`matrix hunt: ${res.status} ${res.text}`);
  if (run) {
    const ran = await w.app.http.post(`/hunts/${res.body.id}/run`, { token: w.owner.token });
    if (ran.status !== 200) throw new Error(`matrix hunt run: ${ran.status} ${ran.text}`);
  }
  return res.body.id;
}

const ownerOrAdmin = (ok: number): Record<Actor, number> => ({ anonymous: 401, wrongScope: 403, otherUser: 404, owner: ok, admin: ok });

export const huntCases: MatrixCase[] = [
  { route: "GET /hunts/", request: () => ({ path: "/hunts/" }), expect: expectFor.anyUser(200) },
  {
    route: "POST /hunts/",
    request: (_a, w) => ({ path: "/hunts/", json: { name: w.unique("matrix"), query: "value:*.example", hunt_type: "search" } }),
    expect: expectFor.anyUser(201),
  },
  { route: "GET /hunts/{hunt_id}", request: async (_a, w) => ({ path: `/hunts/${await ownersHunt(w)}` }), expect: ownerOrAdmin(200) },
  { route: "PATCH /hunts/{hunt_id}", request: async (_a, w) => ({ path: `/hunts/${await ownersHunt(w)}`, json: { status: "paused" } }), expect: ownerOrAdmin(200) },
  { route: "DELETE /hunts/{hunt_id}", request: async (_a, w) => ({ path: `/hunts/${await ownersHunt(w)}` }), expect: ownerOrAdmin(204) },
  { route: "POST /hunts/{hunt_id}/run", request: async (_a, w) => ({ path: `/hunts/${await ownersHunt(w)}/run` }), expect: ownerOrAdmin(200) },
  { route: "GET /hunts/{hunt_id}/results", request: async (_a, w) => ({ path: `/hunts/${await ownersHunt(w, true)}/results` }), expect: ownerOrAdmin(200) },
  { route: "GET /hunts/{hunt_id}/history", request: async (_a, w) => ({ path: `/hunts/${await ownersHunt(w, true)}/history` }), expect: ownerOrAdmin(200) },
  { route: "DELETE /hunts/{hunt_id}/history", request: async (_a, w) => ({ path: `/hunts/${await ownersHunt(w, true)}/history` }), expect: ownerOrAdmin(204) },
];
