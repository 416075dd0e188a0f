import { expectFor, type MatrixCase, type MatrixWorld } from "../../support/authz-matrix.ts";

/**
 * Correlations. Role 3 (owner, otherUser) holds correlations:read only: it lists, searches and
 * counts (pairs it may not read are filtered, see test/integration/correlations.test.ts) but can
 * neither rebuild nor manage exclusions. Exclusions and rebuilds are global, not owned.
 */
async function asAdmin(w: MatrixWorld, method: string, path: string, json?: unknown) {
  const res = await w.app.http.request(method, path, { token: w.admin.token, json });
  if (res.status >= 300) throw new Error(`matrix fixture ${method} ${path}: ${res.status} ${res.text}`);
  return res.body;
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
    route: "DELETE /correlations/exclusions/{exclusion_id}",
    request: async (_a, w) => ({ path: `/correlations/exclusions/${(await asAdmin(w, "POST", "/correlations/exclusions", { value: `${w.unique("matrix")}.%` })).id}` }),
    expect: expectFor.adminOnly(204),
  },
];
