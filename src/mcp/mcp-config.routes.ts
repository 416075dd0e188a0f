import { z } from "zod";
import { named, timestamp } from "../../rest-shim/contract.ts";
import { defineRoute } from "../../rest-shim/route.ts";
import type { McpConfig } from "./mcp-config.service.ts";

/** Seconds; the runtime setting narrows the upper bound further. */
const expiresIn = z
  .string()
  .regex(/^[0-9]{1,10}$/, "must be a number of seconds")
  .transform(Number)
  .pipe(z.number().int().min(60).max(365 * 86_400));

const McpConfigSchema = named(
  "McpConfig",
  z.object({
    token: z.string().describe("The credential: shown only in this answer"),
    expires_at: timestamp,
    api_key_id: z.int().describe("The API key it is (revoke it with DELETE /api-keys/{key_id})"),
    scopes: z.array(z.string()).describe("The MCP scopes it carries"),
    url: z.string().describe("The MCP endpoint, <PUBLIC_URL>/mcp"),
    config: z
      .object({
        mcpServers: z.record(
          z.string(),
          z.object({ type: z.literal("http"), url: z.string(), headers: z.object({ Authorization: z.string() }) }),
        ),
      })
      .describe("A ready client configuration"),
  }),
  "An MCP client credential and its configuration",
);

export function mcpConfigOut(c: McpConfig): z.output<typeof McpConfigSchema> {
  return { token: c.token, expires_at: c.expiresAt.toISOString(), api_key_id: c.apiKeyId, scopes: c.scopes, url: c.url, config: c.config };
}

/** The REST side of the MCP server; `/mcp` itself is the SDK's transport (`./mcp-http.ts`), outside the route table. */
export const mcpRoutes = [
  defineRoute({
    method: "GET", path: "/mcp/config", operationId: "getMcpConfig", tag: "mcp",
    summary:
      "Mint an MCP client credential: an API key (listed and revoked with /api-keys/) holding only the caller's MCP scopes, valid `expires_in` seconds (default and maximum: runtime setting mcp.max_token_lifetime_days), answered once with a ready `mcpServers` configuration for `<PUBLIC_URL>/mcp`",
    scopes: ["mcp:config"], status: 200, response: McpConfigSchema,
    query: z.object({ expires_in: expiresIn.optional() }).strict(),
    handler: async ({ principal, query, services }) =>
      mcpConfigOut(await services.mcpConfig.create(principal, query.expires_in, ["query", "expires_in"])),
  }),
];
