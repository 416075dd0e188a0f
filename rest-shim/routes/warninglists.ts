import { defineRoute } from "../route.ts";
import { wireContract } from "../contract.ts";
import { idParams, queryBool, queryIntInto } from "../schemas.ts";
import { WarninglistPageSchema, WarninglistSchema, WarninglistUpdateSchema, warninglistOut, warninglistPageOut, warninglistUpdateOut } from "../serializers/warninglists.ts";
import { warninglistEntriesContract, warninglistFlagsContract, warninglistListContract } from "../../src/modules/warninglists/index.ts";

const listShape = warninglistListContract.shape;
const listWire = wireContract(warninglistListContract, {
  codecs: { page: queryIntInto(listShape.page), size: queryIntInto(listShape.size), enabled: queryBool.optional() },
});
const entriesShape = warninglistEntriesContract.shape;
const entriesWire = wireContract(warninglistEntriesContract, {
  codecs: { page: queryIntInto(entriesShape.page), size: queryIntInto(entriesShape.size) },
});
const flagsWire = wireContract(warninglistFlagsContract);
const oneList = idParams("warninglist_id");

export const warninglistRoutes = [
  defineRoute({
    method: "POST", path: "/warninglists/update", operationId: "updateWarninglists", summary: "Import or refresh every warninglist of WARNINGLISTS_SOURCE (synchronous; enabled flags are kept; unusable entries are refused and reported)", tag: "warninglists",
    scopes: ["warninglists:update"], status: 200,
    response: WarninglistUpdateSchema,
    handler: async ({ principal, services }) => warninglistUpdateOut(await services.warninglists.update(principal)),
  }),
  defineRoute({
    method: "GET", path: "/warninglists/", operationId: "listWarninglists", summary: "List warninglists (paging; enabled, type and name filters; name is a substring), with their entry counts", tag: "warninglists",
    scopes: ["warninglists:read"], status: 200, response: WarninglistPageSchema,
    query: listWire.object,
    handler: async ({ principal, query, services }) => warninglistPageOut(await services.warninglists.list(principal, listWire.fromWire(query))),
  }),
  defineRoute({
    method: "GET", path: "/warninglists/{warninglist_id}", operationId: "getWarninglist", summary: "Get a warninglist with one page of its entries (page, size; size 0: the count only)", tag: "warninglists",
    scopes: ["warninglists:read"], params: oneList, status: 200, response: WarninglistSchema,
    query: entriesWire.object,
    handler: async ({ principal, params, query, services }) => warninglistOut(await services.warninglists.get(principal, params.warninglist_id, entriesWire.fromWire(query))),
  }),
  defineRoute({
    method: "PATCH", path: "/warninglists/{warninglist_id}", operationId: "updateWarninglist", summary: "Enable or disable a warninglist: {enabled}; existing attributes' hits are recomputed in the background", tag: "warninglists",
    scopes: ["warninglists:update"], params: oneList, status: 200, response: WarninglistSchema,
    body: flagsWire.object,
    handler: async ({ principal, params, body, services }) => warninglistOut(await services.warninglists.setFlags(principal, params.warninglist_id, flagsWire.fromWire(body))),
  }),
];
