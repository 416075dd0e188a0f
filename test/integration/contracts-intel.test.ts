/**
 * The intel areas' input contracts (tags, galaxies, sightings, correlation exclusions, hunt lists):
 * one contract per operation, so a bad value is refused the same way over REST (422 at
 * ["body" | "query", snake_name]) and GraphQL (validation_error at ["args", ("input",) camelName]),
 * and nothing is written.
 */
import crypto from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { createUser, loginAdmin, type TestUser } from "../support/fixtures.ts";

let app: TestApp;
let admin: TestUser;
let user: TestUser;
let db: pg.Client;
let galaxyId: number;

const unique = (p: string) => `${p}-${crypto.randomBytes(4).toString("hex")}`;
const rows = async (table: string) => (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`)).rows[0].n;
type Issue = { loc: (string | number)[]; msg: string };

beforeAll(async () => {
  app = await startTestApp("contracts_intel");
  admin = await loginAdmin(app);
  user = await createUser(app, admin, ["tags:read", "tags:create", "sightings:create", "sightings:read", "hunts:read", "hunts:create", "galaxies:read"]);
  db = new pg.Client({ connectionString: app.databaseUrl });
  await db.connect();
  galaxyId = (await db.query<{ id: number }>("INSERT INTO galaxies (uuid, name, type) VALUES ($1, 'contracts', 'contracts') RETURNING id", [crypto.randomUUID()])).rows[0].id;
});
afterAll(async () => {
  await db?.end();
  await app?.close();
});

async function rest(method: "post" | "patch" | "get", path: string, json?: unknown, token = admin.token): Promise<Issue[]> {
  const res = await app.http[method](path, { token, ...(json === undefined ? {} : { json }) });
  expect(res.status, JSON.stringify(res.body)).toBe(422);
  expect(res.body.code).toBe("validation_error");
  return res.body.detail;
}

async function graphql(query: string, variables: Record<string, unknown> = {}, token = admin.token): Promise<Issue[]> {
  const res = await app.http.graphql(query, variables, token);
  const ext = res.body.errors?.[0]?.extensions as { code: string; status: number; detail: Issue[] } | undefined;
  expect(ext, JSON.stringify(res.body)).toMatchObject({ code: "validation_error", status: 422 });
  return ext!.detail;
}

const locs = (issues: Issue[]) => issues.map((i) => i.loc);

describe("tags", () => {
  it("a bad name, colour or id is refused at its place over REST and GraphQL; nothing is written", async () => {
    const before = await rows("tags");
    expect(locs(await rest("post", "/tags/", { name: "a\u0001b", colour: "red", org_id: 0 }, user.token))).toEqual(
      expect.arrayContaining([["body", "name"], ["body", "colour"], ["body", "org_id"]]),
    );
    expect(locs(await rest("post", "/tags/", { name: "   " }, user.token))).toEqual([["body", "name"]]);
    expect(locs(await rest("post", "/tags/", { name: unique("t"), numerical_value: 2 ** 31 }, user.token))).toEqual([["body", "numerical_value"]]);
    const gql = await graphql(`mutation { createTag(input: {name: "${"x".repeat(256)}", colour: "#12345"}) { id } }`, {}, user.token);
    expect(locs(gql)).toEqual(expect.arrayContaining([["args", "input", "name"], ["args", "input", "colour"]]));
    expect(locs(await graphql(`mutation { createTag(input: {colour: "#123456"}) { id } }`, {}, user.token))).toEqual([["args", "input", "name"]]);
    expect(await rows("tags")).toBe(before);
  });

  it("an update names its bad field over both; the tag stays as it was", async () => {
    const tag = await app.http.post("/tags/", { token: admin.token, json: { name: unique("upd"), colour: "#000000" } });
    expect(tag.status).toBe(201);
    expect(locs(await rest("patch", `/tags/${tag.body.id}`, { colour: "#zzzzzz" }))).toEqual([["body", "colour"]]);
    expect(locs(await graphql(`mutation($id: Int!) { updateTag(id: $id, input: {userId: -1}) { id } }`, { id: tag.body.id }))).toEqual([["args", "input", "userId"]]);
    expect((await app.http.get(`/tags/${tag.body.id}`, { token: admin.token })).body).toMatchObject({ colour: "#000000", user_id: admin.id });
  });

  it("list parameters: page and size bounds, the filter's length", async () => {
    expect(locs(await rest("get", "/tags/?size=1001"))).toEqual([["query", "size"]]);
    expect(locs(await graphql(`{ tags(size: 0) { total } }`))).toEqual([["args", "size"]]);
    expect(locs(await graphql(`{ tags(filter: "${"f".repeat(256)}") { total } }`))).toEqual([["args", "filter"]]);
  });
});

describe("galaxies", () => {
  it("enable flags: a missing or non-boolean flag is refused; the galaxy stays disabled", async () => {
    expect(locs(await rest("patch", `/galaxies/${galaxyId}`, { local_only: true }))).toEqual([["body", "enabled"]]);
    expect(locs(await rest("patch", `/galaxies/${galaxyId}`, { enabled: "yes", default: 1 }))).toEqual(expect.arrayContaining([["body", "enabled"], ["body", "default"]]));
    const gql = await app.http.graphql(`mutation($id: Int!) { setGalaxyEnabled(id: $id, enabled: "yes") { id } }`, { id: galaxyId }, admin.token);
    expect(gql.body.errors).toBeDefined();
    expect((await db.query("SELECT enabled, local_only, \"default\" FROM galaxies WHERE id = $1", [galaxyId])).rows[0]).toEqual({ enabled: false, local_only: false, default: true });
  });

  it("list and cluster parameters over both", async () => {
    expect(locs(await rest("get", "/galaxies/?page=0"))).toEqual([["query", "page"]]);
    expect(locs(await rest("get", `/galaxies/${galaxyId}/clusters?filter=${"f".repeat(256)}`))).toEqual([["query", "filter"]]);
    expect(locs(await graphql(`{ galaxies(size: 1001) { total } }`))).toEqual([["args", "size"]]);
    expect(locs(await graphql(`query($id: Int) { galaxyClusters(galaxyId: $id, page: 0) { total } }`, { id: galaxyId }))).toEqual([["args", "page"]]);
    expect(locs(await graphql(`{ mitreAttackPatterns(filter: "${"f".repeat(256)}") { uuid } }`))).toEqual([["args", "filter"]]);
  });
});

describe("sightings", () => {
  it("one sighting: its fields directly; the array form: each item at its index; nothing is stored", async () => {
    const before = await rows("sightings");
    const single = await rest("post", "/sightings/", { value: "198.51.100.1", type: "maybe", timestamp: -1 }, user.token);
    expect(locs(single)).toEqual(expect.arrayContaining([["body", "type"], ["body", "timestamp"]]));
    expect(locs(await rest("post", "/sightings/", { source: "sensor" }, user.token))).toEqual([["body", "value"]]);
    const array = await rest("post", "/sightings/", [{ value: "198.51.100.1" }, { value: "198.51.100.2", attribute_uuid: "nope" }], user.token);
    expect(locs(array)).toEqual([["body", 1, "attribute_uuid"]]);
    expect(locs(await rest("post", "/sightings/", [{ value: "x", source: "a\u0001b" }], user.token))).toEqual([["body", 0, "source"]]);
    const gql = await graphql(`mutation { createSightings(input: [{value: "198.51.100.1", type: "maybe"}]) { created } }`, {}, user.token);
    expect(locs(gql)).toEqual([["args", "input", "type"]]);
    const many = await graphql(`mutation { createSightings(input: [{value: "a"}, {source: "s"}]) { created } }`, {}, user.token);
    expect(locs(many)).toEqual([["args", "input", 1, "value"]]);
    expect(await rows("sightings")).toBe(before);
  });

  it("list parameters over both", async () => {
    expect(locs(await rest("get", "/sightings/?size=101", undefined, user.token))).toEqual([["query", "size"]]);
    expect(locs(await rest("get", "/sightings/?type=maybe", undefined, user.token))).toEqual([["query", "type"]]);
    expect(locs(await graphql(`{ sightings(type: "maybe") { total } }`, {}, user.token))).toEqual([["args", "type"]]);
    expect(locs(await graphql(`{ sightings(attributeUuid: "nope") { total } }`, {}, user.token))).toEqual([["args", "attributeUuid"]]);
  });
});

describe("correlation exclusions", () => {
  it("an empty value, one of only wildcards or too long, or a comment over its bound is refused over both; nothing is written", async () => {
    const before = await rows("correlation_exclusions");
    expect(locs(await rest("post", "/correlations/exclusions", { value: "%%" }))).toEqual([["body", "value"]]);
    expect(locs(await rest("post", "/correlations/exclusions", { value: "x".repeat(1025), comment: "c".repeat(10_001) }))).toEqual(
      expect.arrayContaining([["body", "value"], ["body", "comment"]]),
    );
    expect(locs(await graphql(`mutation { addCorrelationExclusion(value: "") { id } }`))).toEqual([["args", "value"]]);
    expect(locs(await graphql(`mutation { addCorrelationExclusion(value: "%") { id } }`))).toEqual([["args", "value"]]);
    expect(await rows("correlation_exclusions")).toBe(before);
  });
});

describe("hunt lists", () => {
  it("page, size and filter bounds over both (GraphQL's filter now has REST's bound)", async () => {
    expect(locs(await rest("get", "/hunts/?size=101", undefined, user.token))).toEqual([["query", "size"]]);
    expect(locs(await rest("get", `/hunts/?filter=${"f".repeat(256)}`, undefined, user.token))).toEqual([["query", "filter"]]);
    expect(locs(await graphql(`{ hunts(page: 0) { total } }`, {}, user.token))).toEqual([["args", "page"]]);
    expect(locs(await graphql(`{ hunts(filter: "${"f".repeat(256)}") { total } }`, {}, user.token))).toEqual([["args", "filter"]]);
  });
});
