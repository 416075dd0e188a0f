import { expectFor, type MatrixCase, type MatrixWorld } from "../../support/authz-matrix.ts";

/**
 * MISP sync servers: no built-in role but the administrator's holds servers:* (role 3, owner and
 * otherUser, has none), so every route is the administrator's here; other organisations' servers
 * are 404 (test/integration/server-sync.test.ts). The fixture's remote is a documentation address
 * the address policy refuses at once: test-connection reports it (200), what must reach the remote
 * answers 503, pull and push queue their run (202), pushing an event no organisation owns is 404.
 */
async function server(w: MatrixWorld): Promise<number> {
  const res = await w.app.http.post("/servers/", { token: w.admin.token, json: { name: w.unique("server"), url: "http://192.0.2.10/misp/", authkey: "matrix-key-0123456789" } });
  if (res.status !== 201) throw new Error(`matrix fixture server: ${res.status} ${res.text}`);
  return res.body.id;
}

const NO_EVENT = "00000000-0000-4000-8000-000000000000";

export const serverCases: MatrixCase[] = [
  { route: "GET /servers/", request: () => ({ path: "/servers/" }), expect: expectFor.adminOnly(200) },
  {
    route: "POST /servers/",
    request: (_a, w) => ({ path: "/servers/", json: { name: w.unique("server"), url: "https://misp.example.org/", authkey: "matrix-key-0123456789" } }),
    expect: expectFor.adminOnly(201),
  },
  { route: "GET /servers/{server_id}", request: async (_a, w) => ({ path: `/servers/${await server(w)}` }), expect: expectFor.adminOnly(200) },
  { route: "PATCH /servers/{server_id}", request: async (_a, w) => ({ path: `/servers/${await server(w)}`, json: { name: "renamed" } }), expect: expectFor.adminOnly(200) },
  { route: "DELETE /servers/{server_id}", request: async (_a, w) => ({ path: `/servers/${await server(w)}` }), expect: expectFor.adminOnly(204) },
  { route: "POST /servers/{server_id}/test-connection", request: async (_a, w) => ({ path: `/servers/${await server(w)}/test-connection` }), expect: expectFor.adminOnly(200) },
  { route: "POST /servers/{server_id}/preview-pull", request: async (_a, w) => ({ path: `/servers/${await server(w)}/preview-pull`, json: {} }), expect: expectFor.adminOnly(503) },
  { route: "POST /servers/{server_id}/pull", request: async (_a, w) => ({ path: `/servers/${await server(w)}/pull` }), expect: expectFor.adminOnly(202) },
  { route: "POST /servers/{server_id}/events/{event_uuid}/pull", request: async (_a, w) => ({ path: `/servers/${await server(w)}/events/${NO_EVENT}/pull` }), expect: expectFor.adminOnly(503) },
  { route: "POST /servers/{server_id}/push", request: async (_a, w) => ({ path: `/servers/${await server(w)}/push` }), expect: expectFor.adminOnly(202) },
  { route: "POST /servers/{server_id}/events/{event_uuid}/push", request: async (_a, w) => ({ path: `/servers/${await server(w)}/events/${NO_EVENT}/push` }), expect: expectFor.adminOnly(404) },
];
