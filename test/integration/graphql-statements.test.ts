/**
 * A page of events with their tags, attributes and the attributes' tags is a bounded number of SQL
 * statements, whatever the page size (no N+1): Event.attributes joins one batch per request.
 */
import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { loginAdmin, type TestUser } from "../support/fixtures.ts";
import { countStatements } from "../support/statement-counter.ts";

const EVENTS = 20;
const ATTRIBUTES = 5;
let app: TestApp;
let admin: TestUser;
const tag = crypto.randomBytes(3).toString("hex");

beforeAll(async () => {
  app = await startTestApp("graphql_statements");
  admin = await loginAdmin(app);
  for (let i = 0; i < EVENTS; i++) {
    const res = await app.http.post("/events/import", {
      token: admin.token,
      json: {
        Event: {
          uuid: crypto.randomUUID(), info: `statements ${tag} ${i}`, date: "2026-01-01", distribution: "1", Tag: [{ name: `statements:${i % 3}` }],
          Attribute: Array.from({ length: ATTRIBUTES }, (_, j) => ({ uuid: crypto.randomUUID(), type: "domain", value: `s${i}-${j}-${tag}.example`, Tag: [{ name: `statements:a${j % 2}` }] })),
        },
      },
    });
    expect(res.status).toBe(201);
  }
});
afterAll(() => app?.close());

const PAGE = `query($size: Int!) { events(page: 1, size: $size) { items { uuid info tags { name } attributes { uuid value tags { name } } } } }`;

async function statementsFor(size: number): Promise<{ statements: number; events: { uuid: string; attributes: { uuid: string; value: string; tags: { name: string }[] }[] }[] }> {
  const counter = countStatements();
  try {
    const res = await app.http.graphql(PAGE, { size }, admin.token);
    expect(res.body.errors).toBeUndefined();
    return { statements: counter.count, events: res.body.data.events.items };
  } finally {
    counter.stop();
  }
}

describe("a GraphQL page of events with their attributes and tags", () => {
  it("takes at most 6 statements, the same for 2 events as for 20", async () => {
    const small = await statementsFor(2);
    const large = await statementsFor(EVENTS);
    expect(large.events).toHaveLength(EVENTS);
    expect(large.statements).toBeLessThanOrEqual(6);
    expect(large.statements).toBe(small.statements);
  });

  it("lists each event's attributes with their tags, as REST does", async () => {
    const { events } = await statementsFor(EVENTS);
    for (const e of events.slice(0, 3)) {
      const rest = await app.http.get(`/attributes/?event_uuid=${e.uuid}&size=100`, { token: admin.token });
      expect(e.attributes.map((a) => a.uuid).sort()).toEqual(rest.body.items.map((a: { uuid: string }) => a.uuid).sort());
      for (const a of e.attributes) expect(a.tags.map((t) => t.name)).toHaveLength(1);
    }
    expect(events.flatMap((e) => e.attributes)).toHaveLength(EVENTS * ATTRIBUTES);
  });

  it("refuses a limit outside 1 to 1000 with the argument's path", async () => {
    const res = await app.http.graphql(`{ events(size: 1) { items { attributes(limit: 0) { uuid } } } }`, {}, admin.token);
    expect(res.body.errors?.[0].extensions).toMatchObject({ code: "validation_error", status: 422 });
  });
});
