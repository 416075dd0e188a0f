/**
 * GraphQL huntResults pages the cached hits in the database (a cpe hunt's result has no cap): pages
 * of a real MISP event's attributes put together are the whole result in its order, hitCount says
 * how many there are; bad page sizes are refused; another user's hunt stays hidden.
 */
import fs from "node:fs";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { createUser, loginAdmin, type TestUser } from "../support/fixtures.ts";
import { settled } from "../support/settled.ts";
import { sharedPath } from "../support/shared-data.ts";

const VOLTA = "0dbb179a-1c8c-4e7c-a264-2440414dbac8"; // 20 domain attributes

let app: TestApp;
let analyst: TestUser;
let outsider: TestUser;
let huntId: number;

const gql = async (user: TestUser, query: string, variables: Record<string, unknown>) => (await app.http.post("/graphql", { token: user.token, json: { query, variables } })).body;
const RESULTS = "query($id: Int!, $page: Int, $size: Int) { huntResults(id: $id, page: $page, size: $size) { total hitCount hits { ... on HuntDocumentHit { uuid } } } }";

beforeAll(async () => {
  app = await startTestApp("hunt-results-paging", { ROLE: "all" });
  const admin = await loginAdmin(app);
  analyst = await createUser(app, admin, 3);
  outsider = await createUser(app, admin, 3);
  const imported = await app.http.post("/events/import", { token: admin.token, json: JSON.parse(fs.readFileSync(sharedPath("misp-feed-sample", `${VOLTA}.json`), "utf8")) });
  expect(imported.status, imported.text).toBe(201);
  await settled(app);
  huntId = (await app.http.post("/hunts/", { token: analyst.token, json: { name: "volta domains", query: `event_uuid:${VOLTA} AND type:domain` } })).body.id;
  expect((await app.http.post(`/hunts/${huntId}/run`, { token: analyst.token })).status).toBe(200);
});
afterAll(async () => {
  await app?.close();
});

it("pages the cached hits: the pages together are the whole result in its order", async () => {
  const all = (await gql(analyst, RESULTS, { id: huntId })).data.huntResults;
  expect(all).toMatchObject({ total: 20, hitCount: 20 });
  expect(all.hits).toHaveLength(20);
  const pages = [];
  for (const page of [1, 2, 3]) {
    const r = (await gql(analyst, RESULTS, { id: huntId, page, size: 8 })).data.huntResults;
    expect(r).toMatchObject({ total: 20, hitCount: 20 });
    pages.push(...r.hits);
  }
  expect(pages).toEqual(all.hits);
  expect((await gql(analyst, RESULTS, { id: huntId, page: 4, size: 8 })).data.huntResults.hits).toEqual([]);
  // The REST twin keeps answering the whole set.
  expect((await app.http.get(`/hunts/${huntId}/results`, { token: analyst.token })).body.hits.map((h: { uuid: string }) => h.uuid)).toEqual(all.hits.map((h: { uuid: string }) => h.uuid));
});

it("refuses bad page sizes and hides another user's results", async () => {
  for (const args of [{ page: 0 }, { size: 0 }, { size: 101 }, { page: 1, size: -1 }]) {
    const res = await gql(analyst, RESULTS, { id: huntId, ...args });
    expect(res.errors?.[0]?.extensions?.code, JSON.stringify(args)).toBe("validation_error");
  }
  const hidden = await gql(outsider, RESULTS, { id: huntId, page: 1, size: 5 });
  expect(hidden.errors[0].extensions.code).toBe("not_found");
});
