import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import type { Runtime } from "../runtime.ts";
import { serverConnectionOut, serverOut, serverPreviewOut, syncStartedOut } from "../../rest-shim/serializers/servers.ts";
import { taskRunOut } from "../../rest-shim/serializers/tasks.ts";
import { toolResult } from "./results.ts";
import { ADDS_DATA, ID, pageArg, READ_ONLY, sizeArg, wrap } from "./tool-kit.ts";

const SERVER_ID = ID.describe("The server's id, from list_servers.");

/**
 * list_servers, test_server_connection, preview_server_pull and pull_server: the REST /servers/
 * routes' service calls (organisation, scopes and the write-only API key as there).
 */
export function registerServerTools(server: McpServer, runtime: Runtime): void {
  server.registerTool(
    "list_servers",
    {
      title: "List MISP servers",
      description: "Lists your organisation's MISP servers to sync with (administrators: every one): id, name, url, pull and push rules, pull cursor and last pull. The API key is never shown. 1 to 100 per page.",
      inputSchema: { page: pageArg, size: sizeArg(20) },
      annotations: READ_ONLY,
    },
    wrap(runtime, "list_servers", async (args: { page: number; size: number }, { services, principal }) => {
      const page = await services.servers.listPage(principal, { page: args.page, size: args.size });
      const more = page.page * page.size < page.total ? ` Next: page ${page.page + 1}.` : "";
      return toolResult(`${page.total} servers; page ${page.page} holds ${page.items.length}.${more}`, { total: page.total, page: page.page, size: page.size, servers: page.items.map(serverOut) });
    }),
  );

  server.registerTool(
    "test_server_connection",
    {
      title: "Test a MISP server's connection",
      description: "Asks the remote MISP for its version and who the API key is there: ok, version, perm_sync, user, organisation, and the problems found (a refused key, no sync permission, an unreachable host) in words.",
      inputSchema: { server_id: SERVER_ID },
      annotations: { ...READ_ONLY, openWorldHint: true },
    },
    wrap(runtime, "test_server_connection", async (args: { server_id: number }, { services, principal }) => {
      const report = serverConnectionOut(await services.servers.testConnection(principal, args.server_id));
      return toolResult(report.ok ? `Connected: MISP ${report.version}, as ${report.user ?? "?"} of ${report.organisation?.name ?? "?"}.` : `Not usable: ${report.problems.join("; ")}`, report);
    }),
  );

  server.registerTool(
    "preview_server_pull",
    {
      title: "Preview a pull from a MISP server",
      description: "The remote events the next pull would take (pull rules applied, from the cursor on, oldest change first), writing nothing: uuid, timestamp, info, creator organisation, distribution, tags and the timestamp of the copy stored here.",
      inputSchema: { server_id: SERVER_ID, limit: z.number().int().min(1).max(1000).default(100).describe("Events to list, 1 to 1000 (default 100).") },
      annotations: { ...READ_ONLY, openWorldHint: true },
    },
    wrap(runtime, "preview_server_pull", async (args: { server_id: number; limit: number }, { services, principal }) => {
      const preview = serverPreviewOut(await services.servers.previewPull(principal, args.server_id, { limit: args.limit }));
      return toolResult(`A pull would consider ${preview.total} remote events; ${preview.events.length} listed.`, preview);
    }),
  );

  server.registerTool(
    "pull_server",
    {
      title: "Pull from a MISP server now",
      description: "CHANGES DATA: starts a pull of everything the server's pull rules take, as a task run (its progress and counts: GET /tasks/{id}). Pulled events are your organisation's, downgraded in distribution as MISP does unless the server is internal.",
      inputSchema: { server_id: SERVER_ID },
      annotations: { ...ADDS_DATA, openWorldHint: true },
    },
    wrap(runtime, "pull_server", async (args: { server_id: number }, { services, principal }) => {
      const started = syncStartedOut(taskRunOut(await services.servers.pull(principal, args.server_id)));
      return toolResult(`Pull queued as task run ${started.task.id}.`, started);
    }),
  );
}
