/**
 * A page of events with their tags, attributes and the attributes' tags is a bounded number of SQL
 * statements, whatever the page size (no N+1): @pothos/plugin-prisma loads the selection's relations
 * with the page, under the distribution rule (its Prisma rendering) for readers of other organisations.
 */
import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { createOrganisation, createUser, loginAdmin, type TestUser } from "../support/fixtures.ts";
import { countStatements } from "../support/statement-counter.ts";

const EVENTS = 20;
const ATTRIBUTES = 5;
let app: TestApp;
let admin: TestUser;
let outsider: TestUser;
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
          // The last attribute is for the owner's organisation only (distribution 0).
          Attribute: Array.from({ length: ATTRIBUTES }, (_, j) => ({
            uuid: crypto.randomUUID(), type: "domain", value: `s${i}-${j}-${tag}.example`, distribution: j === ATTRIBUTES - 1 ? "0" : "5", Tag: [{ name: `statements:a${j % 2}` }],
          })),
          Object: [
            {
              uuid: crypto.randomUUID(), name: "domain-ip", distribution: "5",
              Attribute: [{ uuid: crypto.randomUUID(), type: "domain", object_relation: "domain", value: `o${i}-${tag}.example` }],
              ObjectReference: [{ uuid: crypto.randomUUID(), referenced_uuid: crypto.randomUUID(), referenced_type: 0, relationship_type: "related-to" }],
            },
          ],
        },
      },
    });
    expect(res.status).toBe(201);
  }
  outsider = await createUser(app, admin, 3, await createOrganisation(app, admin));
});
afterAll(() => app?.close());

const PAGE = `query($size: Int!) { events(page: 1, size: $size, info: "${tag}") { items {
  uuid info date timestamp attributeCount objectCount org { name } orgc { uuid } tags { name local } retention { status }
  attributes { uuid eventUuid objectUuid value timestamp tags { name } }
} } }`;

async function statementsFor(size: number, as = admin): Promise<{ statements: number; events: { uuid: string; attributeCount: number; attributes: { uuid: string; value: string; tags: { name: string }[] }[] }[] }> {
  const counter = countStatements();
  try {
    const res = await app.http.graphql(PAGE, { size }, as.token);
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

  it("takes the same statements for a reader of another organisation, who sees only what is shared", async () => {
    await statementsFor(1, outsider); // the first request of a user loads them into the authentication cache
    const small = await statementsFor(2, outsider);
    const large = await statementsFor(EVENTS, outsider);
    expect(large.events).toHaveLength(EVENTS);
    expect(large.statements).toBeLessThanOrEqual(6);
    expect(large.statements).toBe(small.statements);
    for (const e of large.events) {
      expect(e.attributes).toHaveLength(ATTRIBUTES - 1);
      expect(e.attributeCount).toBe(ATTRIBUTES - 1);
    }
  });

  it("a page of objects with their attributes and references is as bounded", async () => {
    const OBJECTS = `query($size: Int!) { objects(page: 1, size: $size) { total items { uuid eventUuid attributes { uuid objectUuid value tags { name } } references { uuid objectUuid eventUuid } } } }`;
    const counts: number[] = [];
    for (const size of [2, EVENTS]) {
      const counter = countStatements();
      const res = await app.http.graphql(OBJECTS, { size }, outsider.token);
      counter.stop();
      expect(res.body.errors).toBeUndefined();
      expect(res.body.data.objects.items).toHaveLength(size);
      for (const o of res.body.data.objects.items) {
        expect(o.attributes).toHaveLength(1);
        expect(o.attributes[0].objectUuid).toBe(o.uuid);
        expect(o.references).toEqual([expect.objectContaining({ objectUuid: o.uuid, eventUuid: o.eventUuid })]);
      }
      counts.push(counter.count);
    }
    expect(counts[1]).toBeLessThanOrEqual(6);
    expect(counts[1]).toBe(counts[0]);
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
