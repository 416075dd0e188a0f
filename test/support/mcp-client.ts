import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { expect } from "vitest";

/** The SDK's own client over Streamable HTTP to the service's /mcp, with a bearer credential; kept in `clients` to close. */
export async function connectMcp(baseUrl: string, token: string, clients: Client[]): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
  const client = new Client({ name: "workbench-test", version: "1.0.0" });
  await client.connect(transport);
  clients.push(client);
  return client;
}

export type ToolResult = CallToolResult & { structuredContent?: any };

export const callTool = async (client: Client, name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as ToolResult;

export const toolText = (r: CallToolResult) => r.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");

/** A tool's answer that must be a success: its structured content. */
export async function toolOk(client: Client, name: string, args: Record<string, unknown>): Promise<ToolResult["structuredContent"]> {
  const r = await callTool(client, name, args);
  expect(r.isError, `${name}: ${toolText(r).slice(0, 500)}`).toBeFalsy();
  return r.structuredContent;
}

/** A refusal must be a tool error (or a JSON-RPC error for arguments the schema refuses), never a crash. */
export async function toolRefused(client: Client, name: string, args: Record<string, unknown>): Promise<string> {
  try {
    const r = await callTool(client, name, args);
    expect(r.isError, JSON.stringify(r).slice(0, 300)).toBe(true);
    expect(toolText(r)).not.toMatch(/internal_error/);
    return toolText(r);
  } catch (err) {
    expect(String(err)).toMatch(/MCP error -32602|Invalid|validation/i);
    return String(err);
  }
}
