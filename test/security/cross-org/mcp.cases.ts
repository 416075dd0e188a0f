import type { McpToolName } from "../../../src/mcp/tool-names.ts";
import type { CaseContext, Expectation } from "./expectations.ts";
import type { GraphqlCase } from "./graphql.ts";
import type { RestCase } from "./rest.ts";
import { aServer, nameOf as serverName } from "./servers.cases.ts";
import type { CrossOrgWorld } from "./world.ts";

/**
 * The MCP configuration: it mints a credential of the caller's own (an MCP-only API key), so it is
 * about the caller alone and shows nothing of A's. `/mcp` itself is the SDK's transport outside
 * the route table: its tools have rows of their own below.
 */
export const mcpRest: RestCase[] = [
  { route: "GET /mcp/config", request: () => ({ path: "/mcp/config?expires_in=600" }), b: "own", validator: { status: 200 } },
];

export const mcpGraphql: GraphqlCase[] = [
  { field: "Mutation.mcpConfig", scopes: ["mcp:config"], query: "mutation { mcpConfig(expiresIn: 600) { apiKeyId expiresAt scopes } }", b: "own", validator: { status: 200 } },
];

/**
 * One row per MCP tool (and further rows for A's shared event and for a value of A's): the tool's
 * arguments aimed at A's things, with the classes of the REST rows. Run by
 * test/integration/mcp-matrix.test.ts over the SDK's client with the judges of this matrix: a
 * refused session counts as its HTTP status, a tool error as the HTTP status of its code. Of B's
 * callers only the org admin (role 2, `mcp:*`) holds MCP scopes; the others are refused at the
 * door. A's own tool user is A's org admin: A's user (role 3) holds no MCP scope either.
 */
export interface McpToolRow extends Expectation {
  tool: McpToolName;
  args(ctx: CaseContext): Record<string, unknown> | Promise<Record<string, unknown>>;
}

const privateOfEvents = (w: CrossOrgWorld) => [w.a.privateEvent.uuid];
const privateAttributes = (w: CrossOrgWorld) => [w.a.privateAttribute.uuid, w.a.sharedPrivateAttribute.uuid];

export const mcpTools: McpToolRow[] = [
  { tool: "search_events", args: () => ({ query: "*", size: 100, from: "2000-01-01" }), b: "filtered", validator: { status: 200 }, validatorFinds: privateOfEvents },
  { tool: "search_attributes", args: () => ({ query: "*", size: 100 }), b: "filtered", validator: { status: 200 }, validatorFinds: privateAttributes },
  { tool: "get_event", args: ({ w }) => ({ event_uuid: w.a.privateEvent.uuid }), b: "hidden", validator: { status: 200 } },
  { tool: "get_attribute", args: ({ w }) => ({ attribute_uuid: w.a.privateAttribute.uuid }), b: "hidden", validator: { status: 200 } },
  { tool: "get_tags", args: ({ w }) => ({ filter: w.tag }), b: "shared", validator: { status: 200 } },
  { tool: "detect_indicator_type", args: () => ({ value: "hxxp://b[.]example" }), b: "shared", validator: { status: 200 } },
  // The caller's own hunts only (the tool has no `all`): B's list holds none of A's.
  { tool: "list_hunts", args: () => ({ size: 100 }), b: "own", validator: { as: "aAdmin", status: 200 }, validatorFinds: (w) => [w.a.adminHunt.name] },
  { tool: "get_hunt_results", args: ({ w }) => ({ hunt_id: w.a.hunt.id }), b: "hidden", validator: { status: 200 }, validatorFinds: (w) => [w.a.privateAttribute.value] },
  { tool: "get_correlations", args: ({ w }) => ({ event_uuid: w.a.privateEvent.uuid, size: 100 }), b: "hidden", validator: { status: 200 }, validatorFinds: (w) => [w.a.privateAttribute.uuid] },
  { tool: "get_sightings", args: ({ w }) => ({ attribute_uuid: w.a.privateAttribute.uuid }), b: "hidden", validator: { status: 200 }, validatorFinds: (w) => [w.a.sightingSource] },
  { tool: "search_galaxy", args: () => ({ galaxy: "cross-org", query: "X0001" }), b: "shared", validator: { status: 200 } },
  // The warninglists are every organisation's: B checks values against the same lists as A.
  { tool: "check_warninglists", args: () => ({ values: ["8.8.8.8"], type: "ip-dst" }), b: "shared", validator: { status: 200 } },
  // A's tag is on A's private event and attribute only: B's counts never name it, the site administrator's do.
  {
    tool: "get_statistics",
    args: () => ({ top: 100 }),
    b: "filtered",
    validator: { status: 200 },
    validatorFinds: (w) => [w.a.tag.name],
    bCheck: (body, { w }) => (JSON.stringify(body).includes(w.a.tag.name) ? "counts A's private tag" : null),
  },
  { tool: "get_hunt_history", args: ({ w }) => ({ hunt_id: w.a.hunt.id }), b: "hidden", validator: { status: 200 } },
  { tool: "get_notifications", args: () => ({ size: 100 }), b: "own", validator: { as: "aAdmin", status: 200 } },
  { tool: "run_hunt", args: ({ w }) => ({ hunt_id: w.a.hunt.id }), b: "hidden", validator: { status: 200 } },
  { tool: "create_hunt", args: ({ w }) => ({ name: w.unique("B hunt"), query: "type:domain" }), b: "own", validator: { status: 200 } },
  // Follow lists are the caller's own and may name any uuid: B following A changes nothing of A's.
  { tool: "follow", args: ({ w }) => ({ list: "organisations", uuid: w.a.org.uuid }), b: "own", validator: { as: "aAdmin", status: 200 } },
  { tool: "unfollow", args: ({ w }) => ({ list: "organisations", uuid: w.a.org.uuid }), b: "own", validator: { as: "aAdmin", status: 200 } },
  { tool: "add_sighting", args: ({ w }) => ({ attribute_uuid: w.a.privateAttribute.uuid, source: "B" }), b: "hidden", validator: { status: 200 } },
  { tool: "create_event", args: ({ w }) => ({ info: w.unique("B event") }), b: "own", validator: { status: 200 } },
  {
    tool: "add_attributes",
    args: ({ w }) => ({ event_uuid: w.a.privateEvent.uuid, attributes: [{ type: "domain", value: `${w.unique("b")}.example.org` }] }),
    b: "hidden", validator: { status: 200 },
  },
  { tool: "export", args: ({ w }) => ({ name: w.unique("B export"), query: "type:domain" }), b: "own", validator: { status: 200 } },
  // A's sync server (its remote a documentation address the address policy refuses: the preview is 503 to the validator).
  { tool: "list_servers", args: async ({ w }) => (await aServer(w), { size: 100 }), b: "filtered", validator: { status: 200 }, validatorFinds: (w) => [serverName(w)] },
  { tool: "test_server_connection", args: async ({ w }) => ({ server_id: await aServer(w) }), b: "hidden", validator: { status: 200 } },
  { tool: "preview_server_pull", args: async ({ w }) => ({ server_id: await aServer(w) }), b: "hidden", validator: { status: 503 } },
  { tool: "pull_server", args: async ({ w }) => ({ server_id: await aServer(w) }), b: "hidden", validator: { status: 200 } },
];

/** A's shared event (B reads it, not its distribution-0 attributes and object) and a value only A may see correlate. */
export const mcpToolsFurther: McpToolRow[] = [
  { tool: "get_event", args: ({ w }) => ({ event_uuid: w.a.sharedEvent.uuid }), b: "filtered", validator: { status: 200 }, validatorFinds: (w) => [w.a.sharedPrivateAttribute.uuid] },
  { tool: "get_correlations", args: ({ w }) => ({ event_uuid: w.a.sharedEvent.uuid, size: 100 }), b: "filtered", validator: { status: 200 }, validatorFinds: (w) => [w.a.sharedPrivateAttribute.uuid] },
  { tool: "get_correlations", args: ({ w }) => ({ value: w.a.privateAttribute.value }), b: "filtered", validator: { status: 200 }, validatorFinds: (w) => [w.a.privateAttribute.uuid] },
  { tool: "get_sightings", args: ({ w }) => ({ event_uuid: w.a.privateEvent.uuid }), b: "hidden", validator: { status: 200 }, validatorFinds: (w) => [w.a.sightingSource] },
  { tool: "get_sightings", args: ({ w }) => ({ event_uuid: w.a.sharedEvent.uuid }), b: "filtered", validator: { status: 200 } },
];
