import { ResourceTemplate, type McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import { ErrorCode, McpError, type ReadResourceResult } from "@modelcontextprotocol/sdk/types.js";
import type { Variables } from "@modelcontextprotocol/sdk/shared/uriTemplate.js";
import type { Principal } from "../auth/principal.ts";
import { AppError, errors } from "../platform/errors.ts";
import type { Runtime } from "../runtime.ts";
import type { Services } from "../services.ts";
import type { Galaxy } from "../generated/prisma/client.ts";
import { principalOf, truncated } from "./results.ts";
import { toolPrincipal } from "./tool-access.ts";
import { MAX_ITEMS } from "./tool-kit.ts";

/** MISP ships about a hundred galaxies; more than this is not reference data a model reads whole. */
const MAX_GALAXIES = 200;
/** Cluster descriptions run to pages; a resource listing a hundred keeps the start of each. */
const DESCRIPTION_CHARS = 300;
const PREFIX = "workbench://galaxies";

type Extra = { authInfo?: AuthInfo };

/** Galaxies are what search_galaxy reads: reading them as resources needs what the tool needs. */
const galaxyReader = (extra: Extra): Principal => toolPrincipal(principalOf(extra.authInfo), "search_galaxy");

/** A JSON resource, long strings cut to their start. */
export const jsonResource = (uri: string, value: unknown): ReadResourceResult => ({ contents: [{ uri, mimeType: "application/json", text: JSON.stringify(truncated(value, DESCRIPTION_CHARS), null, 1) }] });

/** A refusal or bad URI as an MCP error a client shows; anything else logged and answered without internals. */
export async function answerResource(runtime: Runtime, read: () => Promise<ReadResourceResult>): Promise<ReadResourceResult> {
  try {
    return await read();
  } catch (err) {
    if (err instanceof AppError && err.status < 500) throw new McpError(ErrorCode.InvalidParams, `${err.code}: ${err.message}`);
    runtime.ctx.log.error({ err }, "MCP resource failed");
    throw new McpError(ErrorCode.InternalError, "internal_error: the resource could not be read; try again later");
  }
}

const galaxyOut = (g: Galaxy) => ({
  uri: `${PREFIX}/${encodeURIComponent(g.type)}`,
  type: g.type,
  name: g.name,
  description: g.description,
  namespace: g.namespace,
  enabled: g.enabled,
  version: g.version,
});

async function galaxies(runtime: Runtime, p: Principal) {
  return runtime.services.galaxies.list(p, { page: 1, size: MAX_GALAXIES });
}

/** The galaxy of a type (GET /galaxies/?filter= finds it among those whose name or type holds it). */
export async function galaxyOfType(services: Services, p: Principal, type: string): Promise<Galaxy> {
  const candidates = await services.galaxies.list(p, { filter: type, page: 1, size: 100 });
  const galaxy = candidates.items.find((g) => g.type === type);
  if (!galaxy) throw errors.notFound(`Galaxy of type ${JSON.stringify(type.slice(0, 100))} (${PREFIX} lists the imported ones)`);
  return galaxy;
}

/** The `{type}` of a galaxy URI; a malformed escape is a galaxy that does not exist. */
function typeOf(variables: Variables): string {
  const raw = Array.isArray(variables.type) ? variables.type[0] : variables.type;
  try {
    return decodeURIComponent(raw ?? "");
  } catch {
    throw errors.notFound("Galaxy");
  }
}

/** `galaxies` (the imported galaxies) and `galaxies/{type}` (one galaxy's first clusters). */
export function registerGalaxyResources(server: McpServer, runtime: Runtime): void {
  server.registerResource(
    "galaxies",
    PREFIX,
    {
      title: "Galaxies",
      description: `The imported galaxies (cluster catalogues: ATT&CK techniques, threat actors, tools...), at most ${MAX_GALAXIES}: type, name, enabled; read workbench://galaxies/{type} for one galaxy's clusters.`,
      mimeType: "application/json",
    },
    (uri, extra) =>
      answerResource(runtime, async () => {
        const page = await galaxies(runtime, galaxyReader(extra));
        return jsonResource(uri.href, { total: page.total, galaxies: page.items.map(galaxyOut) });
      }),
  );

  const template = new ResourceTemplate(`${PREFIX}/{type}`, {
    // Listing must not fail the whole resources/list for a caller who may not read galaxies.
    list: async (extra) => {
      try {
        const page = await galaxies(runtime, galaxyReader(extra));
        return { resources: page.items.map((g) => ({ uri: galaxyOut(g).uri, name: `galaxy ${g.type}`, title: g.name, mimeType: "application/json" })) };
      } catch (err) {
        if (err instanceof AppError && err.status < 500) return { resources: [] };
        throw err;
      }
    },
  });
  server.registerResource(
    "galaxy",
    template,
    {
      title: "A galaxy's clusters",
      description: `One galaxy by type (e.g. mitre-attack-pattern) with its first ${MAX_ITEMS} clusters by value (total says how many; search_galaxy pages through all): value, external ids, tag name, description's start.`,
      mimeType: "application/json",
    },
    (uri, variables, extra) =>
      answerResource(runtime, async () => {
        const p = galaxyReader(extra);
        const galaxy = await galaxyOfType(runtime.services, p, typeOf(variables));
        const page = await runtime.services.galaxies.clusters(p, galaxy.id, { page: 1, size: MAX_ITEMS });
        return jsonResource(uri.href, {
          galaxy: galaxyOut(galaxy),
          total_clusters: page.total,
          clusters: page.items.map((c) => ({ value: c.value, external_ids: c.externalIds, tag_name: c.tagName, description: c.description })),
        });
      }),
  );
}
