import { builder, caller } from "../graphql/builder.ts";
import type { McpConfig } from "./mcp-config.service.ts";

const McpConfigType = builder.objectRef<McpConfig>("McpConfig").implement({
  description: "An MCP client credential (an API key holding only MCP scopes) and the client configuration that uses it",
  fields: (t) => ({
    token: t.exposeString("token", { description: "The raw 40-hex secret. Shown once: store it now." }),
    expiresAt: t.expose("expiresAt", { type: "DateTime", description: "When the credential stops working" }),
    apiKeyId: t.exposeInt("apiKeyId", { description: "Revoke with deleteApiKey(id)" }),
    scopes: t.exposeStringList("scopes", { description: "The MCP scopes it holds (read only: an MCP config token never writes)" }),
    url: t.exposeString("url", { description: "The MCP endpoint's URL (PUBLIC_URL/mcp)" }),
    config: t.field({
      type: "JSON",
      description: 'The `{"mcpServers": {...}}` document MCP clients read: JSON because it is the clients\' own configuration format',
      resolve: (c) => c.config,
    }),
  }),
});

builder.mutationFields((t) => ({
  mcpConfig: t.field({
    type: McpConfigType,
    description: "GET /mcp/config: mint an MCP client credential valid expiresIn seconds (default and maximum: runtime setting mcp.max_token_lifetime_days)",
    args: { expiresIn: t.arg.int({ description: "Lifetime in seconds (default and maximum: mcp.max_token_lifetime_days)" }) },
    resolve: (_r, a, ctx) => ctx.services.mcpConfig.create(caller(ctx), a.expiresIn ?? undefined, ["expiresIn"]),
  }),
}));
