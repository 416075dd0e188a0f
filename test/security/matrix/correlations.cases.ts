import { expectFor, type Actor, type MatrixCase, type MatrixWorld } from "../../support/authz-matrix.ts";
import { createOrganisation, createUser, type TestUser } from "../../support/fixtures.ts";

/**
 * Correlations. Role 3 (owner, otherUser) holds correlations:read only: it lists, searches, counts
 * and draws histograms (pairs it may not read are filtered, see test/integration/correlations*.test.ts)
 * but can neither rebuild, delete nor manage exclusions. Exclusions, rebuilds and deletion are
 * global, not owned. The per-event route answers 404 for an event the caller may not read: in the
 * matrix world `otherUser` shares the owner's organisation, so it asks about an org-only event of
 * ANOTHER organisation.
 */
async function asUser(w: MatrixWorld, user: TestUser, method: string, path: string, json?: unknown) {
  const res = await w.app.http.request(method, path, { token: user.token, json });
  if (res.status >= 300) throw new Error(`matrix fixture ${method} ${path}: ${res.status} ${res.text}`);
  return res.body;
}
const asAdmin = (w: MatrixWorld, method: string, path: string, json?: unknown) => asUser(w, w.admin, method, path, json);

const foreigners = new WeakMap<MatrixWorld, Promise<TestUser>>();

/** A role-3 user of another organisation, once per world. */
function foreignUser(w: MatrixWorld): Promise<TestUser> {
  let f = foreigners.get(w);
  if (!f) {
    f = createOrganisation(w.app, w.admin, w.unique("matrix-corr-org")).then((org) => createUser(w.app, w.admin, 3, org));
    foreigners.set(w, f);
  }
  return f;
}

/** A fresh org-only event: another organisation's for `otherUser`, the owner's for everyone else. */
async function eventFor(actor: Actor, w: MatrixWorld): Promise<string> {
  const user = actor === "otherUser" ? await foreignUser(w) : w.owner;
  return (await asUser(w, user, "POST", "/events/", { info: w.unique("matrix-corr-event"), distribution: 0 })).uuid;
}

export const correlationCases: MatrixCase[] = [
  { route: "GET /correlations/", request: () => ({ path: "/correlations/?size=5" }), expect: expectFor.anyUser(200) },
  { route: "GET /correlations/search", request: () => ({ path: "/correlations/search?query=*&size=5" }), expect: expectFor.anyUser(200) },
  { route: "GET /correlations/stats", request: () => ({ path: "/correlations/stats" }), expect: expectFor.anyUser(200) },
  { route: "POST /correlations/run", request: () => ({ path: "/correlations/run" }), expect: expectFor.adminOnly(202) },
  {
    route: "GET /correlations/run/{rebuild_id}",
    request: async (_a, w) => ({ path: `/correlations/run/${(await asAdmin(w, "POST", "/correlations/run")).rebuild.id}` }),
    expect: expectFor.anyUser(200),
  },
  { route: "GET /correlations/exclusions", request: () => ({ path: "/correlations/exclusions" }), expect: expectFor.anyUser(200) },
  {
    route: "POST /correlations/exclusions",
    request: (_a, w) => ({ path: "/correlations/exclusions", json: { value: `${w.unique("matrix")}.%` } }),
    expect: expectFor.adminOnly(201),
  },
  {
    route: "GET /correlations/events/{source_event_uuid}/top",
    request: async (a, w) => ({ path: `/correlations/events/${await eventFor(a, w)}/top` }),
    expect: { anonymous: 401, wrongScope: 403, otherUser: 404, owner: 200, admin: 200 },
  },
  { route: "GET /correlations/histogram", request: () => ({ path: "/correlations/histogram?interval=1w" }), expect: expectFor.anyUser(200) },
  { route: "DELETE /correlations/", request: () => ({ path: "/correlations/" }), expect: expectFor.adminOnly(200) },
  {
    route: "DELETE /correlations/exclusions/{exclusion_id}",
    request: async (_a, w) => ({ path: `/correlations/exclusions/${(await asAdmin(w, "POST", "/correlations/exclusions", { value: `${w.unique("matrix")}.%` })).id}` }),
    expect: expectFor.adminOnly(204),
  },
];
