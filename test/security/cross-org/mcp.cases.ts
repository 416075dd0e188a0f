import type { GraphqlCase } from "./graphql.ts";
import type { RestCase } from "./rest.ts";

/**
 * The MCP configuration: it mints a credential of the caller's own (an MCP-only API key), so it is
 * about the caller alone and shows nothing of A's. `/mcp` itself is the SDK's transport outside
 * the route table; its isolation (tools go through the same services) is in
 * test/integration/mcp.test.ts.
 */
export const mcpRest: RestCase[] = [
  { route: "GET /mcp/config", request: () => ({ path: "/mcp/config?expires_in=600" }), b: "own", validator: { status: 200 } },
];

export const mcpGraphql: GraphqlCase[] = [
  { field: "Mutation.mcpConfig", scopes: ["mcp:config"], query: "mutation { mcpConfig(expiresIn: 600) { apiKeyId expiresAt scopes } }", b: "own", validator: { status: 200 } },
];
