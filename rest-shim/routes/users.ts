import { z } from "zod";
import { defineRoute } from "../route.ts";
import { bodyId, email, idParams, password, skipLimitQuery } from "../schemas.ts";
import { UserSchema, userOut } from "../serializers.ts";

const userId = idParams("user_id");

export const userRoutes = [
  defineRoute({
    method: "GET", path: "/users/", operationId: "listUsers", summary: "List users (administrators: all; others: own organisation)", tag: "users",
    scopes: ["users:read"], query: skipLimitQuery, status: 200, response: z.array(UserSchema),
    handler: async ({ principal, query, services }) => (await services.users.list(principal, query)).map(userOut),
  }),
  defineRoute({
    method: "GET", path: "/users/me", operationId: "getCurrentUser", summary: "The caller's own account", tag: "users",
    scopes: ["users:me"], status: 200, response: UserSchema,
    handler: async ({ principal, services }) => userOut(await services.users.me(principal)),
  }),
  defineRoute({
    method: "PATCH", path: "/users/me", operationId: "updateCurrentUser", summary: "Change your own password (current password required)", tag: "users",
    scopes: ["users:me"], status: 200, response: UserSchema,
    body: z.object({ current_password: z.string().min(1).max(1024), password }).strict(),
    handler: async ({ principal, body, services }) =>
      userOut(await services.users.changeOwnPassword(principal, body.current_password, body.password)),
  }),
  defineRoute({
    method: "GET", path: "/users/{user_id}", operationId: "getUser", summary: "Get a user", tag: "users",
    scopes: ["users:read"], params: userId, status: 200, response: UserSchema,
    handler: async ({ principal, params, services }) => userOut(await services.users.get(principal, params.user_id)),
  }),
  defineRoute({
    method: "POST", path: "/users/", operationId: "createUser", summary: "Create a user", tag: "users",
    scopes: ["users:create"], status: 201, response: UserSchema,
    body: z.object({ email, org_id: bodyId, role_id: bodyId, password: password.optional(), disabled: z.boolean().optional() }).strict(),
    handler: async ({ principal, body, services }) =>
      userOut(await services.users.create(principal, { email: body.email, orgId: body.org_id, roleId: body.role_id, password: body.password, disabled: body.disabled })),
  }),
  defineRoute({
    method: "PATCH", path: "/users/{user_id}", operationId: "updateUser", summary: "Update a user (email, organisation, role, disabled, password)", tag: "users",
    scopes: ["users:update"], params: userId, status: 200, response: UserSchema,
    body: z.object({ email: email.optional(), org_id: bodyId.optional(), role_id: bodyId.optional(), disabled: z.boolean().optional(), password: password.optional() }).strict(),
    handler: async ({ principal, params, body, services }) =>
      userOut(await services.users.update(principal, params.user_id, { email: body.email, orgId: body.org_id, roleId: body.role_id, disabled: body.disabled, password: body.password })),
  }),
  defineRoute({
    method: "DELETE", path: "/users/{user_id}", operationId: "deleteUser", summary: "Delete a user", tag: "users",
    scopes: ["users:delete"], params: userId, status: 204,
    handler: ({ principal, params, services }) => services.users.delete(principal, params.user_id),
  }),
];
