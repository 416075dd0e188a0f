import { z } from "zod";
import { defineRoute } from "../route.ts";
import { idOrUuid, idParams, nullableText, shortText, skipLimitQuery } from "../schemas.ts";
import { OrganisationSchema, organisationOut } from "../serializers.ts";

const fields = {
  description: nullableText().optional(),
  type: nullableText(255).optional(),
  nationality: nullableText(255).optional(),
  sector: nullableText(255).optional(),
  contacts: nullableText().optional(),
  local: z.boolean().optional(),
  restricted_to_domain: z.array(z.string().max(255)).max(1000).optional(),
  landing_page: nullableText(2048).optional(),
};

const toInput = (b: { [K in keyof typeof fields]?: z.infer<(typeof fields)[K]> } & { name?: string }) => ({
  name: b.name,
  description: b.description,
  type: b.type,
  nationality: b.nationality,
  sector: b.sector,
  contacts: b.contacts,
  local: b.local,
  restrictedToDomain: b.restricted_to_domain,
  landingPage: b.landing_page,
});

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
    body: z.object({ name: shortText(255), uuid: z.uuid().optional(), ...fields }).strict(),
    handler: async ({ principal, body, services }) =>
      organisationOut(await services.organisations.create(principal, { ...toInput(body), name: body.name, uuid: body.uuid?.toLowerCase() })),
  }),
  defineRoute({
    method: "PATCH", path: "/organisations/{org_id}", operationId: "updateOrganisation", summary: "Update an organisation", tag: "organisations",
    scopes: ["organisations:update"], params: idParams("org_id"), status: 200, response: OrganisationSchema,
    body: z.object({ name: shortText(255).optional(), ...fields }).strict(),
    handler: async ({ principal, params, body, services }) =>
      organisationOut(await services.organisations.update(principal, params.org_id, toInput(body))),
  }),
  defineRoute({
    method: "DELETE", path: "/organisations/{org_id}", operationId: "deleteOrganisation", summary: "Delete an organisation without users", tag: "organisations",
    scopes: ["organisations:delete"], params: anyId, status: 204,
    handler: ({ principal, params, services }) => services.organisations.delete(principal, params.org_id),
  }),
];
