/**
 * Services name a bad field in their own vocabulary (src/platform/errors.ts, InputError); each
 * adapter says where its caller sent it: REST the body or query string in snake_case, GraphQL the
 * argument path (under `input` for mutations that take one).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { loginAdmin, type TestUser } from "../support/fixtures.ts";

let app: TestApp;
let admin: TestUser;

beforeAll(async () => {
  app = await startTestApp("input_locations");
  admin = await loginAdmin(app);
});
afterAll(() => app?.close());

const PAST = "2001-01-01T00:00:00Z";

describe("where a service's 422 points", () => {
  it("over REST: the body field, in the wire's snake_case", async () => {
    const res = await app.http.post("/api-keys/", { token: admin.token, json: { name: "k", scopes: ["events:read"], expires_at: PAST } });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([expect.objectContaining({ loc: ["body", "expires_at"], msg: "must be in the future" })]);
  });

  it("over REST: the query parameter of a GET", async () => {
    const res = await app.http.get("/attributes/search?query=*&page=200&size=100", { token: admin.token });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(["query", "page"]);
  });

  it("over GraphQL: the argument, under input when the mutation takes one", async () => {
    const created = await app.http.graphql(
      `mutation($input: CreateApiKeyInput!) { createApiKey(input: $input) { token } }`,
      { input: { name: "k", scopes: ["events:read"], expiresAt: PAST } },
      admin.token,
    );
    const refused = created.body.errors?.[0].extensions as { code: string; status: number; detail: { loc: unknown[] }[] };
    expect(refused).toMatchObject({ code: "validation_error", status: 422 });
    expect(refused.detail).toEqual([expect.objectContaining({ loc: ["args", "input", "expiresAt"] })]);

    const searched = await app.http.graphql(`{ searchAttributes(query: "*", page: 200, size: 100) { total } }`, {}, admin.token);
    expect((searched.body.errors?.[0].extensions as { detail: { loc: unknown[] }[] }).detail[0].loc).toEqual(["args", "page"]);
  });

  it("from one contract: an attribute's fields over REST (snake_case body) and GraphQL (under input)", async () => {
    const event = await app.http.post("/events/", { token: admin.token, json: { info: "input locations" } });
    expect(event.status).toBe(201);
    const rest = await app.http.post("/attributes/", { token: admin.token, json: { event_uuid: event.body.uuid, type: "domain", value: "a.example", uuid: "not-a-uuid", first_seen: "soon" } });
    expect(rest.status).toBe(422);
    expect(rest.body.detail.map((d: { loc: unknown[] }) => d.loc)).toEqual(expect.arrayContaining([["body", "uuid"], ["body", "first_seen"]]));

    const gql = await app.http.graphql(
      `mutation($e: String!, $i: AttributeInput!) { createAttribute(eventUuid: $e, input: $i) { uuid } }`,
      { e: event.body.uuid, i: { type: "domain", value: "a.example", uuid: "not-a-uuid" } },
      admin.token,
    );
    const refused = gql.body.errors?.[0].extensions as { code: string; detail: { loc: unknown[] }[] };
    expect(refused.code).toBe("validation_error");
    expect(refused.detail.map((d) => d.loc)).toEqual([["args", "input", "uuid"]]);

    const missing = await app.http.graphql(`mutation($e: String!) { createAttribute(eventUuid: $e, input: { type: "domain" }) { uuid } }`, { e: event.body.uuid }, admin.token);
    expect((missing.body.errors?.[0].extensions as { detail: { loc: unknown[] }[] }).detail.map((d) => d.loc)).toEqual([["args", "input", "value"]]);
  });

  it("from one contract: an object with its references and attributes over REST and GraphQL, nothing written", async () => {
    const event = await app.http.post("/events/", { token: admin.token, json: { info: "object input locations" } });
    const rest = await app.http.post("/objects/", {
      token: admin.token,
      json: {
        event_uuid: event.body.uuid, name: "domain-ip", first_seen: "2020-01-02T00:00:00Z", last_seen: "2020-01-01T00:00:00Z",
        attributes: [{ type: "domain", value: "a.example", object_relation: "domain", to_ids: "yes" }],
        object_references: [{ uuid: "not-a-uuid", referenced_uuid: event.body.uuid, relationship_type: "related-to", referenced_type: 7 }],
      },
    });
    expect(rest.status).toBe(422);
    expect(rest.body.detail.map((d: { loc: unknown[] }) => d.loc)).toEqual(
      expect.arrayContaining([["body", "attributes", 0, "to_ids"], ["body", "object_references", 0, "uuid"]]),
    );
    // Past the wire's shapes, the service's rules name their fields the same way.
    const rules = await app.http.post("/objects/", {
      token: admin.token,
      json: {
        event_uuid: event.body.uuid, name: "domain-ip", first_seen: "2020-01-02T00:00:00Z", last_seen: "2020-01-01T00:00:00Z",
        object_references: [{ referenced_uuid: event.body.uuid, relationship_type: "related-to", referenced_type: 7 }],
      },
    });
    expect(rules.status).toBe(422);
    expect(rules.body.detail.map((d: { loc: unknown[] }) => d.loc)).toEqual(expect.arrayContaining([["body", "last_seen"], ["body", "object_references", 0, "referenced_type"]]));

    const gql = await app.http.graphql(
      `mutation($e: String!, $r: [ObjectReferenceInput!]) { createObject(eventUuid: $e, input: { name: "domain-ip", templateUuid: null }, references: $r) { uuid } }`,
      { e: event.body.uuid, r: [{ uuid: "not-a-uuid", referencedUuid: event.body.uuid, relationshipType: "related-to" }] },
      admin.token,
    );
    const refused = gql.body.errors?.[0].extensions as { code: string; detail: { loc: unknown[] }[] };
    expect(refused.code).toBe("validation_error");
    expect(refused.detail.map((d) => d.loc)).toEqual([["args", "references", 0, "uuid"]]);
    const blank = await app.http.graphql(`mutation($e: String!) { createObject(eventUuid: $e, input: { name: " " }) { uuid } }`, { e: event.body.uuid }, admin.token);
    expect((blank.body.errors?.[0].extensions as { detail: { loc: unknown[] }[] }).detail.map((d) => d.loc)).toEqual([["args", "input", "name"]]);

    const stored = await app.http.get(`/objects/?event_uuid=${event.body.uuid}`, { token: admin.token });
    expect(stored.body.total).toBe(0);
  });
});
