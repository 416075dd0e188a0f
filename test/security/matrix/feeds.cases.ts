import { expectFor, type MatrixCase, type MatrixWorld } from "../../support/authz-matrix.ts";

/**
 * Feeds belong to their organisation: role 3 (owner, otherUser, both of the administrator's
 * organisation) holds feeds:read only, so it reads the organisation's feeds and changes none;
 * create, upload, update, delete and fetch are the administrator's here (other organisations get
 * 404: test/integration/feeds-isolation.test.ts). The upload route takes multipart only: the
 * administrator's JSON request passes authorization and gets 415. A preview of a key that is no
 * upload of the caller's organisation is 404.
 */
async function networkFeed(w: MatrixWorld): Promise<number> {
  const res = await w.app.http.post("/feeds/", {
    token: w.admin.token,
    json: { name: w.unique("feed"), provider: "matrix", url: "https://feeds.example.org/x", source_format: "csv", input_source: "network" },
  });
  if (res.status !== 201) throw new Error(`matrix fixture feed: ${res.status} ${res.text}`);
  return res.body.id;
}

export const feedCases: MatrixCase[] = [
  { route: "GET /feeds/", request: () => ({ path: "/feeds/" }), expect: expectFor.anyUser(200) },
  { route: "GET /feeds/{feed_id}", request: async (_a, w) => ({ path: `/feeds/${await networkFeed(w)}` }), expect: expectFor.anyUser(200) },
  {
    route: "POST /feeds/upload",
    request: () => ({ path: "/feeds/upload", json: { file: "x" } }),
    expect: { anonymous: 401, wrongScope: 403, otherUser: 403, owner: 403, admin: 415 },
  },
  {
    route: "POST /feeds/",
    request: (_a, w) => ({ path: "/feeds/", json: { name: w.unique("feed"), provider: "m", url: "https://feeds.example.org/y", source_format: "csv", input_source: "network" } }),
    expect: expectFor.adminOnly(201),
  },
  { route: "PATCH /feeds/{feed_id}", request: async (_a, w) => ({ path: `/feeds/${await networkFeed(w)}`, json: { name: "renamed" } }), expect: expectFor.adminOnly(200) },
  { route: "DELETE /feeds/{feed_id}", request: async (_a, w) => ({ path: `/feeds/${await networkFeed(w)}` }), expect: expectFor.adminOnly(204) },
  { route: "GET /feeds/{feed_id}/explore", request: async (_a, w) => ({ path: `/feeds/${await networkFeed(w)}/explore` }), expect: { anonymous: 401, wrongScope: 403, otherUser: 400, owner: 400, admin: 400 } },
  ...(["csv", "json", "freetext"] as const).map(
    (f): MatrixCase => ({
      route: `POST /feeds/${f}/preview`,
      request: () => ({ path: `/feeds/${f}/preview`, json: { input_source: "local", url: "feed-uploads/00000000-0000-4000-8000-000000000000" } }),
      expect: { anonymous: 401, wrongScope: 403, otherUser: 403, owner: 403, admin: 404 },
    }),
  ),
  { route: "POST /feeds/{feed_id}/fetch", request: async (_a, w) => ({ path: `/feeds/${await networkFeed(w)}/fetch` }), expect: expectFor.adminOnly(200) },
];
