import { authorize, type Principal } from "../auth/principal.ts";
import { grants } from "../auth/scopes.ts";
import { errors } from "../platform/errors.ts";
import { MCP_TOOL_NAMES, type McpToolName } from "./tool-names.ts";

/** The workbench scopes each tool reads with, beside its own `mcp:<tool>`. */
export const TOOL_SCOPES: Record<McpToolName, readonly string[]> = {
  search_events: ["events:read"],
  search_attributes: ["attributes:read"],
  get_event: ["events:read", "attributes:read"],
  get_attribute: ["attributes:read"],
  get_tags: ["tags:read"],
  detect_indicator_type: [],
  list_hunts: ["hunts:read"],
  get_hunt_results: ["hunts:read"],
};

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
 * the authenticator builds them) gains the tool's workbench scopes when it grants the tool, while
 * the role must grant both the tool and those scopes itself: a role that loses `attributes:read`
 * loses the tool at the next call. Effective rights stay credential ∩ current role.
 */
export function toolPrincipal(p: Principal, tool: McpToolName): Principal {
  const denied = p.grantSets.length === 0 || !p.grantSets.every((set) => grantsTool(set, tool));
  if (denied) throw errors.insufficientScope([`mcp:${tool}`]);
  const scopes = TOOL_SCOPES[tool];
  const [role, ...narrowing] = p.grantSets;
  const widened: Principal = { ...p, grantSets: [role, ...narrowing.map((set) => [...set, ...scopes])] };
  authorize(widened, ...scopes);
  return widened;
}
