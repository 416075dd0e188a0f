import { z } from "zod";
import { defineRoute } from "../route.ts";
import { wireContract } from "../contract.ts";
import { roleCreateContract, rolePatchContract } from "../../src/modules/roles/index.ts";
import { idParams, skipLimitQuery } from "../schemas.ts";
import { RoleSchema, ScopeCatalogueSchema, roleOut } from "../serializers.ts";

const roleId = idParams("role_id");
const createWire = wireContract(roleCreateContract);
const patchWire = wireContract(rolePatchContract);

export const roleRoutes = [
  defineRoute({
    method: "GET", path: "/roles/scopes", operationId: "listRoleScopes", summary: "Scope catalogue (the peer's path for GET /auth/scopes)", tag: "roles",
    scopes: ["roles:read"], status: 200, response: ScopeCatalogueSchema,
    handler: ({ services }) => services.roles.scopeCatalogue(),
  }),
  defineRoute({
    method: "GET", path: "/roles/", operationId: "listRoles", summary: "List roles", tag: "roles",
    scopes: ["roles:read"], query: skipLimitQuery, status: 200, response: z.array(RoleSchema),
    handler: async ({ principal, query, services }) => (await services.roles.list(principal, query)).map(roleOut),
  }),
  defineRoute({
    method: "GET", path: "/roles/{role_id}", operationId: "getRole", summary: "Get a role", tag: "roles",
    scopes: ["roles:read"], params: roleId, status: 200, response: RoleSchema,
    handler: async ({ principal, params, services }) => roleOut(await services.roles.get(principal, params.role_id)),
  }),
  defineRoute({
    method: "POST", path: "/roles/", operationId: "createRole", summary: "Create a role", tag: "roles",
    scopes: ["roles:create"], status: 201, response: RoleSchema,
    body: createWire.object,
    handler: async ({ principal, body, services }) => roleOut(await services.roles.create(principal, createWire.fromWire(body))),
  }),
  defineRoute({
    method: "PATCH", path: "/roles/{role_id}", operationId: "updateRole", summary: "Update a role's name, scopes or default flag", tag: "roles",
    scopes: ["roles:update"], params: roleId, status: 200, response: RoleSchema,
    body: patchWire.object,
    handler: async ({ principal, params, body, services }) => roleOut(await services.roles.update(principal, params.role_id, patchWire.fromWire(body))),
  }),
  defineRoute({
    method: "DELETE", path: "/roles/{role_id}", operationId: "deleteRole", summary: "Delete a role that no user holds", tag: "roles",
    scopes: ["roles:delete"], params: roleId, status: 204,
    handler: ({ principal, params, services }) => services.roles.delete(principal, params.role_id),
  }),
];
