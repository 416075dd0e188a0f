import type { GraphqlCase } from "./graphql.ts";
import type { RestCase } from "./rest.ts";
import type { TaskCase } from "./tasks.cases.ts";
import type { CrossOrgWorld } from "./world.ts";

/**
 * MISP sync servers: A's server (added by the site administrator for A; its remote is a
 * documentation address the address policy refuses, so nothing leaves the machine) is invisible to
 * B (404, or 403 without the scope: no built-in role of B's holds servers:*), and B can neither
 * change, test, pull from or push to it nor add one for A. Validators use throwaway servers of A
 * for the destructive requests; what must reach the remote answers 503 to them.
 */
const servers = new WeakMap<CrossOrgWorld, { id: number }>();
const REMOTE = "http://192.0.2.10/misp/";

export const nameOf = (w: CrossOrgWorld) => `servers-A-${w.tag}`;

async function newServer(w: CrossOrgWorld, name: string): Promise<number> {
  return (await w.call("site", "POST", "/servers/", { name, url: REMOTE, authkey: `a-sync-key-${w.tag}-0123456789`, org_id: w.a.org.id })).id;
}

/** A's server, added once per world. */
export async function aServer(w: CrossOrgWorld): Promise<number> {
  let s = servers.get(w);
  if (!s) servers.set(w, (s = { id: await newServer(w, nameOf(w)) }));
  return s.id;
}

const target = async ({ w, validating }: { w: CrossOrgWorld; validating: boolean }, destructive = false) => (validating && destructive ? newServer(w, w.unique("A throwaway server")) : aServer(w));

export const serversRest: RestCase[] = [
  {
    route: "GET /servers/",
    request: async ({ w }) => (await aServer(w), { path: "/servers/" }),
    b: "filtered", validator: { status: 200 }, validatorFinds: (w) => [nameOf(w)],
  },
  { route: "GET /servers/{server_id}", request: async (c) => ({ path: `/servers/${await target(c)}` }), b: "hidden", validator: { status: 200 } },
  {
    route: "POST /servers/",
    request: ({ w }) => ({ path: "/servers/", json: { name: w.unique("server for A"), url: REMOTE, authkey: "b-made-this-key-0123", org_id: w.a.org.id } }),
    b: "denied", validator: { status: 201 },
  },
  { route: "PATCH /servers/{server_id}", request: async (c) => ({ path: `/servers/${await target(c, true)}`, json: { url: "http://192.0.2.66/misp/" } }), b: "hidden", validator: { status: 200 } },
  { route: "DELETE /servers/{server_id}", request: async (c) => ({ path: `/servers/${await target(c, true)}` }), b: "hidden", validator: { status: 204 } },
  { route: "POST /servers/{server_id}/test-connection", request: async (c) => ({ path: `/servers/${await target(c)}/test-connection` }), b: "hidden", validator: { status: 200 } },
  { route: "POST /servers/{server_id}/preview-pull", request: async (c) => ({ path: `/servers/${await target(c)}/preview-pull`, json: {} }), b: "hidden", validator: { status: 503 } },
  { route: "POST /servers/{server_id}/pull", request: async (c) => ({ path: `/servers/${await target(c)}/pull` }), b: "hidden", validator: { status: 202 } },
  {
    route: "POST /servers/{server_id}/events/{event_uuid}/pull",
    request: async (c) => ({ path: `/servers/${await target(c)}/events/${c.w.a.privateEvent.uuid}/pull` }),
    b: "hidden", validator: { status: 503 },
  },
  { route: "POST /servers/{server_id}/push", request: async (c) => ({ path: `/servers/${await target(c)}/push` }), b: "hidden", validator: { status: 202 } },
  {
    route: "POST /servers/{server_id}/events/{event_uuid}/push",
    request: async (c) => ({ path: `/servers/${await target(c)}/events/${c.w.a.privateEvent.uuid}/push` }),
    b: "hidden", validator: { status: 503 },
  },
];

const id = async (c: { w: CrossOrgWorld; validating: boolean }, destructive = false) => ({ id: await target(c, destructive) });

export const serversGraphql: GraphqlCase[] = [
  {
    field: "Query.servers", scopes: ["servers:read"], query: "{ servers(size: 50) { items { id name url } } }",
    variables: async ({ w }) => (await aServer(w), {}),
    b: "filtered", validator: { status: 200 }, validatorFinds: (w) => [nameOf(w)],
  },
  { field: "Query.server", scopes: ["servers:read"], query: "query($id: Int!) { server(id: $id) { id name } }", variables: (c) => id(c), b: "hidden", validator: { status: 200 } },
  {
    field: "Query.previewServerPull", scopes: ["servers:read"], query: "query($id: Int!) { previewServerPull(id: $id) { total } }",
    variables: (c) => id(c), b: "hidden", validator: { status: 503 },
  },
  {
    field: "Mutation.createServer", scopes: ["servers:create"], query: "mutation($i: ServerFields!) { createServer(input: $i) { id } }",
    variables: ({ w }) => ({ i: { name: w.unique("server for A"), url: REMOTE, authkey: "b-made-this-key-0123", orgId: w.a.org.id } }),
    b: "denied", validator: { status: 200 },
  },
  {
    field: "Mutation.updateServer", scopes: ["servers:update"], query: "mutation($id: Int!) { updateServer(id: $id, input: { url: \"http://192.0.2.66/misp/\" }) { id } }",
    variables: (c) => id(c, true), b: "hidden", validator: { status: 200 },
  },
  { field: "Mutation.deleteServer", scopes: ["servers:delete"], query: "mutation($id: Int!) { deleteServer(id: $id) }", variables: (c) => id(c, true), b: "hidden", validator: { status: 200 } },
  {
    field: "Mutation.testServerConnection", scopes: ["servers:test"], query: "mutation($id: Int!) { testServerConnection(id: $id) { ok problems } }",
    variables: (c) => id(c), b: "hidden", validator: { status: 200 },
  },
  { field: "Mutation.pullServer", scopes: ["servers:pull"], query: "mutation($id: Int!) { pullServer(id: $id) { id } }", variables: (c) => id(c), b: "hidden", validator: { status: 200 } },
  { field: "Mutation.pushServer", scopes: ["servers:push"], query: "mutation($id: Int!) { pushServer(id: $id) { id } }", variables: (c) => id(c), b: "hidden", validator: { status: 200 } },
  {
    field: "Mutation.pullServerEvent", scopes: ["servers:pull"], query: "mutation($id: Int!, $uuid: String!) { pullServerEvent(id: $id, uuid: $uuid) }",
    variables: async (c) => ({ ...(await id(c)), uuid: c.w.a.privateEvent.uuid }), b: "hidden", validator: { status: 503 },
  },
  {
    field: "Mutation.pushServerEvent", scopes: ["servers:push"], query: "mutation($id: Int!, $uuid: String!) { pushServerEvent(id: $id, uuid: $uuid) }",
    variables: async (c) => ({ ...(await id(c)), uuid: c.w.a.privateEvent.uuid }), b: "hidden", validator: { status: 503 },
  },
];

/** The server tasks aimed at A's server: its id is known once `arrange` has added it. */
export const serverTaskCases: TaskCase[] = (["server_pull", "server_push"] as const).map((task) => ({
  task,
  kwargs: (w) => ({ server_id: servers.get(w)?.id ?? 0 }),
  refusedWith: [403, 404, 422],
  async arrange(w) {
    await aServer(w);
    return async () => undefined;
  },
}));
