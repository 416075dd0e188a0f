import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { loginAdmin, type TestUser } from "../support/fixtures.ts";

let app: TestApp;
let admin: TestUser;

beforeAll(async () => {
  app = await startTestApp("graphql-anon");
  admin = await loginAdmin(app);
});
afterAll(() => app?.close());

const INTROSPECTION = "{ __schema { queryType { name } types { name fields { name } } } }";

/** Names of the schema that must never reach an anonymous caller. */
const SCHEMA_WORDS = ["Event", "Attribute", "searchAttributes", "runtimeSettings", "Did you mean"];

function expectRefused(res: { status: number; text: string; body: any; headers: Headers }) {
  expect(res.status).toBe(401);
  expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
  expect(res.body).toMatchObject({ code: "unauthenticated", detail: expect.any(String) });
  expect(res.body.errors[0].extensions).toMatchObject({ code: "unauthenticated", status: 401 });
  expect(res.body.data).toBeUndefined();
  for (const word of SCHEMA_WORDS) expect(res.text).not.toContain(word);
}

describe("anonymous GraphQL over HTTP", () => {
  it.each([
    ["a query", "{ me { id } }"],
    ["introspection (__schema)", INTROSPECTION],
    ["introspection (__type)", '{ __type(name: "Event") { name fields { name } } }'],
    ["__typename alone", "{ __typename }"],
    ["a mutation", 'mutation { deleteUser(id: 1) }'],
    ["a misspelt field (no validation, no suggestion)", "{ evnts { id } }"],
    ["a document that does not parse", "{ me { "],
  ])("answers %s with 401 before validation", async (_label, query) => {
    expectRefused(await app.http.post("/graphql", { json: { query } }));
  });

  it("answers GET /graphql?query= with 401 too", async () => {
    const res = await app.http.get(`/graphql?query=${encodeURIComponent(INTROSPECTION)}`, { headers: { accept: "application/json" } });
    expectRefused(res);
  });

  it("answers a rejected credential the same way (it is not a way around the guard)", async () => {
    expectRefused(await app.http.post("/graphql", { json: { query: "{ evnts { id } }" }, authorization: "Bearer not.a.jwt" }));
    expectRefused(await app.http.post("/graphql", { json: { query: INTROSPECTION }, authorization: "a".repeat(40) }));
  });

  it("answers a batch with 401", async () => {
    expectRefused(await app.http.post("/graphql", { json: [{ query: INTROSPECTION }, { query: "{ me { id } }" }] }));
  });

  it("answers an anonymous multipart upload with 401 without reading it", async () => {
    const form = new FormData();
    form.append("operations", JSON.stringify({ query: "mutation ($f: Upload!) { uploadFeedFil(file: $f) }", variables: { f: null } }));
    form.append("map", JSON.stringify({ 0: ["variables.f"] }));
    form.append("0", new Blob(["a,b\n"]), "x.csv");
    const res = await fetch(`${app.url}/graphql`, { method: "POST", body: form });
    const text = await res.text();
    expect(res.status).toBe(401);
    expect(JSON.parse(text)).toMatchObject({ code: "unauthenticated" });
    for (const word of SCHEMA_WORDS) expect(text).not.toContain(word);
  });

  it("still serves GraphiQL's page to a browser", async () => {
    const res = await fetch(`${app.url}/graphql`, { headers: { accept: "text/html" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/text\/html/);
    expect(await res.text()).toContain("Threat-Intelligence Workbench");
  });
});

describe("authenticated GraphQL", () => {
  it("keeps introspection for GraphiQL and code generators", async () => {
    const res = await app.http.graphql(INTROSPECTION, {}, admin.token);
    expect(res.status).toBe(200);
    const names = (res.body.data as { __schema: { types: { name: string }[] } }).__schema.types.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(["Event", "Attribute", "Query", "Mutation"]));
  });

  it("gets validation errors without 'Did you mean' suggestions, every time (validation cache included)", async () => {
    for (let i = 0; i < 2; i++) {
      const res = await app.http.graphql("{ evnts { id } }", {}, admin.token);
      expect(res.body.errors![0].message).toBe('Cannot query field "evnts" on type "Query".');
      expect(res.text).not.toContain("Did you mean");
    }
  });

  it("gets variable errors without suggestions", async () => {
    // graphql-js would answer 'Did you mean the enum value "DESC"?' here.
    const res = await app.http.graphql("query ($o: SearchSortOrder!) { searchEvents(query: \"*\", sortOrder: $o) { total } }", { o: "DESCC" }, admin.token);
    expect(res.body.errors![0].message).toBe('Variable "$o" got invalid value "DESCC"; Value "DESCC" does not exist in "SearchSortOrder" enum.');
    expect(res.text).not.toContain("Did you mean");
  });
});
