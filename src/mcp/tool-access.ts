import { authorize, type Principal } from "../auth/principal.ts";
import { grants } from "../auth/scopes.ts";
import { errors } from "../platform/errors.ts";
import { MCP_TOOL_NAMES, type McpToolName } from "./tool-names.ts";

/**
 * The workbench scopes each tool needs beside its own `mcp:<tool>`, checked at every call in the
 * user's current role. Reads (`<resource>:read`) come with `mcp:<tool>`; every other scope (a write,
 * running a hunt, following) the credential must hold itself, so an MCP-only credential (what
 * /mcp/config mints) never changes data: write tools are off unless the token carries their scope.
 */
export const TOOL_SCOPES: Record<McpToolName, readonly string[]> = {
  search_events: ["events:read"],
  search_attributes: ["attributes:read"],
  get_event: ["events:read", "attributes:read"],
  get_attribute: ["attributes:read"],
  get_tags: ["tags:read"],
  detect_indicator_type: [],
  list_hunts: ["hunts:read"],
  get_hunt_results: ["hunts:read"],
  get_correlations: ["correlations:read", "attributes:read"],
  get_statistics: ["events:read", "attributes:read"],
  get_sightings: ["sightings:read", "attributes:read", "events:read"],
  search_galaxy: ["galaxies:read"],
  check_warninglists: ["warninglists:read"],
  get_hunt_history: ["hunts:read"],
  get_notifications: ["notifications:read"],
  run_hunt: ["hunts:run"],
  create_hunt: ["hunts:create"],
  follow: ["user_settings:update"],
  unfollow: ["user_settings:update"],
  add_sighting: ["sightings:create"],
  create_event: ["events:create", "events:read"],
  add_attributes: ["attributes:create"],
  export: ["exports:create", "exports:read"],
  list_servers: ["servers:read"],
  test_server_connection: ["servers:test"],
  preview_server_pull: ["servers:read"],
  // A pull writes as the organisation's sync import (servers.policy.ts PULL_SCOPES).
  pull_server: ["servers:pull", "events:create", "events:sync"],
};

/**
 * Reads a tool makes depending on its arguments (the index a hunt or an export reads): they come
 * with `mcp:<tool>` too, but are not required up front; the service checks the one it needs.
 */
export const TOOL_READS: Partial<Record<McpToolName, readonly string[]>> = {
  run_hunt: ["events:read", "attributes:read", "correlations:read"],
  // Objects and related events are shown when the role grants their reads, left out otherwise.
  get_event: ["objects:read", "correlations:read"],
  // The taxonomies resource is read as get_tags: a tag's vocabulary.
  get_tags: ["taxonomies:read"],
  export: ["events:read", "attributes:read"],
};

const isRead = (scope: string) => scope.endsWith(":read");

/** `mcp:use` predates the per-tool scopes and keeps meaning "every tool"; `mcp:*` includes both. */
const grantsTool = (set: readonly string[], tool: McpToolName) => grants(set, `mcp:${tool}`) || grants(set, "mcp:use");

/** May this caller use the MCP server at all (some tool)? Opening a session needs it. */
export function mayUseMcp(p: Principal): boolean {
  return p.grantSets.length > 0 && MCP_TOOL_NAMES.some((tool) => p.grantSets.every((set) => grantsTool(set, tool)));
}

/** The MCP scopes a caller holds, as a minted credential should carry them. */
export function heldMcpScopes(p: Principal): string[] {
  if (p.grantSets.length > 0 && p.grantSets.every((set) => grants(set, "mcp:use"))) return ["mcp:use"];
  return MCP_TOOL_NAMES.filter((tool) => p.grantSets.length > 0 && p.grantSets.every((set) => grantsTool(set, tool))).map((tool) => `mcp:${tool}`);
}

/**
 * Authorizes one tool call and answers the principal the services run as.
 *
 * A credential minted by /mcp/config holds MCP scopes only: its `mcp:<tool>` stands for the tool
 * and the reads the tool makes, never more. So every grant list but the role's (the first, as
 * the authenticator builds them) gains the tool's read scopes when it grants the tool, while
 * the role must grant the tool and all its scopes itself: a role that loses `attributes:read`
 * loses the tool at the next call. Effective rights stay credential ∩ current role, and a
 * write scope is held only when the credential holds it too.
 */
export function toolPrincipal(p: Principal, tool: McpToolName): Principal {
  const denied = p.grantSets.length === 0 || !p.grantSets.every((set) => grantsTool(set, tool));
  if (denied) throw errors.insufficientScope([`mcp:${tool}`]);
  const scopes = TOOL_SCOPES[tool];
  const reads = [...scopes.filter(isRead), ...(TOOL_READS[tool] ?? [])];
  const [role, ...narrowing] = p.grantSets;
  const widened: Principal = { ...p, grantSets: [role, ...narrowing.map((set) => [...set, ...reads])] };
  authorize(widened, ...scopes);
  return widened;
}
