import { z } from "zod";
import { defineRoute } from "../route.ts";
import { wireContract } from "../contract.ts";
import { organisationCreateContract, organisationPatchContract } from "../../src/modules/organisations/index.ts";
import { idOrUuid, idParams, skipLimitQuery } from "../schemas.ts";
import { OrganisationSchema, organisationOut } from "../serializers.ts";

const createWire = wireContract(organisationCreateContract);
const patchWire = wireContract(organisationPatchContract);

const anyId = z.object({ org_id: idOrUuid }).strict();

export const organisationRoutes = [
  defineRoute({
    method: "GET", path: "/organisations/", operationId: "listOrganisations", summary: "List organisations", tag: "organisations",
    scopes: ["organisations:read"], query: skipLimitQuery, status: 200, response: z.array(OrganisationSchema),
    handler: async ({ principal, query, services }) => (await services.organisations.list(principal, query)).map(organisationOut),
  }),
  defineRoute({
    method: "GET", path: "/organisations/{org_id}", operationId: "getOrganisation", summary: "Get an organisation by id or uuid", tag: "organisations",
    scopes: ["organisations:read"], params: anyId, status: 200, response: OrganisationSchema,
    handler: async ({ principal, params, services }) => organisationOut(await services.organisations.get(principal, params.org_id)),
  }),
  defineRoute({
    method: "POST", path: "/organisations/", operationId: "createOrganisation", summary: "Create an organisation", tag: "organisations",
    scopes: ["organisations:create"], status: 201, response: OrganisationSchema,
    body: createWire.object,
    handler: async ({ principal, body, services }) => organisationOut(await services.organisations.create(principal, createWire.fromWire(body))),
  }),
  defineRoute({
    method: "PATCH", path: "/organisations/{org_id}", operationId: "updateOrganisation", summary: "Update an organisation", tag: "organisations",
    scopes: ["organisations:update"], params: idParams("org_id"), status: 200, response: OrganisationSchema,
    body: patchWire.object,
    handler: async ({ principal, params, body, services }) =>
      organisationOut(await services.organisations.update(principal, params.org_id, patchWire.fromWire(body))),
  }),
  defineRoute({
    method: "DELETE", path: "/organisations/{org_id}", operationId: "deleteOrganisation", summary: "Delete an organisation without users", tag: "organisations",
    scopes: ["organisations:delete"], params: anyId, status: 204,
    handler: ({ principal, params, services }) => services.organisations.delete(principal, params.org_id),
  }),
];
