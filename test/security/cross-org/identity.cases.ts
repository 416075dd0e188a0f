import crypto from "node:crypto";
import { createUser } from "../../support/fixtures.ts";
import type { CaseContext } from "./expectations.ts";
import type { RestCase } from "./rest.ts";
import type { BActor } from "./world.ts";

/**
 * Authentication, users, roles, organisations, settings, API keys and the audit log. Users, keys,
 * notifications and settings belong to their user (org admins manage their own organisation's
 * users); roles, organisations and runtime settings are instance-wide: B reads them, only the site
 * administrator changes them.
 */
export const everyB = (status: number): Partial<Record<BActor, number>> => ({ bAdmin: status, bUser: status, bRead: status, bKey: status });

/** A fresh session of a throwaway user of the caller's organisation: logout ends every session of its user. */
async function throwawaySession({ w, actor, validating }: CaseContext): Promise<string | undefined> {
  if (actor === "bKey") return undefined;
  const user = await createUser(w.app, w.site, 3, validating ? w.a.org.id : w.orgB.id);
  return `Bearer ${user.token}`;
}

export const identityRest: RestCase[] = [
  // ---- auth ----
  {
    route: "POST /auth/token",
    // B guesses a password of A's read-only user: 401, whoever asks (the route is anonymous).
    request: ({ w, validating }) => ({ path: "/auth/token", form: { username: w.users.aRead.email, password: validating ? w.users.aRead.password : "not-the-password" } }),
    b: "denied", override: everyB(401), validator: { status: 200 },
  },
  {
    route: "POST /auth/refresh",
    request: ({ w, validating }) => ({ path: "/auth/refresh", json: { refresh_token: validating ? w.users.aRead.refreshToken : crypto.randomBytes(32).toString("base64url") } }),
    b: "denied", override: everyB(401), validator: { status: 200 },
  },
  {
    route: "POST /auth/logout",
    request: async (ctx) => ({ path: "/auth/logout", authorization: await throwawaySession(ctx) }),
    // An API key has no session to end.
    b: "own", ok: 204, override: { bKey: 401 }, validator: { status: 204 },
  },
  { route: "GET /auth/whoami", request: () => ({ path: "/auth/whoami" }), b: "own", validator: { status: 200 } },
  { route: "GET /auth/scopes", request: () => ({ path: "/auth/scopes" }), b: "shared", validator: { status: 200 } },

  // ---- users: an org admin manages their own organisation's only ----
  { route: "GET /users/", request: () => ({ path: "/users/?limit=1000" }), b: "filtered", validator: { status: 200 }, validatorFinds: (w) => [w.users.aUser.email] },
  { route: "GET /users/me", request: () => ({ path: "/users/me" }), b: "own", validator: { status: 200 } },
  {
    route: "PATCH /users/me",
    // A wrong current password: every caller that may use the route reaches the check (422), nothing changes.
    request: () => ({ path: "/users/me", json: { current_password: "wrong-password", password: "new-password-123" } }),
    b: "own", ok: 422, validator: { status: 422 },
  },
  { route: "GET /users/{user_id}", request: ({ w }) => ({ path: `/users/${w.users.aUser.id}` }), b: "hidden", validator: { status: 200 } },
  {
    route: "POST /users/",
    request: ({ w }) => ({ path: "/users/", json: { email: `${w.unique("new")}@example.test`, password: "password-123", role_id: 3, org_id: w.a.org.id } }),
    b: "denied", validator: { status: 201 },
  },
  {
    route: "PATCH /users/{user_id}",
    request: async ({ w, validating }) => ({ path: `/users/${validating ? await w.throwaway.user() : w.users.aRead.id}`, json: { disabled: true } }),
    b: "hidden", validator: { status: 200 },
  },
  {
    route: "DELETE /users/{user_id}",
    request: async ({ w, validating }) => ({ path: `/users/${validating ? await w.throwaway.user() : w.users.aRead.id}` }),
    b: "hidden", validator: { status: 204 },
  },

  // ---- roles: instance-wide, the roles A's users hold ----
  { route: "GET /roles/scopes", request: () => ({ path: "/roles/scopes" }), b: "shared", validator: { status: 200 } },
  { route: "GET /roles/", request: () => ({ path: "/roles/" }), b: "shared", validator: { status: 200 } },
  { route: "GET /roles/{role_id}", request: () => ({ path: "/roles/2" }), b: "shared", validator: { status: 200 } },
  { route: "POST /roles/", request: ({ w }) => ({ path: "/roles/", json: { name: w.unique("role"), scopes: ["*"] } }), b: "denied", validator: { status: 201 } },
  {
    route: "PATCH /roles/{role_id}",
    request: async ({ w, validating }) => ({ path: `/roles/${validating ? await w.throwaway.role() : 3}`, json: { scopes: ["users:me"] } }),
    b: "denied", validator: { status: 200 },
  },
  {
    route: "DELETE /roles/{role_id}",
    request: async ({ w, validating }) => ({ path: `/roles/${validating ? await w.throwaway.role() : 4}` }),
    b: "denied", validator: { status: 204 },
  },

  // ---- organisations: names are shared (MISP shows them); only the site administrator changes them ----
  { route: "GET /organisations/", request: () => ({ path: "/organisations/?limit=1000" }), b: "shared", validator: { status: 200 } },
  { route: "GET /organisations/{org_id}", request: ({ w }) => ({ path: `/organisations/${w.a.org.id}` }), b: "shared", validator: { status: 200 } },
  { route: "POST /organisations/", request: ({ w }) => ({ path: "/organisations/", json: { name: w.unique("org") } }), b: "denied", validator: { status: 201 } },
  { route: "PATCH /organisations/{org_id}", request: ({ w }) => ({ path: `/organisations/${w.a.org.id}`, json: { sector: "taken over" } }), b: "denied", validator: { status: 200 } },
  // A still has users: the administrator's deletion is refused with 409 (and proves the request is valid).
  { route: "DELETE /organisations/{org_id}", request: ({ w }) => ({ path: `/organisations/${w.a.org.uuid}` }), b: "denied", validator: { status: 409 } },

  // ---- user settings: the caller's own ----
  { route: "GET /settings/user", request: () => ({ path: "/settings/user" }), b: "own", validator: { as: "aUser", status: 200 }, validatorFinds: (w) => [w.a.savedSearch] },
  { route: "GET /settings/user/{namespace}", request: () => ({ path: "/settings/user/explore" }), b: "own", validator: { as: "aUser", status: 200 }, validatorFinds: (w) => [w.a.savedSearch] },
  {
    route: "POST /settings/user/{namespace}",
    // The validator (A's user) writes another namespace: A's saved search stays for the reads.
    request: ({ validating, w }) => ({ path: `/settings/user/${validating ? "ui" : "explore"}`, json: validating ? { theme: "dark" } : { saved_searches: [w.unique("B search")] } }),
    b: "own", validator: { as: "aUser", status: 200 },
  },
  {
    route: "DELETE /settings/user/{namespace}",
    // The caller's own namespace, set first (deleting one that does not exist is 404).
    request: async ({ w, actor }) => {
      if (w.holds(actor, ["user_settings:update"])) await w.call(actor, "POST", "/settings/user/ui", { theme: "dark" });
      return { path: "/settings/user/ui" };
    },
    b: "own", validator: { as: "aUser", status: 200 },
  },

  // ---- runtime settings: instance-wide; org admins read them ----
  { route: "GET /settings/runtime", request: () => ({ path: "/settings/runtime" }), b: "shared", validator: { status: 200 } },
  { route: "GET /settings/runtime/{namespace}", request: () => ({ path: "/settings/runtime/retention" }), b: "shared", validator: { status: 200 } },
  {
    route: "POST /settings/runtime/{namespace}",
    request: () => ({ path: "/settings/runtime/notifications", json: { email_max_per_hour: 10 } }),
    b: "denied", validator: { status: 200 },
  },
  { route: "DELETE /settings/runtime/{namespace}", request: () => ({ path: "/settings/runtime/notifications" }), b: "denied", validator: { status: 200 } },

  // ---- API keys: a user's own; api_keys:admin for anyone's ----
  { route: "GET /api-keys/", request: () => ({ path: "/api-keys/" }), b: "own", validator: { as: "aUser", status: 200 }, validatorFinds: (w) => [w.a.apiKey.name] },
  { route: "POST /api-keys/", request: ({ w }) => ({ path: "/api-keys/", json: { name: w.unique("key"), scopes: ["events:read"] } }), b: "own", ok: 201, validator: { as: "aUser", status: 201 } },
  {
    route: "PATCH /api-keys/{key_id}",
    request: async ({ w, validating }) => ({ path: `/api-keys/${validating ? await w.throwaway.apiKey() : w.a.apiKey.id}`, json: { disabled: true } }),
    b: "hidden", validator: { as: "aUser", status: 200 },
  },
  {
    route: "DELETE /api-keys/{key_id}",
    request: async ({ w, validating }) => ({ path: `/api-keys/${validating ? await w.throwaway.apiKey() : w.a.apiKey.id}` }),
    b: "hidden", validator: { as: "aUser", status: 204 },
  },
  { route: "GET /admin/api-keys/", request: ({ w }) => ({ path: `/admin/api-keys/?user_id=${w.users.aUser.id}` }), b: "hidden", validator: { status: 200 }, validatorFinds: (w) => [w.a.apiKey.name] },
  {
    route: "PATCH /admin/api-keys/{key_id}",
    request: async ({ w, validating }) => ({ path: `/admin/api-keys/${validating ? await w.throwaway.apiKey() : w.a.apiKey.id}`, json: { disabled: true } }),
    b: "hidden", validator: { status: 200 },
  },
  {
    route: "DELETE /admin/api-keys/{key_id}",
    request: async ({ w, validating }) => ({ path: `/admin/api-keys/${validating ? await w.throwaway.apiKey() : w.a.apiKey.id}` }),
    b: "hidden", validator: { status: 204 },
  },

  // ---- audit log ----
  { route: "GET /admin/audit-logs/", request: ({ w }) => ({ path: `/admin/audit-logs/?actor_user_id=${w.users.aUser.id}` }), b: "hidden", validator: { status: 200 } },
];
