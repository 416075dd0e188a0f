import type { Actor, MatrixCase, MatrixWorld } from "../../support/authz-matrix.ts";
import { createOrganisation, createUser, type TestUser } from "../../support/fixtures.ts";

/**
 * Event reports: access follows their event, as for objects. `otherUser` aims at a report of an
 * org-only event of ANOTHER organisation (404, existence not disclosed); the owner works on a fresh
 * event of its own, the administrator on the owner's (2xx). Anonymous callers and the `tags:read`
 * key fail on authentication and scopes before any lookup.
 */
const perEvent = (ok: number): Record<Actor, number> => ({ anonymous: 401, wrongScope: 403, otherUser: 404, owner: ok, admin: ok });

const foreigners = new WeakMap<MatrixWorld, Promise<TestUser>>();

function foreignUser(w: MatrixWorld): Promise<TestUser> {
  let f = foreigners.get(w);
  if (!f) {
    f = createOrganisation(w.app, w.admin, w.unique("matrix-report-org")).then((org) => createUser(w.app, w.admin, 3, org));
    foreigners.set(w, f);
  }
  return f;
}

async function call(w: MatrixWorld, user: TestUser, method: string, path: string, json?: unknown) {
  const res = await w.app.http.request(method, path, { token: user.token, json });
  if (res.status >= 300) throw new Error(`matrix fixture ${method} ${path}: ${res.status} ${res.text}`);
  return res.body;
}

async function eventFor(actor: Actor, w: MatrixWorld): Promise<{ uuid: string; user: TestUser }> {
  const user = actor === "otherUser" ? await foreignUser(w) : w.owner;
  const e = await call(w, user, "POST", "/events/", { info: w.unique("matrix-report-event"), distribution: 0 });
  return { uuid: e.uuid, user };
}

async function reportFor(actor: Actor, w: MatrixWorld): Promise<string> {
  const e = await eventFor(actor, w);
  return (await call(w, e.user, "POST", `/reports/${e.uuid}`, { name: "matrix", content: "# matrix" })).uuid;
}

export const reportCases: MatrixCase[] = [
  { route: "GET /reports/{uuid}", request: async (a, w) => ({ path: `/reports/${(await eventFor(a, w)).uuid}` }), expect: perEvent(200) },
  { route: "POST /reports/{uuid}", request: async (a, w) => ({ path: `/reports/${(await eventFor(a, w)).uuid}`, json: { name: "matrix", content: "text" } }), expect: perEvent(200) },
  { route: "PUT /reports/{uuid}", request: async (a, w) => ({ path: `/reports/${await reportFor(a, w)}`, json: { content: "changed" } }), expect: perEvent(200) },
  { route: "DELETE /reports/{uuid}", request: async (a, w) => ({ path: `/reports/${await reportFor(a, w)}` }), expect: perEvent(200) },
];
