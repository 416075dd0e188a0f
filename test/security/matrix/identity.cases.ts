import { expectFor, type MatrixCase } from "../../support/authz-matrix.ts";
import { ADMIN_EMAIL, ADMIN_PASSWORD } from "../../support/app.ts";

const same = (status: number) => ({ anonymous: status, wrongScope: status, otherUser: status, owner: status, admin: status });

export const identityCases: MatrixCase[] = [
  // ---- auth ----
  {
    route: "POST /auth/token",
    request: () => ({ path: "/auth/token", form: { username: ADMIN_EMAIL, password: ADMIN_PASSWORD } }),
    expect: same(200),
  },
  { route: "POST /auth/refresh", request: () => ({ path: "/auth/refresh", json: { refresh_token: "x".repeat(43) } }), expect: same(401) },
  {
    route: "POST /auth/logout",
    request: async (actor, w) => {
      if (actor === "anonymous" || actor === "wrongScope") return { path: "/auth/logout" };
      // Logout ends every session of its user, so a throwaway user logs out: the world's tokens stay.
      const user = await w.throwawayUser();
      return { path: "/auth/logout", authorization: `Bearer ${user.token}` };
    },
    // An API key has no session to end.
    expect: { anonymous: 401, wrongScope: 401, otherUser: 204, owner: 204, admin: 204 },
  },
  { route: "GET /auth/scopes", request: () => ({ path: "/auth/scopes" }), expect: { ...same(200), anonymous: 401 } },
  { route: "GET /auth/whoami", request: () => ({ path: "/auth/whoami" }), expect: { ...same(200), anonymous: 401 } },

  // ---- users ----
  { route: "GET /users/", request: () => ({ path: "/users/" }), expect: expectFor.adminOnly(200) },
  { route: "GET /users/me", request: () => ({ path: "/users/me" }), expect: expectFor.anyUser(200) },
  {
    route: "PATCH /users/me",
    // A wrong current password: authorised callers reach validation (422) and nothing changes.
    request: () => ({ path: "/users/me", json: { current_password: "wrong-password", password: "new-password-123" } }),
    expect: expectFor.anyUser(422),
  },
  { route: "GET /users/{user_id}", request: (_a, w) => ({ path: `/users/${w.owner.id}` }), expect: expectFor.adminOnly(200) },
  {
    route: "POST /users/",
    request: (_a, w) => ({ path: "/users/", json: { email: `${w.unique("u")}@example.test`, password: "password-123", role_id: 3, org_id: w.admin.orgId } }),
    expect: expectFor.adminOnly(201),
  },
  {
    route: "PATCH /users/{user_id}",
    request: async (_a, w) => ({ path: `/users/${(await w.throwawayUser()).id}`, json: { disabled: false } }),
    expect: expectFor.adminOnly(200),
  },
  {
    route: "DELETE /users/{user_id}",
    request: async (_a, w) => ({ path: `/users/${(await w.throwawayUser()).id}` }),
    expect: expectFor.adminOnly(204),
  },

  // ---- roles ----
  { route: "GET /roles/scopes", request: () => ({ path: "/roles/scopes" }), expect: expectFor.anyUser(200) },
  { route: "GET /roles/", request: () => ({ path: "/roles/" }), expect: expectFor.anyUser(200) },
  { route: "GET /roles/{role_id}", request: () => ({ path: "/roles/3" }), expect: expectFor.anyUser(200) },
  { route: "POST /roles/", request: (_a, w) => ({ path: "/roles/", json: { name: w.unique("r"), scopes: ["users:me"] } }), expect: expectFor.adminOnly(201) },
  {
    route: "PATCH /roles/{role_id}",
    request: async (_a, w) => ({ path: `/roles/${await w.throwawayRole()}`, json: { scopes: ["users:me", "roles:read"] } }),
    expect: expectFor.adminOnly(200),
  },
  { route: "DELETE /roles/{role_id}", request: async (_a, w) => ({ path: `/roles/${await w.throwawayRole()}` }), expect: expectFor.adminOnly(204) },

  // ---- organisations ----
  { route: "GET /organisations/", request: () => ({ path: "/organisations/" }), expect: expectFor.anyUser(200) },
  { route: "GET /organisations/{org_id}", request: (_a, w) => ({ path: `/organisations/${w.owner.orgId}` }), expect: expectFor.anyUser(200) },
  { route: "POST /organisations/", request: (_a, w) => ({ path: "/organisations/", json: { name: w.unique("org") } }), expect: expectFor.adminOnly(201) },
  {
    route: "PATCH /organisations/{org_id}",
    request: async (_a, w) => {
      const org = await w.app.http.post("/organisations/", { token: w.admin.token, json: { name: w.unique("org") } });
      return { path: `/organisations/${org.body.id}`, json: { sector: "finance" } };
    },
    expect: expectFor.adminOnly(200),
  },
  {
    route: "DELETE /organisations/{org_id}",
    request: async (_a, w) => {
      const org = await w.app.http.post("/organisations/", { token: w.admin.token, json: { name: w.unique("org") } });
      return { path: `/organisations/${org.body.uuid}` };
    },
    expect: expectFor.adminOnly(204),
  },

  // ---- user settings: always the caller's own ----
  { route: "GET /settings/user", request: () => ({ path: "/settings/user" }), expect: expectFor.anyUser(200) },
  { route: "GET /settings/user/{namespace}", request: () => ({ path: "/settings/user/explore" }), expect: expectFor.anyUser(200) },
  {
    route: "POST /settings/user/{namespace}",
    request: () => ({ path: "/settings/user/explore", json: { saved_searches: ["type:ip-dst"] } }),
    expect: expectFor.anyUser(200),
  },
  {
    route: "DELETE /settings/user/{namespace}",
    request: async (actor, w) => {
      if (actor !== "anonymous" && actor !== "wrongScope") {
        await w.app.http.post("/settings/user/ui", { token: w[actor].token, json: { theme: "dark" } });
      }
      return { path: "/settings/user/ui" };
    },
    expect: expectFor.anyUser(200),
  },

  // ---- runtime settings ----
  { route: "GET /settings/runtime", request: () => ({ path: "/settings/runtime" }), expect: expectFor.adminOnly(200) },
  { route: "GET /settings/runtime/{namespace}", request: () => ({ path: "/settings/runtime/retention" }), expect: expectFor.adminOnly(200) },
  {
    route: "POST /settings/runtime/{namespace}",
    request: () => ({ path: "/settings/runtime/notifications", json: { email_max_per_hour: 10 } }),
    expect: expectFor.adminOnly(200),
  },
  { route: "DELETE /settings/runtime/{namespace}", request: () => ({ path: "/settings/runtime/notifications" }), expect: expectFor.adminOnly(200) },

  // ---- API keys ----
  { route: "GET /api-keys/", request: () => ({ path: "/api-keys/" }), expect: expectFor.anyUser(200) },
  {
    route: "POST /api-keys/",
    request: (_a, w) => ({ path: "/api-keys/", json: { name: w.unique("k"), scopes: ["users:me"] } }),
    expect: expectFor.anyUser(201),
  },
  {
    route: "PATCH /api-keys/{key_id}",
    request: async (_a, w) => ({ path: `/api-keys/${await w.apiKeyOf(w.owner)}`, json: { disabled: true } }),
    expect: expectFor.ownerOnly(200),
  },
  {
    route: "DELETE /api-keys/{key_id}",
    request: async (_a, w) => ({ path: `/api-keys/${await w.apiKeyOf(w.owner)}` }),
    expect: expectFor.ownerOnly(204),
  },
  { route: "GET /admin/api-keys/", request: () => ({ path: "/admin/api-keys/" }), expect: expectFor.adminOnly(200) },
  {
    route: "PATCH /admin/api-keys/{key_id}",
    request: async (_a, w) => ({ path: `/admin/api-keys/${await w.apiKeyOf(w.owner)}`, json: { disabled: true } }),
    expect: expectFor.adminOnly(200),
  },
  {
    route: "DELETE /admin/api-keys/{key_id}",
    request: async (_a, w) => ({ path: `/admin/api-keys/${await w.apiKeyOf(w.owner)}` }),
    expect: expectFor.adminOnly(204),
  },

  // ---- audit ----
  { route: "GET /admin/audit-logs/", request: () => ({ path: "/admin/audit-logs/" }), expect: expectFor.adminOnly(200) },
];
