import { z } from "zod";
import { defineRoute } from "../route.ts";
import { idParams, intId, queryBool, queryIntInto, skipLimitQuery } from "../schemas.ts";
import { huntCreateContract, huntListContract, huntPatchContract } from "../../src/modules/hunts/index.ts";
import { wireContract } from "../contract.ts";
import { HuntPageSchema, HuntResultSchema, HuntRunSchema, HuntSchema, huntOut, huntResultOut, huntRunOut } from "../serializers/hunts.ts";

const createWire = wireContract(huntCreateContract);
const patchWire = wireContract(huntPatchContract);
/** The query string's numbers and flags are text; their bounds are the contract's. */
const listWire = wireContract(huntListContract, {
  codecs: { page: queryIntInto(huntListContract.shape.page), size: queryIntInto(huntListContract.shape.size), all: queryBool.optional(), userId: intId.optional() },
});

const huntId = idParams("hunt_id");

export const huntRoutes = [
  defineRoute({
    method: "GET", path: "/hunts/", operationId: "listHunts", tag: "hunts",
    summary: "Your hunts, newest first (page/size; filter: part of the name). Administrators: all=true for everyone's, user_id for one user's",
    scopes: ["hunts:read"], status: 200, response: HuntPageSchema,
    query: listWire.object,
    handler: async ({ principal, query, services }) => {
      const page = await services.hunts.list(principal, listWire.fromWire(query));
      return { ...page, items: page.items.map(huntOut) };
    },
  }),
  defineRoute({
    method: "POST", path: "/hunts/", operationId: "createHunt", tag: "hunts",
    summary:
      "Create a hunt: name, query, hunt_type (search, cpe, rules, fw-attack-pattern; default search), index_target (search: attributes, events, correlations; fw-attack-pattern: events, attributes, attributes_and_events), description, status (active, paused), schedule (hourly, daily, weekly or null)",
    scopes: ["hunts:create"], status: 201, response: HuntSchema, body: createWire.object,
    handler: async ({ principal, body, services }) => huntOut(await services.hunts.create(principal, createWire.fromWire(body))),
  }),
  defineRoute({
    method: "GET", path: "/hunts/{hunt_id}", operationId: "getHunt", tag: "hunts",
    summary: "One hunt",
    scopes: ["hunts:read"], status: 200, response: HuntSchema, params: huntId,
    handler: async ({ principal, params, services }) => huntOut(await services.hunts.get(principal, params.hunt_id)),
  }),
  defineRoute({
    method: "PATCH", path: "/hunts/{hunt_id}", operationId: "updateHunt", tag: "hunts",
    summary: "Change a hunt (only the fields given). A new query, type or target starts it afresh: its cached result goes and its next run with hits is a first run",
    scopes: ["hunts:update"], status: 200, response: HuntSchema, params: huntId, body: patchWire.object,
    handler: async ({ principal, params, body, services }) => huntOut(await services.hunts.update(principal, params.hunt_id, patchWire.fromWire(body))),
  }),
  defineRoute({
    method: "DELETE", path: "/hunts/{hunt_id}", operationId: "deleteHunt", tag: "hunts",
    summary: "Delete a hunt with its history, cached results and every schedule that runs it",
    scopes: ["hunts:delete"], status: 204, params: huntId,
    handler: async ({ principal, params, services }) => services.hunts.delete(principal, params.hunt_id),
  }),
  defineRoute({
    method: "POST", path: "/hunts/{hunt_id}/run", operationId: "runHunt", tag: "hunts",
    summary:
      "Run the hunt now: {hunt, total, hits}, each hit with is_new; cached and added to the history. A failed run is recorded with its reason and answered as an error (503 when an external service failed, 400 for unknown techniques); the cached results stay",
    scopes: ["hunts:run"], status: 200, response: HuntResultSchema, params: huntId,
    handler: async ({ principal, params, services }) => {
      const r = await services.hunts.run(principal, params.hunt_id);
      return huntResultOut(r.hunt, r.total, r.hits, r.run.runAt);
    },
  }),
  defineRoute({
    method: "GET", path: "/hunts/{hunt_id}/results", operationId: "getHuntResults", tag: "hunts",
    summary: "The result set of the last successful run: {hunt, total, hits, run_at}; 404 before the first",
    scopes: ["hunts:read"], status: 200, response: HuntResultSchema, params: huntId,
    handler: async ({ principal, params, services }) => {
      const { hunt, result } = await services.hunts.results(principal, params.hunt_id);
      return huntResultOut(hunt, result.total, result.hits, result.runAt);
    },
  }),
  defineRoute({
    method: "GET", path: "/hunts/{hunt_id}/history", operationId: "listHuntRuns", tag: "hunts",
    summary: "Runs, newest first: run_at, match_count (null for a failed run), status, error; skip/limit, plain array",
    scopes: ["hunts:read"], status: 200, response: z.array(HuntRunSchema), params: huntId, query: skipLimitQuery,
    handler: async ({ principal, params, query, services }) => (await services.hunts.history(principal, params.hunt_id, query.skip, query.limit)).map(huntRunOut),
  }),
  defineRoute({
    method: "DELETE", path: "/hunts/{hunt_id}/history", operationId: "clearHuntRuns", tag: "hunts",
    summary: "Delete the run history and the cached results; the hunt stays, and its next run with hits is a first run",
    scopes: ["hunts:delete"], status: 204, params: huntId,
    handler: async ({ principal, params, services }) => services.hunts.clearHistory(principal, params.hunt_id),
  }),
];
