import { z } from "zod";
import { defineRoute } from "../route.ts";
import { idOrUuid, idParams, queryBool, queryIntOptional } from "../schemas.ts";
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
import { P2_DEFAULT_SIZE, P2_MAX_SIZE } from "../../src/modules/galaxies/index.ts";

/** The peer's P2 paging: `page` from 1, `size` 1..1000 (default 20). */
const p2Query = {
  page: queryIntOptional(1, 1_000_000).default(1),
  size: queryIntOptional(1, P2_MAX_SIZE).default(P2_DEFAULT_SIZE),
  filter: z.string().max(255).optional(),
};

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
    query: z.object({ ...p2Query, enabled: queryBool.optional() }).strict(),
    handler: async ({ principal, query, services }) => galaxyPageOut(await services.galaxies.list(principal, query)),
  }),
  defineRoute({
    method: "GET", path: "/galaxies/mitre-attack-patterns", operationId: "listMitreAttackPatterns", summary: "ATT&CK techniques: [{uuid, value, description, external_id}], at most 1000, by external id", tag: "galaxies",
    scopes: ["galaxies:read"], status: 200,
    query: z.object({ filter: z.string().max(255).optional() }).strict(),
    response: z.array(AttackPatternSchema),
    handler: async ({ principal, query, services }) => (await services.galaxies.attackPatterns(principal, query.filter)).map(attackPatternOut),
  }),
  defineRoute({
    method: "GET", path: "/galaxies/{galaxy_id}", operationId: "getGalaxy", summary: "Get a galaxy by id or uuid, with its clusters", tag: "galaxies",
    scopes: ["galaxies:read"], params: anyGalaxy, status: 200, response: GalaxySchema,
    handler: async ({ principal, params, services }) => galaxyOut(await services.galaxies.get(principal, params.galaxy_id)),
  }),
  defineRoute({
    method: "GET", path: "/galaxies/{galaxy_id}/clusters", operationId: "listGalaxyClusters", summary: "A galaxy's clusters (P2 paging; filter matches value, tag name or external id)", tag: "galaxies",
    scopes: ["galaxies:read"], params: anyGalaxy, status: 200, response: GalaxyClusterPageSchema,
    query: z.object(p2Query).strict(),
    handler: async ({ principal, params, query, services }) => galaxyClusterPageOut(await services.galaxies.clusters(principal, params.galaxy_id, query)),
  }),
  defineRoute({
    method: "PATCH", path: "/galaxies/{galaxy_id}", operationId: "updateGalaxy", summary: "Enable (creates one tag per cluster) or disable (hides them) a galaxy: {enabled, local_only?, default?}", tag: "galaxies",
    scopes: ["galaxies:update", "galaxies:admin"], params: idParams("galaxy_id"), status: 200, response: GalaxySchema,
    body: z.object({ enabled: z.boolean(), local_only: z.boolean().optional(), default: z.boolean().optional() }).strict(),
    handler: async ({ principal, params, body, services }) =>
      galaxyOut(await services.galaxies.setEnabled(principal, params.galaxy_id, { enabled: body.enabled, localOnly: body.local_only, default: body.default })),
  }),
];
