import { z } from "zod";
import { defineRoute } from "../route.ts";
import { wireContract } from "../contract.ts";
import { idOrUuid, idParams, queryBool, queryIntInto } from "../schemas.ts";
import {
  AttackPatternSchema,
  GalaxyClusterPageSchema,
  GalaxyPageSchema,
  GalaxySchema,
  GalaxyUpdateSchema,
  attackPatternOut,
  galaxyClusterPageOut,
  galaxyOut,
  galaxyPageOut,
  galaxyUpdateOut,
} from "../serializers/galaxies.ts";
import { attackPatternQueryContract, clusterListContract, galaxyFlagsContract, galaxyListContract, p2PageFields } from "../../src/modules/galaxies/index.ts";

/** The peer's P2 paging in a query string: text, with the contract's bounds. */
const p2Codecs = { page: queryIntInto(p2PageFields.page), size: queryIntInto(p2PageFields.size) };
const listWire = wireContract(galaxyListContract, { codecs: { ...p2Codecs, enabled: queryBool.optional() } });
const clustersWire = wireContract(clusterListContract, { codecs: p2Codecs });
const attackPatternsWire = wireContract(attackPatternQueryContract);
const flagsWire = wireContract(galaxyFlagsContract);

const anyGalaxy = z.object({ galaxy_id: idOrUuid }).strict();

export const galaxyRoutes = [
  defineRoute({
    method: "POST", path: "/galaxies/update", operationId: "updateGalaxies", summary: "Import or refresh every galaxy of GALAXY_SOURCE (synchronous; unchanged rows are left alone)", tag: "galaxies",
    scopes: ["galaxies:update", "galaxies:admin"], status: 200,
    response: GalaxyUpdateSchema,
    handler: async ({ principal, services }) => galaxyUpdateOut(await services.galaxies.update(principal)),
  }),
  defineRoute({
    method: "GET", path: "/galaxies/", operationId: "listGalaxies", summary: "List galaxies (P2 paging; filter is a substring of the name or type)", tag: "galaxies",
    scopes: ["galaxies:read"], status: 200, response: GalaxyPageSchema,
    query: listWire.object,
    handler: async ({ principal, query, services }) => galaxyPageOut(await services.galaxies.list(principal, listWire.fromWire(query))),
  }),
  defineRoute({
    method: "GET", path: "/galaxies/mitre-attack-patterns", operationId: "listMitreAttackPatterns", summary: "ATT&CK techniques: [{uuid, value, description, external_id}], at most 1000, by external id", tag: "galaxies",
    scopes: ["galaxies:read"], status: 200,
    query: attackPatternsWire.object,
    response: z.array(AttackPatternSchema),
    handler: async ({ principal, query, services }) => (await services.galaxies.attackPatterns(principal, attackPatternsWire.fromWire(query))).map(attackPatternOut),
  }),
  defineRoute({
    method: "GET", path: "/galaxies/{galaxy_id}", operationId: "getGalaxy", summary: "Get a galaxy by id or uuid, with its clusters", tag: "galaxies",
    scopes: ["galaxies:read"], params: anyGalaxy, status: 200, response: GalaxySchema,
    handler: async ({ principal, params, services }) => galaxyOut(await services.galaxies.get(principal, params.galaxy_id)),
  }),
  defineRoute({
    method: "GET", path: "/galaxies/{galaxy_id}/clusters", operationId: "listGalaxyClusters", summary: "A galaxy's clusters (P2 paging; filter matches value, tag name or external id)", tag: "galaxies",
    scopes: ["galaxies:read"], params: anyGalaxy, status: 200, response: GalaxyClusterPageSchema,
    query: clustersWire.object,
    handler: async ({ principal, params, query, services }) => galaxyClusterPageOut(await services.galaxies.clusters(principal, params.galaxy_id, clustersWire.fromWire(query))),
  }),
  defineRoute({
    method: "PATCH", path: "/galaxies/{galaxy_id}", operationId: "updateGalaxy", summary: "Enable (creates one tag per cluster) or disable (hides them) a galaxy: {enabled, local_only?, default?}", tag: "galaxies",
    scopes: ["galaxies:update", "galaxies:admin"], params: idParams("galaxy_id"), status: 200, response: GalaxySchema,
    body: flagsWire.object,
    handler: async ({ principal, params, body, services }) => galaxyOut(await services.galaxies.setEnabled(principal, params.galaxy_id, flagsWire.fromWire(body))),
  }),
];
