import crypto from "node:crypto";
import { createUser } from "../../support/fixtures.ts";
import type { CaseContext } from "./expectations.ts";
import type { GraphqlCase } from "./graphql.ts";
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

/** The same areas through GraphQL. */
export const identityGraphql: GraphqlCase[] = [
  { field: "Query.me", scopes: ["users:me"], query: "{ me { id email orgId } }", b: "own", validator: { status: 200 } },
  { field: "Query.whoami", scopes: [], query: "{ whoami { userId email orgId scopes } }", b: "own", validator: { status: 200 } },
  { field: "Query.users", scopes: ["users:read"], query: "{ users(size: 100) { items { id email orgId } } }", b: "filtered", validator: { status: 200 }, validatorFinds: (w) => [w.users.aUser.email] },
  { field: "Query.user", scopes: ["users:read"], query: "query($id: Int!) { user(id: $id) { id email } }", variables: ({ w }) => ({ id: w.users.aUser.id }), b: "hidden", validator: { status: 200 } },
  {
    field: "Mutation.createUser", scopes: ["users:create"],
    query: "mutation($i: CreateUserInput!) { createUser(input: $i) { id } }",
    variables: ({ w }) => ({ i: { email: `${w.unique("new")}@example.test`, password: "password-123", roleId: 3, orgId: w.a.org.id } }),
    b: "denied", validator: { status: 200 },
  },
  {
    field: "Mutation.updateUser", scopes: ["users:update"],
    query: "mutation($id: Int!) { updateUser(id: $id, input: { disabled: true }) { id } }",
    variables: async ({ w, validating }) => ({ id: validating ? await w.throwaway.user() : w.users.aRead.id }),
    b: "hidden", validator: { status: 200 },
  },
  {
    field: "Mutation.deleteUser", scopes: ["users:delete"],
    query: "mutation($id: Int!) { deleteUser(id: $id) }",
    variables: async ({ w, validating }) => ({ id: validating ? await w.throwaway.user() : w.users.aRead.id }),
    b: "hidden", validator: { status: 200 },
  },
  {
    field: "Mutation.changeOwnPassword", scopes: ["users:me"],
    query: `mutation { changeOwnPassword(currentPassword: "wrong-password", password: "new-password-123") { id } }`,
    b: "own", ok: 422, validator: { status: 422 },
  },

  { field: "Query.scopes", scopes: [], query: "{ scopes { name } }", b: "shared", validator: { status: 200 } },
  { field: "Query.roles", scopes: ["roles:read"], query: "{ roles { items { id name scopes } } }", b: "shared", validator: { status: 200 } },
  { field: "Query.role", scopes: ["roles:read"], query: "{ role(id: 2) { id scopes } }", b: "shared", validator: { status: 200 } },
  { field: "Mutation.createRole", scopes: ["roles:create"], query: "mutation($n: String!) { createRole(input: { name: $n, scopes: [\"*\"] }) { id } }", variables: ({ w }) => ({ n: w.unique("role") }), b: "denied", validator: { status: 200 } },
  {
    field: "Mutation.updateRole", scopes: ["roles:update"],
    query: "mutation($id: Int!) { updateRole(id: $id, input: { scopes: [\"users:me\"] }) { id } }",
    variables: async ({ w, validating }) => ({ id: validating ? await w.throwaway.role() : 3 }),
    b: "denied", validator: { status: 200 },
  },
  {
    field: "Mutation.deleteRole", scopes: ["roles:delete"],
    query: "mutation($id: Int!) { deleteRole(id: $id) }",
    variables: async ({ w, validating }) => ({ id: validating ? await w.throwaway.role() : 4 }),
    b: "denied", validator: { status: 200 },
  },

  { field: "Query.organisations", scopes: ["organisations:read"], query: "{ organisations(size: 100) { items { id name uuid } } }", b: "shared", validator: { status: 200 } },
  { field: "Query.organisation", scopes: ["organisations:read"], query: "query($id: Int) { organisation(id: $id) { id name } }", variables: ({ w }) => ({ id: w.a.org.id }), b: "shared", validator: { status: 200 } },
  { field: "Mutation.createOrganisation", scopes: ["organisations:create"], query: "mutation($n: String!) { createOrganisation(input: { name: $n }) { id } }", variables: ({ w }) => ({ n: w.unique("org") }), b: "denied", validator: { status: 200 } },
  { field: "Mutation.updateOrganisation", scopes: ["organisations:update"], query: "mutation($id: Int!) { updateOrganisation(id: $id, input: { sector: \"taken over\" }) { id } }", variables: ({ w }) => ({ id: w.a.org.id }), b: "denied", validator: { status: 200 } },
  // A still has users: 409 for the administrator.
  { field: "Mutation.deleteOrganisation", scopes: ["organisations:delete"], query: "mutation($id: Int) { deleteOrganisation(id: $id) }", variables: ({ w }) => ({ id: w.a.org.id }), b: "denied", validator: { status: 409 } },

  { field: "Query.userSettings", scopes: ["user_settings:read"], query: "{ userSettings }", b: "own", validator: { as: "aUser", status: 200 }, validatorFinds: (w) => [w.a.savedSearch] },
  { field: "Query.userSetting", scopes: ["user_settings:read"], query: "{ userSetting(namespace: \"explore\") }", b: "own", validator: { as: "aUser", status: 200 }, validatorFinds: (w) => [w.a.savedSearch] },
  { field: "Mutation.setUserSetting", scopes: ["user_settings:update"], query: "mutation { setUserSetting(namespace: \"ui\", value: { theme: \"dark\" }) }", b: "own", validator: { as: "aUser", status: 200 } },
  {
    field: "Mutation.deleteUserSetting", scopes: ["user_settings:update"],
    query: "mutation { deleteUserSetting(namespace: \"ui\") }",
    variables: async ({ w, actor }) => {
      if (w.holds(actor, ["user_settings:update"])) await w.call(actor, "POST", "/settings/user/ui", { theme: "dark" });
      return {};
    },
    b: "own", validator: { as: "aUser", status: 200 },
  },
  // Follow lists are the caller's own and may name any uuid (it need not exist yet): B following A changes nothing of A's.
  { field: "Mutation.follow", scopes: ["user_settings:update"], query: "mutation($u: String!) { follow(list: ORGANISATIONS, uuid: $u) }", variables: ({ w }) => ({ u: w.a.org.uuid }), b: "own", validator: { as: "aUser", status: 200 } },
  { field: "Mutation.unfollow", scopes: ["user_settings:update"], query: "mutation($u: String!) { unfollow(list: ORGANISATIONS, uuid: $u) }", variables: ({ w }) => ({ u: w.a.org.uuid }), b: "own", validator: { as: "aUser", status: 200 } },

  { field: "Query.runtimeSettings", scopes: ["settings:read"], query: "{ runtimeSettings }", b: "shared", validator: { status: 200 } },
  { field: "Query.runtimeSetting", scopes: ["settings:read"], query: "{ runtimeSetting(namespace: \"retention\") }", b: "shared", validator: { status: 200 } },
  { field: "Mutation.setRuntimeSetting", scopes: ["settings:update"], query: "mutation { setRuntimeSetting(namespace: \"notifications\", value: { email_max_per_hour: 10 }) }", b: "denied", validator: { status: 200 } },
  { field: "Mutation.resetRuntimeSetting", scopes: ["settings:delete"], query: "mutation { resetRuntimeSetting(namespace: \"notifications\") }", b: "denied", validator: { status: 200 } },

  { field: "Query.apiKeys", scopes: ["api_keys:read"], query: "{ apiKeys { id name userId } }", b: "own", validator: { as: "aUser", status: 200 }, validatorFinds: (w) => [w.a.apiKey.name] },
  { field: "Query.apiKeyPage", scopes: ["api_keys:read"], query: "{ apiKeyPage(size: 100) { total items { id name userId } } }", b: "own", validator: { as: "aUser", status: 200 }, validatorFinds: (w) => [w.a.apiKey.name] },
  { field: "Mutation.createApiKey", scopes: ["api_keys:create"], query: "mutation($n: String!) { createApiKey(input: { name: $n, scopes: [\"events:read\"] }) { apiKey { id } } }", variables: ({ w }) => ({ n: w.unique("key") }), b: "own", validator: { as: "aUser", status: 200 } },
  {
    field: "Mutation.setApiKeyDisabled", scopes: ["api_keys:update"],
    query: "mutation($id: Int!) { setApiKeyDisabled(id: $id, disabled: true) { id } }",
    variables: async ({ w, validating }) => ({ id: validating ? await w.throwaway.apiKey() : w.a.apiKey.id }),
    b: "hidden", validator: { as: "aUser", status: 200 },
  },
  {
    field: "Mutation.deleteApiKey", scopes: ["api_keys:delete"],
    query: "mutation($id: Int!) { deleteApiKey(id: $id) }",
    variables: async ({ w, validating }) => ({ id: validating ? await w.throwaway.apiKey() : w.a.apiKey.id }),
    b: "hidden", validator: { as: "aUser", status: 200 },
  },
  { field: "Query.adminApiKeys", scopes: ["api_keys:admin"], query: "query($u: Int) { adminApiKeys(userId: $u) { id name } }", variables: ({ w }) => ({ u: w.users.aUser.id }), b: "hidden", validator: { status: 200 }, validatorFinds: (w) => [w.a.apiKey.name] },
  { field: "Query.adminApiKeyPage", scopes: ["api_keys:admin"], query: "query($u: Int) { adminApiKeyPage(userId: $u, size: 100) { total items { id name } } }", variables: ({ w }) => ({ u: w.users.aUser.id }), b: "hidden", validator: { status: 200 }, validatorFinds: (w) => [w.a.apiKey.name] },
  {
    field: "Mutation.adminSetApiKeyLocked", scopes: ["api_keys:admin"],
    query: "mutation($id: Int!) { adminSetApiKeyLocked(id: $id, locked: true) { id } }",
    variables: async ({ w, validating }) => ({ id: validating ? await w.throwaway.apiKey() : w.a.apiKey.id }),
    b: "hidden", validator: { status: 200 },
  },
  {
    field: "Mutation.adminDeleteApiKey", scopes: ["api_keys:admin"],
    query: "mutation($id: Int!) { adminDeleteApiKey(id: $id) }",
    variables: async ({ w, validating }) => ({ id: validating ? await w.throwaway.apiKey() : w.a.apiKey.id }),
    b: "hidden", validator: { status: 200 },
  },
  { field: "Query.auditLogs", scopes: ["audit_logs:admin"], query: "query($u: Int) { auditLogs(actorUserId: $u) { items { id action } } }", variables: ({ w }) => ({ u: w.users.aUser.id }), b: "hidden", validator: { status: 200 } },
];
