import type { McpToolName } from "../../../src/mcp/tool-names.ts";
import { expectFor, type Actor, type MatrixCase, type MatrixWorld } from "../../support/authz-matrix.ts";

/** Role 3 ("user") holds no MCP scope: only the administrator mints an MCP credential here. */
export const mcpCases: MatrixCase[] = [
  { route: "GET /mcp/config", request: () => ({ path: "/mcp/config?expires_in=600" }), expect: expectFor.adminOnly(200) },
];

/**
 * One row per MCP tool: the tool's arguments, aimed at the owner's things, and what each caller
 * gets. `/mcp` is the SDK's transport outside the route table, so these rows are run by
 * test/integration/mcp-matrix.test.ts with the SDK's client, each actor with its own credential:
 * a refused session answers its HTTP status (401 without a credential, 403 without an MCP scope),
 * a tool error the HTTP status of its code. Role 3 (owner, otherUser) and the `tags:read` key hold
 * no MCP scope, so, as for /mcp/config, only the administrator gets through, to the owner's things.
 */
export interface McpToolCase {
  tool: McpToolName;
  args(w: MatrixWorld): Record<string, unknown> | Promise<Record<string, unknown>>;
  expect: Record<Actor, number>;
}

interface OwnersThings {
  eventUuid: string;
  attributeUuid: string;
  huntId: number;
}

const things = new WeakMap<MatrixWorld, Promise<OwnersThings>>();
const galaxies = new WeakMap<MatrixWorld, Promise<void>>();

async function call(w: MatrixWorld, token: string, method: string, path: string, json?: unknown) {
  const res = await w.app.http.request(method, path, { token, json });
  if (res.status >= 300) throw new Error(`matrix fixture ${method} ${path}: ${res.status} ${res.text}`);
  return res.body;
}

/** The owner's org-only event with a sighted attribute, and a hunt that ran once: made once per world. */
function owners(w: MatrixWorld): Promise<OwnersThings> {
  let t = things.get(w);
  if (!t) {
    t = (async () => {
      const token = w.owner.token;
      const event = await call(w, token, "POST", "/events/", { info: w.unique("matrix mcp"), distribution: 0 });
      const attribute = await call(w, token, "POST", "/attributes/", { event_uuid: event.uuid, type: "domain", value: `${w.unique("mcp")}.example.org` });
      await call(w, token, "POST", "/sightings/", { attribute_uuid: attribute.uuid, source: "matrix" });
      const hunt = await call(w, token, "POST", "/hunts/", { name: w.unique("matrix mcp"), query: "type:domain" });
      await call(w, token, "POST", `/hunts/${hunt.id}/run`);
      return { eventUuid: event.uuid, attributeUuid: attribute.uuid, huntId: hunt.id };
    })();
    things.set(w, t);
  }
  return t;
}

const servers = new WeakMap<MatrixWorld, Promise<number>>();

/** A sync server of the administrator's organisation (no built-in role but theirs holds servers:*), made once per world. */
function syncServer(w: MatrixWorld): Promise<number> {
  let s = servers.get(w);
  if (!s) {
    s = call(w, w.admin.token, "POST", "/servers/", { name: w.unique("mcp server"), url: "http://192.0.2.10/misp/", authkey: "matrix-key-0123456789" }).then((b) => b.id as number);
    servers.set(w, s);
  }
  return s;
}

/** ATT&CK from GALAXY_SOURCE, imported once per world by the administrator. */
function attack(w: MatrixWorld): Promise<void> {
  let g = galaxies.get(w);
  if (!g) {
    g = call(w, w.admin.token, "POST", "/galaxies/update").then(() => undefined);
    galaxies.set(w, g);
  }
  return g;
}

const adminOnly = expectFor.adminOnly(200);

export const mcpToolCases: McpToolCase[] = [
  { tool: "search_events", args: () => ({ query: "*", from: "2000-01-01" }), expect: adminOnly },
  { tool: "search_attributes", args: () => ({ query: "type:domain", to: Math.floor(Date.now() / 1000) + 3600 }), expect: adminOnly },
  { tool: "get_event", args: async (w) => ({ event_uuid: (await owners(w)).eventUuid }), expect: adminOnly },
  { tool: "get_attribute", args: async (w) => ({ attribute_uuid: (await owners(w)).attributeUuid }), expect: adminOnly },
  { tool: "get_tags", args: () => ({ filter: "tlp" }), expect: adminOnly },
  { tool: "detect_indicator_type", args: () => ({ value: "hxxp://evil[.]example" }), expect: adminOnly },
  { tool: "list_hunts", args: () => ({}), expect: adminOnly },
  { tool: "get_hunt_results", args: async (w) => ({ hunt_id: (await owners(w)).huntId }), expect: adminOnly },
  { tool: "get_correlations", args: async (w) => ({ event_uuid: (await owners(w)).eventUuid }), expect: adminOnly },
  { tool: "get_sightings", args: async (w) => ({ attribute_uuid: (await owners(w)).attributeUuid }), expect: adminOnly },
  { tool: "get_statistics", args: () => ({ from: "2000-01-01", top: 5 }), expect: adminOnly },
  { tool: "search_galaxy", args: async (w) => (await attack(w), { query: "T1059" }), expect: adminOnly },
  { tool: "check_warninglists", args: () => ({ values: ["8.8.8.8", "https://bit.ly/x"] }), expect: adminOnly },
  { tool: "get_hunt_history", args: async (w) => ({ hunt_id: (await owners(w)).huntId }), expect: adminOnly },
  { tool: "get_notifications", args: () => ({ read: false }), expect: adminOnly },
  { tool: "run_hunt", args: async (w) => ({ hunt_id: (await owners(w)).huntId }), expect: adminOnly },
  { tool: "create_hunt", args: (w) => ({ name: w.unique("mcp hunt"), query: "type:domain" }), expect: adminOnly },
  { tool: "follow", args: async (w) => ({ uuid: (await owners(w)).eventUuid }), expect: adminOnly },
  { tool: "unfollow", args: async (w) => ({ uuid: (await owners(w)).eventUuid }), expect: adminOnly },
  { tool: "add_sighting", args: async (w) => ({ attribute_uuid: (await owners(w)).attributeUuid, source: "matrix" }), expect: adminOnly },
  { tool: "create_event", args: (w) => ({ info: w.unique("mcp event") }), expect: adminOnly },
  {
    tool: "add_attributes",
    args: async (w) => ({ event_uuid: (await owners(w)).eventUuid, attributes: [{ type: "domain", value: `${w.unique("mcp-add")}.example.org` }] }),
    expect: adminOnly,
  },
  { tool: "export", args: (w) => ({ name: w.unique("mcp export"), query: "type:domain" }), expect: adminOnly },
  { tool: "list_servers", args: () => ({}), expect: adminOnly },
  { tool: "test_server_connection", args: async (w) => ({ server_id: await syncServer(w) }), expect: adminOnly },
  // The server's remote is a documentation address the feeds' address policy refuses: 503 naming it.
  { tool: "preview_server_pull", args: async (w) => ({ server_id: await syncServer(w) }), expect: expectFor.adminOnly(503) },
  { tool: "pull_server", args: async (w) => ({ server_id: await syncServer(w) }), expect: adminOnly },
];
