/**
 * Issue 20, finding 7 (GraphQL side): one operation may not hold the search backend for everyone.
 * Depth, aliases, fields and a cost budget in which a search costs far more than a field are
 * checked before anything executes (400 query_too_complex); an Explore-sized request and the
 * GraphiQL introspection query still pass.
 */
import { getIntrospectionQuery } from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { createUser, loginAdmin, type TestUser } from "../support/fixtures.ts";

describe("GraphQL cost limits", () => {
  let app: TestApp;
  let admin: TestUser;
  let analyst: TestUser;

  beforeAll(async () => {
    app = await startTestApp("graphql-cost");
    admin = await loginAdmin(app);
    analyst = await createUser(app, admin, ["events:read", "events:create", "attributes:read", "users:me"]);
  }, 60_000);
  afterAll(async () => {
    await app?.close();
  });

  const expectRefused = (res: { status: number; body: { data?: unknown; errors?: { extensions?: Record<string, unknown> }[] } }) => {
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.data ?? null).toBeNull();
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors![0].extensions).toMatchObject({ code: "query_too_complex", status: 400 });
  };

  it("refuses 12 aliased searchAttributes of 10 KB queries before any of them runs", async () => {
    // Each query is also one the Lucene parser rejects: had a search run, its field would carry invalid_query.
    const query = `value:(${"*ab*c* OR ".repeat(1100)}`;
    const fields = Array.from({ length: 12 }, (_, i) => `s${i}: searchAttributes(query: $q, size: 10) { total hits { id source } }`).join("\n");
    const res = await app.http.graphql(`query($q: String!) { ${fields} }`, { q: query }, analyst.token);
    expectRefused(res);
    expect(res.body.errors![0].message).toMatch(/budget/);
    expect((res.body.errors![0].extensions as { measured: { cost: number } }).measured.cost).toBeGreaterThan(50_000);
  });

  it("counts page sizes given in variables", async () => {
    const q = `query($n: Int) { a: searchAttributes(query: "x", size: $n) { hits { id index score source } } b: searchEvents(query: "x", size: $n) { hits { id index score source } } }`;
    const two = await app.http.graphql(q, { n: 100 }, analyst.token);
    expect(two.status).toBe(200);
    expect(two.body.errors).toBeUndefined();
    // 20 000 per search plus 100 hits of 4 fields each: 40 802; a size far over the page maximum is over the budget.
    expectRefused(await app.http.graphql(q, { n: 9_000 }, analyst.token));
    expectRefused(await app.http.graphql(`${q.slice(0, -1)} c: searchEvents(query: "z", size: $n) { total } }`, { n: 10 }, analyst.token));
  });

  it("refuses an operation over the alias limit before executing any of its mutations", async () => {
    const fields = Array.from({ length: 31 }, (_, i) => `e${i}: createEvent(input: { info: "aliased ${i}" }) { uuid }`).join("\n");
    expectRefused(await app.http.graphql(`mutation { ${fields} }`, {}, analyst.token));
    const listed = await app.http.get("/events/?size=100", { token: analyst.token });
    expect(listed.status).toBe(200);
    expect(listed.body.items.filter((e: { info: string }) => e.info.startsWith("aliased"))).toEqual([]);
  });

  it("refuses a fragment that multiplies fields past the field limit", async () => {
    const spreads = Array.from({ length: 30 }, (_, i) => `m${i}: me { ...F }`).join(" ");
    const fragment = `fragment F on User { ${Array.from({ length: 40 }, () => "id email").join(" ")} }`;
    expectRefused(await app.http.graphql(`{ ${spreads} } ${fragment}`, {}, analyst.token));
  });

  it("refuses an operation nested deeper than the standard introspection query", async () => {
    // graphql-js refuses cycles through fields/interfaces/possibleTypes itself; ofType chains it lets through.
    let nested = "name";
    for (let i = 0; i < 20; i++) nested = `ofType { ${nested} }`;
    const res = await app.http.graphql(`{ __type(name: "Event") { ${nested} } }`, {}, analyst.token);
    expectRefused(res);
    expect((res.body.errors![0].extensions as { detail: string }).detail).toMatch(/deep/);
  });

  it("still answers an Explore-sized request and GraphiQL's introspection query", async () => {
    const explore = await app.http.graphql(
      `{ attributes: searchAttributes(query: "type:domain", size: 100) { total totalRelation took hits { id index score source } }
         events: searchEvents(query: "", size: 20) { total hits { id source } }
         list: events(size: 50) { total items { uuid info tags { name } } }
         me { id email } }`,
      {},
      analyst.token,
    );
    expect(explore.status, JSON.stringify(explore.body)).toBe(200);
    expect(explore.body.errors).toBeUndefined();
    const introspection = await app.http.graphql(getIntrospectionQuery({ descriptions: true, inputValueDeprecation: true }), {}, analyst.token);
    expect(introspection.status).toBe(200);
    expect(introspection.body.errors).toBeUndefined();
    expect((introspection.body.data as { __schema: { types: unknown[] } }).__schema.types.length).toBeGreaterThan(50);
  });
});
