/**
 * The events list's tag and organisation filters (GraphQL events and REST GET /events/, which the
 * web UI's list uses) and the attributes list's category and value filters on real MISP events,
 * their hostile values, and the attribute type/category catalogue GraphQL gives the UI's forms,
 * checked against MISP's describeTypes.json.
 */
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { createOrganisation, createUser, loginAdmin, type TestUser } from "../support/fixtures.ts";
import { sharedPath } from "../support/shared-data.ts";

const FILES = ["57c4445b-c548-4654-af0b-4be3950d210f.json", "pymisp-reportlab-HTML_event.json", "pymisp-reportlab-sighting_1.json"];

let app: TestApp;
let admin: TestUser;
let other: TestUser;
const docs: { uuid: string; tags: string[] }[] = [];
let otherEvent: string;

const gql = async (user: TestUser, query: string, variables: Record<string, unknown> = {}): Promise<any> => (await app.http.graphql(query, variables, user.token)).body;
interface ApiError {
  extensions: { status: number; detail: { loc: unknown[]; msg: string }[] };
}
/** The first GraphQL error of an answer (the test fails if there is none). */
const firstError = (res: { body: { errors?: unknown[] } }): ApiError => {
  expect(res.body.errors?.length).toBeGreaterThan(0);
  return res.body.errors![0] as ApiError;
};
const LIST = "query($tags: [String!], $org: Int) { events(tags: $tags, orgId: $org, size: 100) { total items { uuid orgId } } }";

beforeAll(async () => {
  app = await startTestApp("events-list-filters");
  admin = await loginAdmin(app);
  for (const f of FILES) {
    const doc = JSON.parse(fs.readFileSync(sharedPath("misp-events", f), "utf8"));
    const res = await app.http.post("/events/import", { token: admin.token, json: doc });
    expect(res.status, res.text).toBe(201);
    docs.push({ uuid: doc.Event.uuid, tags: (doc.Event.Tag ?? []).map((t: { name: string }) => t.name) });
  }
  other = await createUser(app, admin, ["events:read", "events:create"], await createOrganisation(app, admin));
  const created = await app.http.post("/events/", { token: other.token, json: { info: "another organisation's event", distribution: 3 } });
  expect(created.status, created.text).toBe(201);
  otherEvent = created.body.uuid;
});
afterAll(async () => {
  await app?.close();
});

/** The imported events carrying every tag, computed from the JSON files. */
const carrying = (tags: string[]) => docs.filter((d) => tags.every((t) => d.tags.includes(t))).map((d) => d.uuid).sort();

describe("the events list's tag and organisation filters", () => {
  it("keeps the events carrying every tag given, on GraphQL and REST alike", async () => {
    for (const tags of [["tlp:white"], ["tlp:white", 'circl:incident-classification="malware"'], ['misp-galaxy:banker="Gozi"'], ["no-such-tag"]]) {
      const expected = carrying(tags);
      if (tags[0] !== "no-such-tag") expect(expected.length).toBeGreaterThan(0);
      const g = await gql(admin, LIST, { tags });
      expect(g.errors).toBeUndefined();
      expect(g.data.events.items.map((e: { uuid: string }) => e.uuid).sort()).toEqual(expected);
      expect(g.data.events.total).toBe(expected.length);
      const query = tags.map((t) => `tag=${encodeURIComponent(t)}`).join("&");
      const r = await app.http.get(`/events/?${query}&size=100`, { token: admin.token });
      expect(r.status, r.text).toBe(200);
      expect(r.body.items.map((e: { uuid: string }) => e.uuid).sort()).toEqual(expected);
    }
  });

  it("keeps the events of the organisation given, only those the caller may read", async () => {
    const mine = await gql(admin, LIST, { org: admin.orgId });
    expect(mine.data.events.items.map((e: { uuid: string }) => e.uuid).sort()).toEqual(docs.map((d) => d.uuid).sort());
    const theirs = await gql(admin, LIST, { org: other.orgId });
    expect(theirs.data.events.items.map((e: { uuid: string }) => e.uuid)).toEqual([otherEvent]);
    const rest = await app.http.get(`/events/?org_id=${other.orgId}`, { token: admin.token });
    expect(rest.body.items.map((e: { uuid: string }) => e.uuid)).toEqual([otherEvent]);
    // Tags and organisation together: the other organisation's event carries none of the tags.
    expect((await gql(admin, LIST, { org: other.orgId, tags: ["tlp:white"] })).data.events.total).toBe(0);
    // The imported events are the admin organisation's, distribution 3 of the peer's files: readable by the other one too.
    const seen = await gql(other, LIST, { org: admin.orgId, tags: ['misp-galaxy:banker="Gozi"'] });
    expect(seen.data.events.items.map((e: { uuid: string }) => e.uuid)).toEqual(carrying(['misp-galaxy:banker="Gozi"']));
  });

  it("refuses hostile filters with a clear 4xx naming the argument", async () => {
    const tooMany = await app.http.graphql(LIST, { tags: Array.from({ length: 11 }, (_, i) => `t${i}`) }, admin.token);
    expect(firstError(tooMany).extensions.status).toBe(422);
    expect(firstError(tooMany).extensions.detail[0].loc).toEqual(["args", "tags"]);
    const nul = await app.http.graphql(LIST, { tags: ["a\u0000b"] }, admin.token);
    expect(firstError(nul).extensions.status).toBe(422);
    expect(firstError(nul).extensions.detail[0].loc).toEqual(["variables", "tags", 0]);
    const long = await app.http.graphql(LIST, { tags: ["tlp:white", "x".repeat(300)] }, admin.token);
    expect(firstError(long).extensions.status).toBe(422);
    expect(firstError(long).extensions.detail[0].loc).toEqual(["args", "tags", "1"]);
    expect((await app.http.get(`/events/?tag=${"x".repeat(300)}`, { token: admin.token })).status).toBe(422);
    const eleven = await app.http.get(`/events/?${Array.from({ length: 11 }, (_, i) => `tag=t${i}`).join("&")}`, { token: admin.token });
    expect(eleven.status).toBe(422);
    for (const org of ["0", "-1", "abc", "99999999999"]) expect((await app.http.get(`/events/?org_id=${org}`, { token: admin.token })).status, org).toBe(422);
    const badOrg = await app.http.graphql(LIST, { org: 2 ** 40 }, admin.token);
    expect(badOrg.body.errors).toBeDefined();
  });
});

describe("the attributes list's category and value filters", () => {
  const ATTRIBUTES = "query($e: String, $c: String, $v: String) { attributes(eventUuid: $e, category: $c, value: $v, size: 100) { total items { uuid } } }";
  const file = () => JSON.parse(fs.readFileSync(sharedPath("misp-events", FILES[1]), "utf8")).Event as { uuid: string; Attribute: { uuid: string; category: string; value: string }[] };

  it("keeps the attributes of the category and those whose value contains the text, case-insensitively", async () => {
    const e = file();
    const cases: [string | undefined, string | undefined][] = [["Network activity", undefined], [undefined, "HTTP"], ["Payload delivery", "A5FF"], [undefined, "no such value here"]];
    for (const [category, value] of cases) {
      const expected = e.Attribute.filter((a) => (!category || a.category === category) && (!value || a.value.toLowerCase().includes(value.toLowerCase()))).map((a) => a.uuid).sort();
      if (value !== "no such value here") expect(expected.length, `${category} ${value}`).toBeGreaterThan(0);
      const g = await gql(admin, ATTRIBUTES, { e: e.uuid, c: category, v: value });
      expect(g.errors).toBeUndefined();
      expect(g.data.attributes.items.map((a: { uuid: string }) => a.uuid).sort(), `${category} ${value}`).toEqual(expected);
      const q = new URLSearchParams({ event_uuid: e.uuid, size: "100", ...(category ? { category } : {}), ...(value ? { value } : {}) });
      const r = await app.http.get(`/attributes/?${q}`, { token: admin.token });
      expect(r.status, r.text).toBe(200);
      expect(r.body.items.map((a: { uuid: string }) => a.uuid).sort()).toEqual(expected);
    }
    // LIKE's wildcards are literal text.
    expect((await gql(admin, ATTRIBUTES, { e: e.uuid, v: "%" })).data.attributes.total).toBe(e.Attribute.filter((a) => a.value.includes("%")).length);
  });

  it("refuses hostile filters with a 422 naming the argument", async () => {
    const long = await app.http.graphql(ATTRIBUTES, { v: "x".repeat(256) }, admin.token);
    expect(firstError(long).extensions.status).toBe(422);
    expect(firstError(long).extensions.detail[0].loc).toEqual(["args", "value"]);
    const cat = await app.http.graphql(ATTRIBUTES, { c: "y".repeat(256) }, admin.token);
    expect(firstError(cat).extensions.detail[0].loc).toEqual(["args", "category"]);
    expect((await app.http.get(`/attributes/?value=${"x".repeat(256)}`, { token: admin.token })).status).toBe(422);
    expect((await app.http.get("/attributes/?value=a%00b", { token: admin.token })).status).toBe(422);
  });
});

describe("the attribute catalogue for forms", () => {
  it("gives MISP's describeTypes: every type with its default category and categories, every category with its types", async () => {
    const misp = JSON.parse(fs.readFileSync(sharedPath("misp", "describeTypes.json"), "utf8"));
    const d = misp.result ?? misp;
    const g = await gql(admin, "{ attributeTypes { name defaultCategory toIds categories composite } attributeCategories { name types } }");
    expect(g.errors).toBeUndefined();
    expect(g.data.attributeTypes.map((t: { name: string }) => t.name)).toEqual(d.types);
    expect(g.data.attributeCategories.map((c: { name: string }) => c.name)).toEqual(d.categories);
    for (const c of g.data.attributeCategories) expect(c.types, c.name).toEqual(d.category_type_mappings[c.name]);
    const ipDst = g.data.attributeTypes.find((t: { name: string }) => t.name === "ip-dst");
    expect(ipDst).toMatchObject({ defaultCategory: d.sane_defaults["ip-dst"].default_category, toIds: Boolean(d.sane_defaults["ip-dst"].to_ids), composite: false });
    expect(ipDst.categories).toContain("Network activity");
    expect(g.data.attributeTypes.find((t: { name: string }) => t.name === "domain|ip").composite).toBe(true);
  });

  it("is refused without attributes:read", async () => {
    const noScope = await createUser(app, admin, ["events:read"]);
    const g = await gql(noScope, "{ attributeCategories { name } }");
    expect(g.errors[0].extensions.status).toBe(403);
  });
});
