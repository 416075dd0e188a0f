import { z } from "zod";
import { defineRoute } from "../route.ts";
import { wireContract } from "../contract.ts";
import { ownPasswordContract, userCreateContract, userPatchContract } from "../../src/modules/users/index.ts";
import { idParams, skipLimitQuery } from "../schemas.ts";
import { UserSchema, userOut } from "../serializers.ts";

const userId = idParams("user_id");
const createWire = wireContract(userCreateContract);
const patchWire = wireContract(userPatchContract);
const ownPasswordWire = wireContract(ownPasswordContract);

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
    body: ownPasswordWire.object,
    handler: async ({ principal, body, services }) => userOut(await services.users.changeOwnPassword(principal, ownPasswordWire.fromWire(body))),
  }),
  defineRoute({
    method: "GET", path: "/users/{user_id}", operationId: "getUser", summary: "Get a user", tag: "users",
    scopes: ["users:read"], params: userId, status: 200, response: UserSchema,
    handler: async ({ principal, params, services }) => userOut(await services.users.get(principal, params.user_id)),
  }),
  defineRoute({
    method: "POST", path: "/users/", operationId: "createUser", summary: "Create a user", tag: "users",
    scopes: ["users:create"], status: 201, response: UserSchema,
    body: createWire.object,
    handler: async ({ principal, body, services }) => userOut(await services.users.create(principal, createWire.fromWire(body))),
  }),
  defineRoute({
    method: "PATCH", path: "/users/{user_id}", operationId: "updateUser", summary: "Update a user (email, organisation, role, disabled, password)", tag: "users",
    scopes: ["users:update"], params: userId, status: 200, response: UserSchema,
    body: patchWire.object,
    handler: async ({ principal, params, body, services }) => userOut(await services.users.update(principal, params.user_id, patchWire.fromWire(body))),
  }),
  defineRoute({
    method: "DELETE", path: "/users/{user_id}", operationId: "deleteUser", summary: "Delete a user", tag: "users",
    scopes: ["users:delete"], params: userId, status: 204,
    handler: ({ principal, params, services }) => services.users.delete(principal, params.user_id),
  }),
];
