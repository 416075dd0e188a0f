import { z } from "zod";
import { defineRoute } from "../route.ts";
import { wireContract } from "../contract.ts";
import { idOrUuid, idParams, queryBool, queryIntInto } from "../schemas.ts";
import { TaxonomyPageSchema, TaxonomySchema, TaxonomyUpdateSchema, taxonomyOut, taxonomyPageOut, taxonomyUpdateOut } from "../serializers/taxonomies.ts";
import { taxonomyFlagsContract, taxonomyListContract } from "../../src/modules/taxonomies/index.ts";

const listShape = taxonomyListContract.shape;
const listWire = wireContract(taxonomyListContract, {
  codecs: { page: queryIntInto(listShape.page), size: queryIntInto(listShape.size), enabled: queryBool.optional() },
});
const flagsWire = wireContract(taxonomyFlagsContract);
const anyTaxonomy = z.object({ taxonomy_id: idOrUuid }).strict();

export const taxonomyRoutes = [
  defineRoute({
    method: "POST", path: "/taxonomies/update", operationId: "updateTaxonomies", summary: "Import or refresh every taxonomy of TAXONOMIES_SOURCE (synchronous; enabled, required and highlighted are kept)", tag: "taxonomies",
    scopes: ["taxonomies:update", "taxonomies:admin"], status: 200,
    response: TaxonomyUpdateSchema,
    handler: async ({ principal, services }) => taxonomyUpdateOut(await services.taxonomies.update(principal)),
  }),
  defineRoute({
    method: "GET", path: "/taxonomies/", operationId: "listTaxonomies", summary: "List taxonomies (P2 paging; enabled filter; filter is a substring of the namespace), with predicate and entry counts", tag: "taxonomies",
    scopes: ["taxonomies:read"], status: 200, response: TaxonomyPageSchema,
    query: listWire.object,
    handler: async ({ principal, query, services }) => taxonomyPageOut(await services.taxonomies.list(principal, listWire.fromWire(query))),
  }),
  defineRoute({
    method: "GET", path: "/taxonomies/{taxonomy_id}", operationId: "getTaxonomy", summary: "Get a taxonomy by id or uuid, with its predicates and entries (each with its tag name)", tag: "taxonomies",
    scopes: ["taxonomies:read"], params: anyTaxonomy, status: 200, response: TaxonomySchema,
    handler: async ({ principal, params, services }) => taxonomyOut(await services.taxonomies.get(principal, params.taxonomy_id)),
  }),
  defineRoute({
    method: "PATCH", path: "/taxonomies/{taxonomy_id}", operationId: "updateTaxonomy", summary: "Enable (creates its tags, enforces its exclusivity) or disable (hides its tags) a taxonomy; mark it required or highlighted: {enabled?, required?, highlighted?}", tag: "taxonomies",
    scopes: ["taxonomies:update", "taxonomies:admin"], params: idParams("taxonomy_id"), status: 200, response: TaxonomySchema,
    body: flagsWire.object,
    handler: async ({ principal, params, body, services }) => taxonomyOut(await services.taxonomies.setFlags(principal, params.taxonomy_id, flagsWire.fromWire(body))),
  }),
];
