/**
 * Sharing groups (MISP distribution 4) with three organisations: A owns a group B belongs to, C is
 * outside. The group's management (who sees it, who changes it, extend) and what its data is to
 * each organisation through the direct read paths (REST, GraphQL, the Prisma relations), both
 * search backends, and on each backend hunts, exports and MCP.
 */
import crypto from "node:crypto";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nextAuthInvalidation, startTestApp, type TestApp } from "../support/app.ts";
import { createOrganisation, createUser, loginAdmin, type TestUser } from "../support/fixtures.ts";
import { SEARCH_BACKENDS } from "../support/search-backends.ts";
import { connectMcp, toolOk } from "../support/mcp-client.ts";
import { eventually } from "../support/process.ts";
import { settled } from "../support/settled.ts";

let app: TestApp;
let admin: TestUser;
const orgs = { a: 0, b: 0, c: 0 };
const users = {} as Record<"aAdmin" | "aUser" | "bAdmin" | "bUser" | "cAdmin" | "cUser", TestUser>;

beforeAll(async () => {
  app = await startTestApp("sharing_groups");
  admin = await loginAdmin(app);
  for (const k of ["a", "b", "c"] as const) orgs[k] = await createOrganisation(app, admin, `sg-${k}-${crypto.randomBytes(3).toString("hex")}`);
  users.aAdmin = await createUser(app, admin, 2, orgs.a);
  users.aUser = await createUser(app, admin, 3, orgs.a);
  users.bAdmin = await createUser(app, admin, 2, orgs.b);
  users.bUser = await createUser(app, admin, 3, orgs.b);
  users.cAdmin = await createUser(app, admin, 2, orgs.c);
  users.cUser = await createUser(app, admin, 3, orgs.c);
});
afterAll(() => app?.close());

const unique = (prefix: string) => `${prefix} ${crypto.randomBytes(4).toString("hex")}`;

async function groupOfAWithB(extend = false): Promise<number> {
  const res = await app.http.post("/sharing_groups/", { token: users.aAdmin.token, json: { name: unique("A and B"), releasability: "A and B only", sharing_group_orgs: [{ org_id: orgs.b, extend }] } });
  expect(res.status).toBe(201);
  return res.body.id;
}

describe("managing sharing groups", () => {
  it("the owner creates one with members; members see it, outsiders do not, only the owner changes it", async () => {
    const id = await groupOfAWithB();
    const created = await app.http.get(`/sharing_groups/${id}`, { token: users.aUser.token });
    expect(created.body).toMatchObject({ org_id: orgs.a, releasability: "A and B only", active: true });
    expect(created.body.sharing_group_orgs.map((m: { org_id: number; extend: boolean }) => [m.org_id, m.extend]).sort()).toEqual([[orgs.a, true], [orgs.b, false]].sort());

    expect((await app.http.get(`/sharing_groups/${id}`, { token: users.bUser.token })).status).toBe(200);
    expect((await app.http.get("/sharing_groups/", { token: users.bUser.token })).body.map((g: { id: number }) => g.id)).toContain(id);
    expect((await app.http.get(`/sharing_groups/${id}`, { token: users.cUser.token })).status).toBe(404);
    expect((await app.http.get("/sharing_groups/", { token: users.cAdmin.token })).body.map((g: { id: number }) => g.id)).not.toContain(id);

    expect((await app.http.patch(`/sharing_groups/${id}`, { token: users.bAdmin.token, json: { description: "B's now" } })).status).toBe(403);
    expect((await app.http.patch(`/sharing_groups/${id}`, { token: users.cAdmin.token, json: { description: "C's now" } })).status).toBe(404);
    expect((await app.http.patch(`/sharing_groups/${id}`, { token: users.aAdmin.token, json: { description: "still A's" } })).body.description).toBe("still A's");
    // A plain user holds sharing_groups:read only.
    expect((await app.http.post("/sharing_groups/", { token: users.aUser.token, json: { name: unique("user's") } })).status).toBe(403);
  });

  it("a member may add organisations only when allowed to extend; the owner cannot be removed", async () => {
    const closed = await groupOfAWithB(false);
    expect((await app.http.post(`/sharing_groups/${closed}/organisations`, { token: users.bAdmin.token, json: { org_id: orgs.c } })).status).toBe(403);
    const open = await groupOfAWithB(true);
    const added = await app.http.post(`/sharing_groups/${open}/organisations`, { token: users.bAdmin.token, json: { org_id: orgs.c } });
    expect(added.status).toBe(201);
    expect((await app.http.get(`/sharing_groups/${open}`, { token: users.cUser.token })).status).toBe(200);
    expect((await app.http.delete(`/sharing_groups/${open}/organisations/${orgs.a}`, { token: users.aAdmin.token })).status).toBe(409);
    expect((await app.http.delete(`/sharing_groups/${open}/organisations/${orgs.c}`, { token: users.bAdmin.token })).status).toBe(403);
    expect((await app.http.delete(`/sharing_groups/${open}/organisations/${orgs.c}`, { token: users.aAdmin.token })).status).toBe(204);
  });

  it("refuses bad input with the field's location, and a duplicate name with 409", async () => {
    const name = unique("dup");
    expect((await app.http.post("/sharing_groups/", { token: users.aAdmin.token, json: { name } })).status).toBe(201);
    expect((await app.http.post("/sharing_groups/", { token: users.aAdmin.token, json: { name } })).status).toBe(409);
    const bad = await app.http.post("/sharing_groups/", { token: users.aAdmin.token, json: { name: "x\0y", sharing_group_orgs: [{ org_id: 2_147_483_647 }] } });
    expect(bad.status).toBe(422);
    expect(bad.body.detail.map((d: { loc: unknown[] }) => d.loc)).toEqual([["body", "name"]]);
    const unknownOrg = await app.http.post("/sharing_groups/", { token: users.aAdmin.token, json: { name: unique("ghost"), sharing_group_orgs: [{ org_id: 2_147_483_647 }] } });
    expect(unknownOrg.status).toBe(422);
    expect(unknownOrg.body.detail[0].loc).toEqual(["body", "sharing_group_orgs", 0, "org_id"]);
    // Another organisation as owner: the site administrator's decision only.
    expect((await app.http.post("/sharing_groups/", { token: users.aAdmin.token, json: { name: unique("for B"), org_id: orgs.b } })).status).toBe(403);
    const gql = await app.http.graphql(`mutation { createSharingGroup(input: { name: "", members: [{ orgId: 0 }] }) { id } }`, {}, users.aAdmin.token);
    expect((gql.body.errors?.[0].extensions as { detail: { loc: unknown[] }[] }).detail.map((d) => d.loc)).toEqual(expect.arrayContaining([["args", "input", "members", 0, "orgId"]]));
  });
});

describe("data of distribution 4", () => {
  it("reads for the group's organisations and no one else, on REST and GraphQL; leaving the group ends it at once", async () => {
    const group = await groupOfAWithB();
    const event = await app.http.post("/events/", { token: users.aUser.token, json: { info: unique("A and B's event"), distribution: 4, sharing_group_id: group } });
    expect(event.status).toBe(201);
    expect(event.body.sharing_group_id).toBe(group);
    const attribute = await app.http.post("/attributes/", { token: users.aUser.token, json: { event_uuid: event.body.uuid, type: "domain", value: `${crypto.randomUUID()}.example` } });
    expect(attribute.status).toBe(201);

    expect((await app.http.get(`/events/${event.body.uuid}`, { token: users.bUser.token })).status).toBe(200);
    expect((await app.http.get(`/attributes/${attribute.body.uuid}`, { token: users.bUser.token })).status).toBe(200);
    expect((await app.http.get(`/events/${event.body.uuid}`, { token: users.cUser.token })).status).toBe(404);
    expect((await app.http.get(`/attributes/${attribute.body.uuid}`, { token: users.cUser.token })).status).toBe(404);

    const query = `query($u: String!) { events(uuid: $u) { total items { uuid attributeCount attributes { uuid } } } }`;
    const asB = await app.http.graphql(query, { u: event.body.uuid }, users.bUser.token);
    expect(asB.body.data.events.items).toEqual([{ uuid: event.body.uuid, attributeCount: 1, attributes: [{ uuid: attribute.body.uuid }] }]);
    const asC = await app.http.graphql(query, { u: event.body.uuid }, users.cUser.token);
    expect(asC.body.data.events).toMatchObject({ total: 0, items: [] });

    const invalidated = nextAuthInvalidation(app);
    expect((await app.http.delete(`/sharing_groups/${group}/organisations/${orgs.b}`, { token: users.aAdmin.token })).status).toBe(204);
    await invalidated;
    expect((await app.http.get(`/events/${event.body.uuid}`, { token: users.bUser.token })).status).toBe(404);
    // Still in use: the group cannot go.
    expect((await app.http.delete(`/sharing_groups/${group}`, { token: users.aAdmin.token })).status).toBe(409);
  });

  it("an attribute shared with a group inside a community event reads for the group only", async () => {
    const group = await groupOfAWithB();
    const event = await app.http.post("/events/", { token: users.aUser.token, json: { info: unique("community event"), distribution: 1 } });
    const inGroup = await app.http.post("/attributes/", {
      token: users.aUser.token,
      json: { event_uuid: event.body.uuid, type: "domain", value: `${crypto.randomUUID()}.example`, distribution: 4, sharing_group_id: group },
    });
    expect(inGroup.status).toBe(201);
    const list = (token: string) => app.http.get(`/attributes/?event_uuid=${event.body.uuid}`, { token });
    expect((await list(users.bUser.token)).body.items.map((a: { uuid: string }) => a.uuid)).toEqual([inGroup.body.uuid]);
    expect((await list(users.cUser.token)).body.items).toEqual([]);
    expect((await app.http.get(`/events/${event.body.uuid}`, { token: users.cUser.token })).body.attribute_count).toBe(0);
    expect((await app.http.get(`/events/${event.body.uuid}`, { token: users.bUser.token })).body.attribute_count).toBe(1);
  });

  it("event reports and sightings follow the group too", async () => {
    const group = await groupOfAWithB();
    const event = await app.http.post("/events/", { token: users.aUser.token, json: { info: unique("community with a group report"), distribution: 1 } });
    const report = await app.http.post(`/reports/${event.body.uuid}`, { token: users.aUser.token, json: { name: "for the group", content: "group notes", distribution: 4, sharing_group_id: group } });
    expect(report.status).toBe(200);
    const names = async (token: string) => (await app.http.get(`/reports/${event.body.uuid}`, { token })).body.map((h: { _source: { name: string } }) => h._source.name);
    expect(await names(users.bUser.token)).toEqual(["for the group"]);
    expect(await names(users.cUser.token)).toEqual([]);
    expect((await app.http.post(`/reports/${event.body.uuid}`, { token: users.cUser.token, json: { name: "C's", distribution: 4, sharing_group_id: group } })).status).toBe(403);

    const attribute = await app.http.post("/attributes/", {
      token: users.aUser.token,
      json: { event_uuid: event.body.uuid, type: "domain", value: `${crypto.randomUUID()}.example`, distribution: 4, sharing_group_id: group },
    });
    expect((await app.http.post("/sightings/", { token: users.bUser.token, json: { attribute_uuid: attribute.body.uuid, value: attribute.body.value } })).status).toBe(201);
    expect((await app.http.post("/sightings/", { token: users.cUser.token, json: { attribute_uuid: attribute.body.uuid, value: attribute.body.value } })).status).toBe(404);
  });

  it("data is assigned only to groups the writer's organisation belongs to", async () => {
    const group = await groupOfAWithB();
    const refused = await app.http.post("/events/", { token: users.cUser.token, json: { info: unique("C tries"), distribution: 4, sharing_group_id: group } });
    expect(refused.status).toBe(422);
    expect(refused.body.detail[0]).toMatchObject({ loc: ["body", "sharing_group_id"], msg: "names no sharing group your organisation belongs to" });
    const cEvent = await app.http.post("/events/", { token: users.cUser.token, json: { info: unique("C's event") } });
    const attr = await app.http.post("/attributes/", { token: users.cUser.token, json: { event_uuid: cEvent.body.uuid, type: "domain", value: "c.example", distribution: 4, sharing_group_id: group } });
    expect(attr.status).toBe(422);
    expect(attr.body.detail[0].loc).toEqual(["body", "sharing_group_id"]);
    const object = await app.http.post("/objects/", {
      token: users.cUser.token,
      json: { event_uuid: cEvent.body.uuid, name: "domain-ip", attributes: [{ type: "domain", value: "c.example", distribution: 4, sharing_group_id: group }] },
    });
    expect(object.status).toBe(422);
    expect(object.body.detail[0].loc).toEqual(["body", "attributes", 0, "sharing_group_id"]);
    // B belongs to it: B may share its own data with it.
    const bEvent = await app.http.post("/events/", { token: users.bUser.token, json: { info: unique("B shares"), distribution: 4, sharing_group_id: group } });
    expect(bEvent.status).toBe(201);
    expect((await app.http.get(`/events/${bEvent.body.uuid}`, { token: users.aUser.token })).status).toBe(200);
    expect((await app.http.get(`/events/${bEvent.body.uuid}`, { token: users.cUser.token })).status).toBe(404);
  });

  it("an imported event keeps no sending instance's group number: it reads as its owners' only", async () => {
    const uuid = crypto.randomUUID();
    const res = await app.http.post("/events/import", {
      token: users.aUser.token,
      json: { Event: { uuid, info: unique("from another MISP"), distribution: "4", sharing_group_id: "1", Attribute: [{ uuid: crypto.randomUUID(), type: "domain", value: "imported.example", distribution: "4", sharing_group_id: "1" }] } },
    });
    expect(res.status).toBe(201);
    const stored = await app.http.get(`/events/${uuid}`, { token: users.aUser.token });
    expect(stored.body).toMatchObject({ distribution: 4, sharing_group_id: null });
    expect((await app.http.get(`/events/${uuid}`, { token: users.bUser.token })).status).toBe(404);
  });
});

describe.each(SEARCH_BACKENDS)("sharing-group data in search on $name", ({ env }) => {
  let searchApp: TestApp;
  const who = {} as Record<"a" | "b" | "c", TestUser>;
  const marker = crypto.randomBytes(5).toString("hex");
  let groupId = 0;

  beforeAll(async () => {
    searchApp = await startTestApp("sharing_groups_search", { ROLE: "all", ...env() });
    const site = await loginAdmin(searchApp);
    const ids = { a: 0, b: 0, c: 0 };
    for (const k of ["a", "b", "c"] as const) {
      ids[k] = await createOrganisation(searchApp, site, `sgs-${k}-${marker}`);
      who[k] = await createUser(searchApp, site, 2, ids[k]);
    }
    const group = await searchApp.http.post("/sharing_groups/", { token: who.a.token, json: { name: `search ${marker}`, sharing_group_orgs: [{ org_id: ids.b }] } });
    groupId = group.body.id;
    const event = await searchApp.http.post("/events/", { token: who.a.token, json: { info: `grouped ${marker}`, distribution: 4, sharing_group_id: group.body.id } });
    await searchApp.http.post("/attributes/", { token: who.a.token, json: { event_uuid: event.body.uuid, type: "domain", value: `grouped-${marker}.example` } });
    const open = await searchApp.http.post("/events/", { token: who.a.token, json: { info: `open ${marker}`, distribution: 1 } });
    await searchApp.http.post("/attributes/", {
      token: who.a.token,
      json: { event_uuid: open.body.uuid, type: "domain", value: `open-grouped-${marker}.example`, distribution: 4, sharing_group_id: group.body.id },
    });
    // B's own community event holds the grouped value: a correlation between A's group and B.
    const bEvent = await searchApp.http.post("/events/", { token: who.b.token, json: { info: `b ${marker}`, distribution: 1 } });
    await searchApp.http.post("/attributes/", { token: who.b.token, json: { event_uuid: bEvent.body.uuid, type: "domain", value: `grouped-${marker}.example` } });
    await settled(searchApp);
  });
  afterAll(() => searchApp?.close());

  it("a change to the group's event notifies a member who follows it, not an outsider who does", async () => {
    const events = (await searchApp.http.get(`/events/search?query=${encodeURIComponent(`info:"grouped ${marker}"`)}`, { token: who.a.token })).body.results;
    const uuid = events[0]._id;
    for (const user of [who.b, who.c]) {
      const res = await searchApp.http.post("/settings/user/notifications", { token: user.token, json: { follow: { events: [uuid], attributes: [], objects: [], organisations: [] } } });
      expect(res.status).toBe(200);
    }
    expect((await searchApp.http.patch(`/events/${uuid}`, { token: who.a.token, json: { analysis: 2 } })).status).toBe(200);
    await settled(searchApp);
    const about = async (user: TestUser) =>
      (await searchApp.http.get("/notifications", { token: user.token })).body.items.filter((n: { entity_uuid?: string; payload?: { event_uuid?: string } }) => n.payload?.event_uuid === uuid || n.entity_uuid === uuid);
    expect((await about(who.b)).length).toBeGreaterThan(0);
    expect(await about(who.c)).toEqual([]);
  });

  it("a grouped event deleted for good is judged by the group its deletion recorded: the member hears of it, the outsider does not", async () => {
    const doomed = await searchApp.http.post("/events/", { token: who.a.token, json: { info: `doomed ${marker}`, distribution: 4, sharing_group_id: groupId } });
    const uuid = doomed.body.uuid;
    for (const user of [who.b, who.c]) {
      await searchApp.http.post("/settings/user/notifications", { token: user.token, json: { follow: { events: [uuid], attributes: [], objects: [], organisations: [] } } });
    }
    expect((await searchApp.http.delete(`/events/${uuid}?force=true`, { token: who.a.token })).status).toBe(204);
    await settled(searchApp);
    const about = async (user: TestUser) => (await searchApp.http.get("/notifications", { token: user.token })).body.items.filter((n: { entity_uuid?: string }) => n.entity_uuid === uuid);
    expect((await about(who.b)).map((n: { type: string }) => n.type)).toContain("event.deleted");
    expect(await about(who.c)).toEqual([]);
  });

  it("the correlation with the group's attribute is the members' only", async () => {
    const pairs = async (user: TestUser) => {
      const res = await searchApp.http.get(`/correlations/search?query=${encodeURIComponent(`"grouped-${marker}.example"`)}&size=100`, { token: user.token });
      expect(res.status).toBe(200);
      return res.body.total;
    };
    expect(await pairs(who.a)).toBe(2);
    expect(await pairs(who.b)).toBe(2);
    expect(await pairs(who.c)).toBe(0);
  });

  const found = async (user: TestUser, index: "events" | "attributes", field: string) => {
    const res = await searchApp.http.get(`/${index}/search?query=${encodeURIComponent(`${field}:*${marker}*`)}&size=100`, { token: user.token });
    expect(res.status).toBe(200);
    return res.body.results.map((h: { _source: { info?: string; value?: string } }) => h._source.info ?? h._source.value).sort();
  };

  it("the group's organisations find its events and attributes; the outsider finds what is open only", async () => {
    for (const user of [who.a, who.b]) {
      expect(await found(user, "events", "info")).toEqual([`b ${marker}`, `grouped ${marker}`, `open ${marker}`]);
      // A's grouped attribute and B's of the same value, and A's grouped attribute in the community event.
      expect(await found(user, "attributes", "value")).toEqual([`grouped-${marker}.example`, `grouped-${marker}.example`, `open-grouped-${marker}.example`]);
    }
    expect(await found(who.c, "events", "info")).toEqual([`b ${marker}`, `open ${marker}`]);
    // C finds B's attribute only, none of the group's.
    expect(await found(who.c, "attributes", "value")).toEqual([`grouped-${marker}.example`]);
  });
  it("roaming is false by default, set by the owner on create and edit (REST and GraphQL), refused from anyone else and for a non-boolean", async () => {
    const id = await groupOfAWithB(true);
    expect((await app.http.get(`/sharing_groups/${id}`, { token: users.bUser.token })).body.roaming).toBe(false);
    const roamer = await app.http.post("/sharing_groups/", { token: users.aAdmin.token, json: { name: unique("roamer"), roaming: true } });
    expect(roamer.status).toBe(201);
    expect(roamer.body.roaming).toBe(true);

    // B may extend the group yet does not own it: 403; C does not see it: 404; neither changes it.
    expect((await app.http.patch(`/sharing_groups/${id}`, { token: users.bAdmin.token, json: { roaming: true } })).status).toBe(403);
    expect((await app.http.patch(`/sharing_groups/${id}`, { token: users.cAdmin.token, json: { roaming: true } })).status).toBe(404);
    const gqlOther = await app.http.graphql(`mutation($id: Int!) { updateSharingGroup(id: $id, input: { roaming: true }) { roaming } }`, { id }, users.bAdmin.token);
    expect(gqlOther.body.errors?.[0].extensions?.code).toBe("forbidden");
    expect((await app.http.get(`/sharing_groups/${id}`, { token: users.aUser.token })).body.roaming).toBe(false);

    for (const roaming of ["true", 1, null, {}]) {
      const bad = await app.http.patch(`/sharing_groups/${id}`, { token: users.aAdmin.token, json: { roaming } });
      expect(bad.status, JSON.stringify(roaming)).toBe(422);
      expect(bad.body.detail.map((d: { loc: unknown[] }) => d.loc)).toEqual([["body", "roaming"]]);
      expect((await app.http.post("/sharing_groups/", { token: users.aAdmin.token, json: { name: unique("bad roaming"), roaming } })).status).toBe(422);
    }
    expect((await app.http.get(`/sharing_groups/${id}`, { token: users.aUser.token })).body.roaming).toBe(false);

    const patched = await app.http.patch(`/sharing_groups/${id}`, { token: users.aAdmin.token, json: { roaming: true } });
    expect(patched.body).toMatchObject({ roaming: true, description: "" });
    const gql = await app.http.graphql(`mutation($id: Int!) { updateSharingGroup(id: $id, input: { roaming: false }) { roaming } }`, { id }, users.aAdmin.token);
    expect(gql.body.data?.updateSharingGroup).toEqual({ roaming: false });
    const gqlCreated = await app.http.graphql(`mutation($n: String!) { createSharingGroup(input: { name: $n, roaming: true }) { roaming } }`, { n: unique("gql roamer") }, users.aAdmin.token);
    expect(gqlCreated.body.data?.createSharingGroup).toEqual({ roaming: true });
    expect((await app.http.get(`/sharing_groups/${id}`, { token: users.bUser.token })).body.roaming).toBe(false);
  });

  it("a hunt run, an export and an MCP search hold the group's attribute for a member, not for the outsider; leaving the group ends it", async () => {
    const tag = crypto.randomBytes(5).toString("hex");
    const value = `paths-${tag}.example`;
    const group = await searchApp.http.post("/sharing_groups/", { token: who.a.token, json: { name: `paths ${tag}`, sharing_group_orgs: [{ org_id: who.b.orgId }] } });
    expect(group.status).toBe(201);
    const attributeIn = async (event: { distribution: number; sharing_group_id?: number }) => {
      const created = await searchApp.http.post("/events/", { token: who.a.token, json: { info: `paths ${event.distribution} ${tag}`, ...event } });
      expect(created.status, created.text).toBe(201);
      const attribute = await searchApp.http.post("/attributes/", { token: who.a.token, json: { event_uuid: created.body.uuid, type: "domain", value } });
      expect(attribute.status, attribute.text).toBe(201);
      return attribute.body.uuid as string;
    };
    const grouped = await attributeIn({ distribution: 4, sharing_group_id: group.body.id });
    // The same value for all: whoever searches the index finds this one, so an empty answer is never a delay.
    const control = await attributeIn({ distribution: 3 });
    await settled(searchApp);
    const query = `value:"${value}"`;
    const uuids = (items: { uuid: string }[]) => items.map((h) => h.uuid).sort();

    const hunted = async (user: TestUser) => {
      const hunt = await searchApp.http.post("/hunts/", { token: user.token, json: { name: `paths ${tag}`, query, index_target: "attributes" } });
      expect(hunt.status, hunt.text).toBe(201);
      const ran = await searchApp.http.post(`/hunts/${hunt.body.id}/run`, { token: user.token });
      expect(ran.status, ran.text).toBe(200);
      const cached = await searchApp.http.get(`/hunts/${hunt.body.id}/results`, { token: user.token });
      expect(cached.body.hits).toEqual(ran.body.hits);
      expect(ran.body.total).toBe(ran.body.hits.length);
      return uuids(ran.body.hits);
    };
    const exported = async (user: TestUser) => {
      const created = await searchApp.http.post("/exports/", { token: user.token, json: { name: `paths ${tag}`, query, index_target: "attributes", format: "json" } });
      expect(created.status, created.text).toBe(201);
      const done = await eventually(async () => {
        const r = await searchApp.http.get(`/exports/${created.body.id}`, { token: user.token });
        return ["completed", "failed"].includes(r.body.status) ? r.body : undefined;
      }, `export ${created.body.id} finished`, 60_000, 100);
      expect(done.status, done.error).toBe("completed");
      const file = await searchApp.http.get(`/exports/${created.body.id}/download`, { token: user.token });
      expect(file.status).toBe(200);
      return uuids(JSON.parse(file.text));
    };
    const clients: Client[] = [];
    const viaMcp = async (user: TestUser) => {
      const minted = await searchApp.http.get("/mcp/config", { token: user.token });
      expect(minted.status, minted.text).toBe(200);
      const found = await toolOk(await connectMcp(searchApp.url, minted.body.token, clients), "search_attributes", { query, size: 10 });
      expect(found.total).toBe(found.hits.length);
      return uuids(found.hits);
    };

    try {
      for (const read of [hunted, exported, viaMcp]) {
        expect(await read(who.b), read.name).toEqual([grouped, control].sort());
        expect(await read(who.c), read.name).toEqual([control]);
      }
      const invalidated = nextAuthInvalidation(searchApp);
      expect((await searchApp.http.delete(`/sharing_groups/${group.body.id}/organisations/${who.b.orgId}`, { token: who.a.token })).status).toBe(204);
      await invalidated;
      for (const read of [hunted, exported, viaMcp]) expect(await read(who.b), read.name).toEqual([control]);
      expect(await hunted(who.a)).toEqual([grouped, control].sort());
    } finally {
      await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    }
  });
});

describe("MISP JSON with sharing groups", () => {
  it("exports the SharingGroup block; an import finds the group by uuid for its members, not for others", async () => {
    const group = await groupOfAWithB();
    const event = await app.http.post("/events/", { token: users.aUser.token, json: { info: unique("exported"), distribution: 4, sharing_group_id: group } });
    await app.http.post("/attributes/", { token: users.aUser.token, json: { event_uuid: event.body.uuid, type: "domain", value: `${crypto.randomUUID()}.example`, distribution: 4, sharing_group_id: group } });
    expect((await app.http.post(`/reports/${event.body.uuid}`, { token: users.aUser.token, json: { name: "group report", content: "notes", distribution: 4, sharing_group_id: group } })).status).toBe(200);
    const exported = await app.http.get(`/events/${event.body.uuid}/export?format=misp`, { token: users.aUser.token });
    expect(exported.status).toBe(200);
    const doc = exported.body.Event;
    const block = doc.SharingGroup;
    expect(block).toMatchObject({ name: expect.any(String), Organisation: { name: expect.any(String) } });
    expect(block.SharingGroupOrg.map((m: { Organisation: { uuid: string } }) => m.Organisation.uuid)).toHaveLength(2);
    expect(doc.Attribute[0].SharingGroup.uuid).toBe(block.uuid);
    expect(doc.EventReport[0].SharingGroup.uuid).toBe(block.uuid);

    // The same document as another event: A's import places it in the group (A owns it), so B reads it.
    const fresh = (items: object[]) => items.map((x) => ({ ...x, uuid: crypto.randomUUID() }));
    const copy = (uuid: string) => ({ Event: { ...doc, uuid, Attribute: fresh(doc.Attribute), EventReport: fresh(doc.EventReport) } });
    const asA = crypto.randomUUID();
    expect((await app.http.post("/events/import", { token: users.aUser.token, json: copy(asA) })).status).toBe(201);
    expect((await app.http.get(`/events/${asA}`, { token: users.aUser.token })).body.sharing_group_id).toBe(group);
    expect((await app.http.get(`/events/${asA}`, { token: users.bUser.token })).status).toBe(200);
    const reportsOfCopy = (await app.http.get(`/reports/${asA}`, { token: users.bUser.token })).body;
    expect(reportsOfCopy.map((h: { _source: { sharing_group_id: number } }) => h._source.sharing_group_id)).toEqual([group]);
    // C does not belong to it: C's copy keeps distribution 4 without a group, C's own.
    const asC = crypto.randomUUID();
    expect((await app.http.post("/events/import", { token: users.cUser.token, json: copy(asC) })).status).toBe(201);
    expect((await app.http.get(`/events/${asC}`, { token: users.cUser.token })).body).toMatchObject({ distribution: 4, sharing_group_id: null });
    expect((await app.http.get(`/events/${asC}`, { token: users.bUser.token })).status).toBe(404);
  });

  it("a syncing importer creates an unknown group with its organisations by uuid; without sync nothing is created", async () => {
    const orgB = (await app.http.get(`/organisations/${orgs.b}`, { token: admin.token })).body;
    const groupUuid = crypto.randomUUID();
    const foreignOrg = { uuid: crypto.randomUUID(), name: unique("remote owner") };
    const file = (uuid: string) => ({
      Event: {
        uuid, info: unique("synced"), distribution: "4", sharing_group_id: "77",
        SharingGroup: { id: "77", uuid: groupUuid, name: unique("remote group"), releasability: "remote", Organisation: foreignOrg, SharingGroupOrg: [{ extend: false, Organisation: { uuid: orgB.uuid, name: orgB.name } }] },
      },
    });
    const plain = crypto.randomUUID();
    expect((await app.http.post("/events/import", { token: users.aUser.token, json: file(plain) })).status).toBe(201);
    expect((await app.http.get(`/events/${plain}`, { token: users.aUser.token })).body.sharing_group_id).toBeNull();
    expect((await app.http.get("/sharing_groups/", { token: admin.token })).body.map((g: { uuid: string }) => g.uuid)).not.toContain(groupUuid);

    const synced = crypto.randomUUID();
    const invalidated = nextAuthInvalidation(app);
    expect((await app.http.post("/events/import", { token: admin.token, json: file(synced) })).status).toBe(201);
    await invalidated;
    const created = (await app.http.get("/sharing_groups/", { token: admin.token })).body.find((g: { uuid: string }) => g.uuid === groupUuid);
    expect(created).toMatchObject({ local: false, releasability: "remote", organisation: { uuid: foreignOrg.uuid } });
    expect(created.sharing_group_orgs.map((m: { org_id: number }) => m.org_id)).toContain(orgs.b);
    expect((await app.http.get(`/events/${synced}`, { token: users.bUser.token })).status).toBe(200);
    expect((await app.http.get(`/events/${synced}`, { token: users.cUser.token })).status).toBe(404);
  });

  it("two syncing imports of one unknown group at once both succeed, the group created once", async () => {
    // The second writer checked only the uuid's index before inserting, then met the first's
    // uncommitted row in the name's index and failed (409) instead of waiting. A slow index between
    // the two (the uuid's rebuilt after it) holds the first writer between them.
    const orgB = (await app.http.get(`/organisations/${orgs.b}`, { token: admin.token })).body;
    const group = { uuid: crypto.randomUUID(), name: unique("raced group"), releasability: "both", Organisation: { uuid: orgB.uuid, name: orgB.name }, SharingGroupOrg: [] };
    const sql = (text: string) => app.booted.ctx.db.pool.query(text);
    await sql("CREATE FUNCTION slow_group_key(text) RETURNS text IMMUTABLE LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(0.3); RETURN $1; END $$");
    await sql(`CREATE INDEX slow_group_key ON sharing_groups (slow_group_key(name)) WHERE name = '${group.name}'`);
    await sql("DROP INDEX sharing_groups_uuid_key");
    await sql('CREATE UNIQUE INDEX sharing_groups_uuid_key ON sharing_groups ("uuid")');
    try {
      const events = [crypto.randomUUID(), crypto.randomUUID()];
      const answers = await Promise.all(
        events.map((uuid) => app.http.post("/events/import", { token: admin.token, json: { Event: { uuid, info: unique("raced"), distribution: "4", SharingGroup: group } } })),
      );
      expect(answers.map((r) => `${r.status} ${r.status === 201 ? "" : r.text.slice(0, 200)}`)).toEqual(["201 ", "201 "]);
      const stored = await app.booted.ctx.db.pool.query("SELECT id FROM sharing_groups WHERE uuid = $1", [group.uuid]);
      expect(stored.rows).toHaveLength(1);
      const placed = await app.booted.ctx.db.pool.query("SELECT DISTINCT sharing_group_id FROM events WHERE uuid = ANY($1::uuid[])", [events]);
      expect(placed.rows).toEqual([{ sharing_group_id: stored.rows[0].id }]);
    } finally {
      await sql("DROP INDEX slow_group_key");
      await sql("DROP FUNCTION slow_group_key(text)");
    }
  });

  it("sync updates a known group from a newer copy as MISP's captureSG: a sync user (a group that came by sync) or an administrator; never a normal user, an older copy or a local group for sync", async () => {
    const syncScopes = ["events:read", "events:create", "events:sync", "sharing_groups:read"];
    const orgS = await createOrganisation(app, admin, unique("sync org"));
    const syncUser = await createUser(app, admin, syncScopes, orgS);
    const orgD = await createOrganisation(app, admin, unique("outsider org"));
    const outsider = await createUser(app, admin, ["events:read", "events:create"], orgD);
    const orgOf = async (id: number) => (await app.http.get(`/organisations/${id}`, { token: admin.token })).body as { uuid: string; name: string };
    const [b, c] = [await orgOf(orgs.b), await orgOf(orgs.c)];
    const groupUuid = crypto.randomUUID();
    const owner = { uuid: crypto.randomUUID(), name: unique("remote owner") };
    const block = (modified: string | undefined, fields: Record<string, unknown>, members: { org: { uuid: string; name: string }; extend: boolean }[]) => ({
      uuid: groupUuid, Organisation: owner, ...(modified === undefined ? {} : { modified }), ...fields,
      SharingGroupOrg: members.map((m) => ({ extend: m.extend, Organisation: m.org })),
    });
    const importAs = async (token: string, sg: Record<string, unknown>, status = 201) => {
      const uuid = crypto.randomUUID();
      const invalidated = nextAuthInvalidation(app);
      const res = await app.http.post("/events/import", { token, json: { Event: { uuid, info: unique("sg capture"), distribution: "4", SharingGroup: sg } } });
      expect(res.status, res.text).toBe(status);
      if (status === 201) await Promise.race([invalidated, new Promise((r) => setTimeout(r, 500))]);
      return uuid;
    };
    const stored = async () => {
      const [g] = (await app.booted.ctx.db.pool.query(
        `SELECT id, name, releasability, description, roaming, local, to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') AS modified,
                to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') AS created FROM sharing_groups WHERE uuid = $1`,
        [groupUuid],
      )).rows;
      const members = (await app.booted.ctx.db.pool.query("SELECT org_id, extend FROM sharing_group_orgs WHERE sharing_group_id = $1 ORDER BY org_id", [g.id])).rows;
      return { ...g, members: members.map((m: { org_id: number; extend: boolean }) => [m.org_id, m.extend]) };
    };
    const eventGroup = async (uuid: string) => (await app.booted.ctx.db.pool.query("SELECT sharing_group_id FROM events WHERE uuid = $1", [uuid])).rows[0].sharing_group_id;

    // The sync user brings the group: created from its copy.
    const first = await importAs(syncUser.token, block("2024-01-01 10:00:00", { name: unique("synced group"), releasability: "v1", description: "first" }, [{ org: b, extend: false }]));
    const v1 = await stored();
    expect(v1).toMatchObject({ releasability: "v1", description: "first", roaming: false, local: false });
    expect(await eventGroup(first)).toBe(v1.id);

    // A newer copy from the sync user: fields given are taken, members added or their extend changed, none removed.
    const newName = unique("renamed group");
    await importAs(syncUser.token, block("2024-02-01 10:00:00", { name: newName, releasability: "v2", roaming: true, created: "2023-12-01 09:00:00" }, [{ org: b, extend: true }, { org: c, extend: false }]));
    const v2 = await stored();
    expect(v2).toMatchObject({ name: newName, releasability: "v2", description: "first", roaming: true, modified: "2024-02-01 10:00:00", created: "2023-12-01 09:00:00" });
    expect(v2.members).toEqual(expect.arrayContaining([[orgs.b, true], [orgs.c, false]]));
    expect(v2.members.length).toBe(v1.members.length + 1);

    // An older copy, or the same one again: the group is used, not changed.
    const older = await importAs(syncUser.token, block("2024-01-15 00:00:00", { name: unique("older"), releasability: "old" }, [{ org: b, extend: false }]));
    await importAs(syncUser.token, block("2024-02-01 10:00:00", { name: unique("same time"), releasability: "same" }, []));
    expect(await stored()).toEqual(v2);
    expect(await eventGroup(older)).toBe(v2.id);

    // A normal user of a member organisation: uses the group, never changes it, whatever the copy says.
    const byMember = await importAs(users.bUser.token, block("2030-01-01 00:00:00", { name: unique("member's"), releasability: "member" }, [{ org: b, extend: false }]));
    expect(await stored()).toEqual(v2);
    expect(await eventGroup(byMember)).toBe(v2.id);
    // A normal user outside it: neither uses nor changes it.
    const byOutsider = await importAs(outsider.token, block("2030-01-01 00:00:00", { name: unique("outsider's") }, [{ org: await orgOf(orgD), extend: true }]));
    expect(await stored()).toEqual(v2);
    expect(await eventGroup(byOutsider)).toBeNull();

    // A copy without modified is newer to MISP: the sync user's is taken.
    await importAs(syncUser.token, block(undefined, { name: newName, description: "undated" }, []));
    expect(await stored()).toMatchObject({ description: "undated", releasability: "v2" });

    // A hostile modified is the file's 422, nothing written.
    const before = await stored();
    for (const modified of ["yesterday", "2024-13-45 99:99:99", "2024-02-30 10:00:00", "2024-01-01 10:00", 1_700_000_000, { $gt: 1 }]) {
      const uuid = crypto.randomUUID();
      const res = await app.http.post("/events/import", { token: syncUser.token, json: { Event: { uuid, info: "hostile", distribution: "4", SharingGroup: { ...block(undefined, { name: unique("hostile") }, []), modified } } } });
      expect(res.status, `${JSON.stringify(modified)}: ${res.text}`).toBe(422);
      expect(res.body.detail.map((d: { loc: unknown[] }) => d.loc.slice(-2))).toContainEqual(["SharingGroup", "modified"]);
      expect((await app.http.get(`/events/${uuid}`, { token: admin.token })).status).toBe(404);
    }
    expect(await stored()).toEqual(before);

    // MySQL's zero date (old MISP rows) is older than anything: used, not taken.
    await importAs(syncUser.token, block("0000-00-00 00:00:00", { name: unique("zero date"), releasability: "zero" }, []));
    expect(await stored()).toEqual(before);

    // A group made here (local): sync does not change it, an administrator does.
    const local = await groupOfAWithB();
    const localUuid = (await app.http.get(`/sharing_groups/${local}`, { token: users.aAdmin.token })).body.uuid;
    const localCopy = { uuid: localUuid, name: unique("local renamed"), modified: "2099-01-01 00:00:00", releasability: "changed by copy", SharingGroupOrg: [] };
    const bySync = await importAs(syncUser.token, localCopy);
    expect(await eventGroup(bySync)).toBe(local);
    expect((await app.http.get(`/sharing_groups/${local}`, { token: users.aAdmin.token })).body.releasability).toBe("A and B only");
    await importAs(admin.token, localCopy);
    expect((await app.http.get(`/sharing_groups/${local}`, { token: users.aAdmin.token })).body).toMatchObject({ name: localCopy.name, releasability: "changed by copy" });
  });

  it("a group an import creates or changes is audited as the REST changes are (via import); an import that fails after the capture leaves neither group nor entry", async () => {
    const orgS = await createOrganisation(app, admin, unique("audited sync org"));
    const syncUser = await createUser(app, admin, ["events:read", "events:create", "events:sync", "sharing_groups:read"], orgS);
    const orgOf = async (id: number) => (await app.http.get(`/organisations/${id}`, { token: admin.token })).body as { uuid: string; name: string };
    const [b, c] = [await orgOf(orgs.b), await orgOf(orgs.c)];
    const groupUuid = crypto.randomUUID();
    const owner = { uuid: crypto.randomUUID(), name: unique("audited owner") };
    const block = (modified: string, releasability: string, members: { org: { uuid: string; name: string }; extend: boolean }[]) => ({
      uuid: groupUuid, name: unique("audited group"), Organisation: owner, modified, releasability, SharingGroupOrg: members.map((m) => ({ extend: m.extend, Organisation: m.org })),
    });
    const importAs = async (sg: Record<string, unknown>, extra: Record<string, unknown> = {}, status = 201) => {
      const res = await app.http.post("/events/import", { token: syncUser.token, json: { Event: { uuid: crypto.randomUUID(), info: unique("audited"), distribution: "4", SharingGroup: sg, ...extra } } });
      expect(res.status, res.text).toBe(status);
      return res;
    };
    const q = async <T,>(text: string, params: unknown[]) => (await app.booted.ctx.db.pool.query(text, params)).rows as T[];
    const audits = (id: number) => q<{ action: string; actor_user_id: number; metadata: Record<string, unknown> }>(
      "SELECT action, actor_user_id, metadata FROM audit_logs WHERE resource_type = 'sharing_group' AND resource_id = $1 ORDER BY id", [id]);

    await importAs(block("2024-01-01 10:00:00", "v1", [{ org: b, extend: false }]));
    const [group] = await q<{ id: number; name: string; org_id: number }>("SELECT id, name, org_id FROM sharing_groups WHERE uuid = $1", [groupUuid]);
    expect(await audits(group.id)).toEqual([
      { action: "sharing_group.created", actor_user_id: syncUser.id, metadata: { name: group.name, uuid: groupUuid, members: [group.org_id, orgs.b], via: "import" } },
    ]);

    // A newer copy: the fields it changed, before and after, and each member added or whose extend flag changed.
    await importAs(block("2024-02-01 10:00:00", "v2", [{ org: b, extend: true }, { org: c, extend: false }]));
    const changed = (await audits(group.id)).slice(1);
    expect(changed[0]).toMatchObject({ action: "sharing_group.updated", actor_user_id: syncUser.id, metadata: { via: "import", changes: { releasability: { before: "v1", after: "v2" } } } });
    expect(Object.keys(changed[0].metadata.changes as object).sort()).toEqual(["name", "releasability"]);
    expect(changed.slice(1)).toEqual(expect.arrayContaining([
      { action: "sharing_group.member_added", actor_user_id: syncUser.id, metadata: { org_id: orgs.b, extend: true, via: "import" } },
      { action: "sharing_group.member_added", actor_user_id: syncUser.id, metadata: { org_id: orgs.c, extend: false, via: "import" } },
    ]));
    expect(changed).toHaveLength(3);
    // The administrators read them in the audit log as any other.
    const listed = await app.http.get(`/admin/audit-logs/?resource_type=sharing_group&resource_id=${group.id}`, { token: admin.token });
    expect(listed.status, listed.text).toBe(200);
    expect(JSON.stringify(listed.body)).toContain("sharing_group.member_added");

    // The same copy again, or an older one: the group is used, nothing is audited.
    await importAs(block("2024-02-01 10:00:00", "v2", [{ org: b, extend: true }, { org: c, extend: false }]));
    await importAs(block("2023-01-01 10:00:00", "old", []));
    expect(await audits(group.id)).toHaveLength(4);

    // An import refused after its groups were captured (an attribute uuid of another event: 409) rolls them back with their entries.
    const taken = crypto.randomUUID();
    await importAs(block("2024-03-01 10:00:00", "v3", []), { Attribute: [{ uuid: taken, type: "domain", category: "Network activity", value: "taken.example.org" }] });
    const otherGroup = crypto.randomUUID();
    const refused = await importAs({ ...block("2024-04-01 10:00:00", "v4", [{ org: c, extend: true }]), uuid: otherGroup }, { Attribute: [{ uuid: taken, type: "domain", category: "Network activity", value: "again.example.org" }] }, 409);
    expect(refused.body.code).toBe("conflict");
    expect(await q("SELECT id FROM sharing_groups WHERE uuid = $1", [otherGroup])).toEqual([]);
    expect(await q("SELECT id FROM audit_logs WHERE metadata->>'uuid' = $1", [otherGroup])).toEqual([]);
  });

  it("exports a group that is not roaming bound to this instance (server 0), a roaming one with the flag; a syncing import keeps MISP's flag on a new group, never on a known one", async () => {
    const bound = await groupOfAWithB();
    const roamer = (await app.http.post("/sharing_groups/", { token: users.aAdmin.token, json: { name: unique("roaming"), roaming: true, sharing_group_orgs: [{ org_id: orgs.b }] } })).body.id;
    const blockOf = async (group: number) => {
      const event = await app.http.post("/events/", { token: users.aUser.token, json: { info: unique("bound"), distribution: 4, sharing_group_id: group } });
      return (await app.http.get(`/events/${event.body.uuid}/export?format=misp`, { token: users.aUser.token })).body.Event.SharingGroup;
    };
    const narrow = await blockOf(bound);
    expect(narrow.roaming).toBe(false);
    expect(narrow.SharingGroupServer).toEqual([{ sharing_group_id: String(bound), server_id: "0", all_orgs: false, Server: { id: "0", url: expect.stringMatching(/^https?:\/\//), name: expect.any(String) } }]);
    const wide = await blockOf(roamer);
    expect(wide).toMatchObject({ roaming: true, SharingGroupServer: [] });

    // A syncing import of MISP's blocks under new uuids: each new group takes the sender's flag.
    const imported = async (block: Record<string, unknown>) => {
      const uuid = crypto.randomUUID();
      const groupUuid = crypto.randomUUID();
      const invalidated = nextAuthInvalidation(app);
      const file = { Event: { uuid, info: unique("round trip"), distribution: "4", SharingGroup: { ...block, uuid: groupUuid, name: unique("copy") } } };
      expect((await app.http.post("/events/import", { token: admin.token, json: file })).status).toBe(201);
      await invalidated;
      return (await app.http.get("/sharing_groups/", { token: admin.token })).body.find((g: { uuid: string }) => g.uuid === groupUuid);
    };
    expect((await imported(narrow)).roaming).toBe(false);
    expect((await imported(wide)).roaming).toBe(true);

    // The known group is matched by uuid and keeps its own flag, for its owner and for a syncing administrator.
    const asKnown = { Event: { uuid: crypto.randomUUID(), info: unique("known"), distribution: "4", SharingGroup: { ...narrow, roaming: true } } };
    expect((await app.http.post("/events/import", { token: users.aUser.token, json: asKnown })).status).toBe(201);
    expect((await app.http.post("/events/import", { token: admin.token, json: { Event: { ...asKnown.Event, uuid: crypto.randomUUID() } } })).status).toBe(201);
    expect((await app.http.get(`/sharing_groups/${bound}`, { token: users.aUser.token })).body.roaming).toBe(false);
    // A hostile flag is the file's 422, nothing written.
    const hostile = { Event: { uuid: crypto.randomUUID(), info: unique("hostile"), distribution: "4", SharingGroup: { ...narrow, uuid: crypto.randomUUID(), roaming: { $ne: 1 } } } };
    const refused = await app.http.post("/events/import", { token: admin.token, json: hostile });
    expect(refused.status).toBe(422);
    expect((await app.http.get(`/events/${hostile.Event.uuid}`, { token: admin.token })).status).toBe(404);
  });
});
