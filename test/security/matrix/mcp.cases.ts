import { expectFor, type MatrixCase } from "../../support/authz-matrix.ts";

/** Role 3 ("user") holds no MCP scope: only the administrator mints an MCP credential here. */
export const mcpCases: MatrixCase[] = [
  { route: "GET /mcp/config", request: () => ({ path: "/mcp/config?expires_in=600" }), expect: expectFor.adminOnly(200) },
];
