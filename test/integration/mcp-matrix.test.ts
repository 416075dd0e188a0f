/**
 * The MCP tools in the two authorization matrices. `/mcp` is the SDK's transport outside the REST
 * route table, so the matrices' own runners (which send one HTTP request per row) cannot call a
 * tool; the rows live beside the other MCP rows (test/security/matrix/mcp.cases.ts,
 * test/security/cross-org/mcp.cases.ts) and are run here with the SDK's client, one session per
 * call, and judged exactly as the REST rows are: a refused session by its HTTP status, a tool
 * error by the HTTP status of its code, a success as 200 with its structured content as the text.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MCP_TOOL_NAMES } from "../../src/mcp/tool-names.ts";
import { TOOL_SCOPES } from "../../src/mcp/tool-access.ts";
import { ERROR_CODES } from "../../src/platform/errors.ts";
import { startTestApp, type TestApp } from "../support/app.ts";
import { ACTORS, buildWorld as buildMatrixWorld, credentialOf, type MatrixWorld } from "../support/authz-matrix.ts";
import { sharedPath } from "../support/shared-data.ts";
import { settled } from "../support/settled.ts";
import { mcpToolCases } from "../security/matrix/mcp.cases.ts";
import { mcpTools, mcpToolsFurther, type McpToolRow } from "../security/cross-org/mcp.cases.ts";
import { bProblems, validationOrder, validatorProblem, type Row } from "../security/cross-org/judge.ts";
import type { Answer } from "../security/cross-org/rest.ts";
import { changedTables, snapshotOrg, type Snapshot } from "../security/cross-org/snapshot.ts";
import { buildWorld as buildCrossOrgWorld, type CrossOrgWorld } from "../security/cross-org/world.ts";

/** One tool call as `authorization`, in a session of its own (ended afterwards: sessions per user are limited). */
async function callTool(url: string, authorization: string | undefined, tool: string, args: Record<string, unknown>): Promise<Answer> {
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: authorization ? { Authorization: authorization } : {} } });
  const client = new Client({ name: "matrix", version: "1.0.0" });
  try {
    await client.connect(transport);
  } catch (err) {
    await client.close().catch(() => undefined);
    if (err instanceof StreamableHTTPError && err.code !== undefined && err.code > 0) return { status: err.code, text: err.message };
    throw err;
  }
  try {
    const r = (await client.callTool({ name: tool, arguments: args })) as CallToolResult;
    const text = r.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
    if (!r.isError) return { status: 200, text: JSON.stringify(r.structuredContent ?? null) };
    const code = (r.structuredContent as { code?: string } | undefined)?.code;
    if (code && code in ERROR_CODES) return { status: ERROR_CODES[code as keyof typeof ERROR_CODES], text };
    // The SDK's own refusal of arguments outside the input schema.
    return { status: /internal_error/.test(text) ? 500 : 422, text };
  } finally {
    await transport.terminateSession().catch(() => undefined);
    await client.close();
  }
}

/** Exactly one row per tool: a new tool must come with its rows. */
const uncovered = (tools: string[]) => MCP_TOOL_NAMES.filter((t) => tools.filter((x) => x === t).length !== 1);

describe("authorization matrix: MCP tools", () => {
  let app: TestApp;
  let world: MatrixWorld;

  beforeAll(async () => {
    app = await startTestApp("mcp-matrix", { GALAXY_SOURCE: sharedPath("misp-galaxy") });
    world = await buildMatrixWorld(app);
  });
  afterAll(() => app?.close());

  it("covers every tool", () => {
    expect(uncovered(mcpToolCases.map((c) => c.tool))).toEqual([]);
  });

  describe.each(mcpToolCases)("$tool", (c) => {
    it.each(ACTORS)("%s", async (actor) => {
      const { status, text } = await callTool(app.url, credentialOf(actor, world), c.tool, await c.args(world));
      expect(status, `${c.tool} as ${actor}: ${text.slice(0, 300)}`).toBe(c.expect[actor]);
    });
  });
});

describe("cross-organisation matrix: MCP tools", () => {
  let app: TestApp;
  let w: CrossOrgWorld;
  let before: Snapshot;

  const row = (c: McpToolRow, suffix = ""): Row => ({
    name: `MCP ${c.tool}${suffix}`,
    e: c,
    scopes: [`mcp:${c.tool}`, ...TOOL_SCOPES[c.tool]],
    send: async (ctx) => callTool(ctx.w.app.url, ctx.w.credential(ctx.actor), c.tool, await c.args(ctx)),
  });
  const rows = [...mcpTools.map((c) => row(c)), ...mcpToolsFurther.map((c) => row(c, " (further path)"))];

  beforeAll(async () => {
    app = await startTestApp("mcp-cross-org", { ROLE: "all", GALAXY_SOURCE: sharedPath("misp-galaxy") });
    w = await buildCrossOrgWorld(app);
    before = await snapshotOrg(app.booted.ctx.db.pool, w.a.org.id);
  }, 180_000);
  afterAll(async () => {
    await w?.server.close();
    await app?.close();
  });

  it("covers every tool", () => {
    expect(uncovered(mcpTools.map((c) => c.tool))).toEqual([]);
  });

  it.each(rows)("$name, as B's org admin, user, read-only user and narrow key", async (r) => {
    expect(await bProblems(w, r)).toEqual([]);
  });

  it("leaves everything organisation A owns unchanged", async () => {
    await settled(app, 60_000);
    expect(changedTables(before, await snapshotOrg(app.booted.ctx.db.pool, w.a.org.id))).toEqual([]);
  });

  it.each(validationOrder(rows))("$name: the same request from the site administrator or A's own user succeeds", async (r) => {
    expect(await validatorProblem(w, r)).toBeNull();
  });
});
