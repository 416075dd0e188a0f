import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sharedPath } from "../support/shared-data.ts";
import { startTestApp, type TestApp } from "../support/app.ts";
import { createUser, loginAdmin, type TestUser } from "../support/fixtures.ts";
import { countStatements } from "../support/statement-counter.ts";
import { connectMcp, toolOk, toolRefused } from "../support/mcp-client.ts";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";

/** The real misp-taxonomies files, read in place: never copied into the project. */
const TAXONOMY_DATA = sharedPath("misp-taxonomies");
/** Directories of ../shared/data/misp-taxonomies holding a machinetag.json (MANIFEST.json lists 182 of them). */
const TAXONOMY_COUNT = fs.readdirSync(TAXONOMY_DATA).filter((d) => fs.existsSync(path.join(TAXONOMY_DATA, d, "machinetag.json"))).length;

let app: TestApp;
let admin: TestUser;
let user: TestUser;

beforeAll(async () => {
  app = await startTestApp("taxonomies", { TAXONOMIES_SOURCE: TAXONOMY_DATA });
  admin = await loginAdmin(app);
  user = await createUser(app, admin, 3);
});
afterAll(() => app?.close());

const sql = <T = any>(text: string, params: unknown[] = []) => app.booted.ctx.db.pool.query<T & object>(text, params).then((r) => r.rows);
const gql = (u: TestUser, query: string, variables: Record<string, unknown> = {}) => app.http.graphql(query, variables, u.token);
const idOf = async (namespace: string) => (await sql<{ id: number }>("SELECT id FROM taxonomies WHERE namespace = $1", [namespace]))[0].id;

async function newEvent(): Promise<string> {
  const res = await app.http.post("/events/", { token: user.token, json: { info: `tax-${crypto.randomBytes(4).toString("hex")}`, distribution: 0 } });
  expect(res.status, res.text).toBe(201);
  return res.body.uuid;
}
async function newAttribute(eventUuid: string): Promise<string> {
  const res = await app.http.post("/attributes/", { token: user.token, json: { event_uuid: eventUuid, type: "ip-dst", value: "10.9.8.7" } });
  expect(res.status, res.text).toBe(201);
  return res.body.uuid;
}
const tagsOfEvent = async (uuid: string) =>
  (await sql<{ name: string }>("SELECT t.name FROM event_tags et JOIN tags t ON t.id = et.tag_id JOIN events e ON e.id = et.event_id WHERE e.uuid = $1 ORDER BY 1", [uuid])).map((r) => r.name);
const tagsOfAttribute = async (uuid: string) =>
  (await sql<{ name: string }>("SELECT t.name FROM attribute_tags x JOIN tags t ON t.id = x.tag_id JOIN attributes a ON a.id = x.attribute_id WHERE a.uuid = $1 ORDER BY 1", [uuid])).map((r) => r.name);

describe("import from the MISP taxonomies format", () => {
  it("imports every taxonomy of the shared data, with tlp's predicates, colours and exclusivity", async () => {
    const started = performance.now();
    const res = await app.http.post("/taxonomies/update", { token: admin.token });
    const wall = Math.round(performance.now() - started);
    expect(res.status, res.text).toBe(200);
    console.log(`taxonomy import, first run: ${JSON.stringify(res.body)} (HTTP round trip ${wall} ms)`);
    expect(res.body).toMatchObject({ taxonomies: TAXONOMY_COUNT, taxonomies_created: TAXONOMY_COUNT });
    expect(TAXONOMY_COUNT).toBe(183);
    expect((await sql<{ n: number }>("SELECT count(*)::int AS n FROM taxonomies"))[0].n).toBe(TAXONOMY_COUNT);
    expect((await sql<{ n: number }>("SELECT count(*)::int AS n FROM taxonomies WHERE enabled"))[0].n).toBe(0);
    expect(res.body.predicates).toBe((await sql<{ n: number }>("SELECT count(*)::int AS n FROM taxonomy_predicates"))[0].n);
    expect(res.body.entries).toBe((await sql<{ n: number }>("SELECT count(*)::int AS n FROM taxonomy_entries"))[0].n);

    const tlp = await app.http.get(`/taxonomies/${await idOf("tlp")}`, { token: user.token });
    expect(tlp.status, tlp.text).toBe(200);
    expect(tlp.body).toMatchObject({ namespace: "tlp", uuid: "34c3905d-5e01-5b53-aebc-6aca2b78eb2b", version: 10, exclusive: true, enabled: false, required: false });
    const byValue = Object.fromEntries(tlp.body.predicates.map((p: any) => [p.value, p]));
    expect(Object.keys(byValue).sort()).toEqual(["amber", "amber+strict", "clear", "ex:chr", "green", "red", "unclear", "white"]);
    expect(byValue.red).toMatchObject({ colour: "#FF2B2B", tag_name: "tlp:red", entries: [] });
    expect(byValue.green).toMatchObject({ colour: "#33FF00", tag_name: "tlp:green" });
    expect(tlp.body.predicate_count).toBe(8);

    // Entries carry namespace:predicate="entry" and their numerical values.
    const adm = await app.http.get(`/taxonomies/${await idOf("admiralty-scale")}`, { token: user.token });
    const reliability = adm.body.predicates.find((p: any) => p.value === "source-reliability");
    expect(reliability.exclusive).toBe(true);
    expect(reliability.entries.find((e: any) => e.value === "a")).toMatchObject({ tag_name: 'admiralty-scale:source-reliability="a"', numerical_value: expect.any(Number) });
    // By uuid too.
    expect((await app.http.get(`/taxonomies/${tlp.body.uuid}`, { token: user.token })).body.id).toBe(tlp.body.id);
  });

  it("a second run changes no flag and duplicates nothing", async () => {
    await sql("UPDATE taxonomies SET required = true WHERE namespace = 'PAP'");
    const res = await app.http.post("/taxonomies/update", { token: admin.token });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ taxonomies: TAXONOMY_COUNT, taxonomies_created: 0 });
    expect((await sql<{ n: number }>("SELECT count(*)::int AS n FROM taxonomies"))[0].n).toBe(TAXONOMY_COUNT);
    expect((await sql("SELECT required FROM taxonomies WHERE namespace = 'PAP'"))[0].required).toBe(true);
    await sql("UPDATE taxonomies SET required = false WHERE namespace = 'PAP'");
  });

  it("refuses a source with a NUL character or an unknown predicate (400), writing nothing", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tax-"));
    try {
      fs.mkdirSync(path.join(dir, "bad"));
      fs.writeFileSync(path.join(dir, "bad", "machinetag.json"), JSON.stringify({ namespace: "bad\u0000ns", description: "x", version: 1, predicates: [] }));
      const other = await startTestApp("taxonomies-bad", { TAXONOMIES_SOURCE: dir }, app);
      try {
        const res = await other.http.post("/taxonomies/update", { token: admin.token });
        expect(res.status, res.text).toBe(400);
        fs.writeFileSync(path.join(dir, "bad", "machinetag.json"), JSON.stringify({ namespace: "bad", version: 1, predicates: [{ value: "a" }], values: [{ predicate: "z", entry: [{ value: "1" }] }] }));
        const res2 = await other.http.post("/taxonomies/update", { token: admin.token });
        expect(res2.status, res2.text).toBe(400);
        expect(res2.body.detail).toContain("unknown predicate");
      } finally {
        await other.close();
      }
      expect(await sql("SELECT 1 FROM taxonomies WHERE namespace LIKE 'bad%'")).toEqual([]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("list, enable and disable", () => {
  it("lists with counts, the enabled filter and the namespace filter (REST and GraphQL)", async () => {
    const res = await app.http.get("/taxonomies/?filter=TLP&size=5", { token: user.token });
    expect(res.status, res.text).toBe(200);
    expect(res.body.query).toEqual({ enabled: null, filter: "TLP" });
    const tlp = res.body.items.find((t: any) => t.namespace === "tlp");
    expect(tlp).toMatchObject({ predicate_count: 8, entry_count: 0, predicates: [] });
    const all = await app.http.get("/taxonomies/?size=1000", { token: user.token });
    expect(all.body.total).toBe(TAXONOMY_COUNT);
    const adm = all.body.items.find((t: any) => t.namespace === "admiralty-scale");
    expect(adm.entry_count).toBeGreaterThan(0);

    const g = await gql(user, `{ taxonomies(filter: "tlp", size: 5) { total items { namespace predicateCount predicates { value colour tagName } } } }`);
    expect(g.body.errors).toBeUndefined();
    const gt = g.body.data.taxonomies.items.find((t: any) => t.namespace === "tlp");
    expect(gt.predicateCount).toBe(8);
    expect(gt.predicates.find((p: any) => p.value === "red")).toEqual({ value: "red", colour: "#FF2B2B", tagName: "tlp:red" });
  });

  it("enables (tags created with their colours), filters on enabled, disables (tags hidden); users may not", async () => {
    const id = await idOf("tlp");
    expect((await app.http.patch(`/taxonomies/${id}`, { token: user.token, json: { enabled: true } })).status).toBe(403);
    const on = await app.http.patch(`/taxonomies/${id}`, { token: admin.token, json: { enabled: true } });
    expect(on.status, on.text).toBe(200);
    expect(on.body.enabled).toBe(true);
    const [red] = await sql("SELECT colour, hide_tag FROM tags WHERE name = 'tlp:red'");
    expect(red).toEqual({ colour: "#FF2B2B", hide_tag: false });
    const enabled = await app.http.get("/taxonomies/?enabled=true", { token: user.token });
    expect(enabled.body.items.map((t: any) => t.namespace)).toEqual(["tlp"]);

    const off = await app.http.patch(`/taxonomies/${id}`, { token: admin.token, json: { enabled: false } });
    expect(off.body.enabled).toBe(false);
    expect((await sql("SELECT hide_tag FROM tags WHERE name = 'tlp:red'"))[0].hide_tag).toBe(true);

    const g = await gql(admin, "mutation($id: Int!) { setTaxonomyFlags(id: $id, enabled: true, required: true) { enabled required } }", { id });
    expect(g.body.errors).toBeUndefined();
    expect(g.body.data.setTaxonomyFlags).toEqual({ enabled: true, required: true });
    expect((await sql("SELECT hide_tag FROM tags WHERE name = 'tlp:red'"))[0].hide_tag).toBe(false);
    const denied = await gql(user, "mutation($id: Int!) { setTaxonomyFlags(id: $id, enabled: false) { enabled } }", { id });
    expect(denied.body.errors?.[0].extensions?.code).toBe("insufficient_scope");
    await app.http.patch(`/taxonomies/${id}`, { token: admin.token, json: { required: false } });
    expect((await app.http.patch(`/taxonomies/${await idOf("admiralty-scale")}`, { token: admin.token, json: { enabled: true } })).status).toBe(200);
  });
});

describe("exclusive taxonomies and predicates when tagging", () => {
  it("refuses tlp:red next to tlp:green on an event and an attribute over REST, naming the tag", async () => {
    const ev = await newEvent();
    expect((await app.http.post(`/events/${ev}/tag/tlp:green`, { token: user.token })).status).toBe(201);
    const refused = await app.http.post(`/events/${ev}/tag/tlp:red`, { token: user.token });
    expect(refused.status, refused.text).toBe(422);
    expect(JSON.stringify(refused.body.detail)).toContain("tlp:green");
    expect(await tagsOfEvent(ev)).toEqual(["tlp:green"]);
    // The same tag again is no conflict; another taxonomy's tag is free.
    expect((await app.http.post(`/events/${ev}/tag/tlp:green`, { token: user.token })).status).toBe(201);
    expect((await app.http.post(`/events/${ev}/tag/${encodeURIComponent('admiralty-scale:source-reliability="a"')}`, { token: user.token })).status).toBe(201);

    const attr = await newAttribute(ev);
    expect((await app.http.post(`/attributes/${attr}/tag/tlp:amber`, { token: user.token })).status).toBe(201);
    const refusedAttr = await app.http.post(`/attributes/${attr}/tag/TLP:CLEAR`, { token: user.token });
    expect(refusedAttr.status, refusedAttr.text).toBe(422);
    expect(JSON.stringify(refusedAttr.body.detail)).toContain("tlp:amber");
    expect(await tagsOfAttribute(attr)).toEqual(["tlp:amber"]);
  });

  it("refuses a second entry of an exclusive predicate; another predicate of the same taxonomy is free", async () => {
    const ev = await newEvent();
    const tag = (t: string) => app.http.post(`/events/${ev}/tag/${encodeURIComponent(t)}`, { token: user.token });
    expect((await tag('admiralty-scale:source-reliability="a"')).status).toBe(201);
    expect((await tag('admiralty-scale:information-credibility="1"')).status).toBe(201);
    const refused = await tag('admiralty-scale:source-reliability="b"');
    expect(refused.status, refused.text).toBe(422);
    expect(JSON.stringify(refused.body.detail)).toContain('admiralty-scale:source-reliability=\\"a\\"');
  });

  it("refuses the same over GraphQL (tagEvent, tagAttribute) with validation_error", async () => {
    const ev = await newEvent();
    const attr = await newAttribute(ev);
    expect((await gql(user, `mutation($u: String!) { tagEvent(uuid: $u, tag: "tlp:green") }`, { u: ev })).body.data?.tagEvent).toBe(true);
    const e = await gql(user, `mutation($u: String!) { tagEvent(uuid: $u, tag: "tlp:red") }`, { u: ev });
    expect(e.body.errors?.[0].extensions?.code).toBe("validation_error");
    expect(JSON.stringify(e.body.errors?.[0].extensions)).toContain("tlp:green");
    expect((await gql(user, `mutation($u: String!) { tagAttribute(uuid: $u, tag: "tlp:green") }`, { u: attr })).body.data?.tagAttribute).toBe(true);
    const a = await gql(user, `mutation($u: String!) { tagAttribute(uuid: $u, tag: "tlp:red") }`, { u: attr });
    expect(a.body.errors?.[0].extensions?.code).toBe("validation_error");
    expect(JSON.stringify(a.body.errors?.[0].extensions)).toContain("tlp:green");
    expect(await tagsOfEvent(ev)).toEqual(["tlp:green"]);
    expect(await tagsOfAttribute(attr)).toEqual(["tlp:green"]);
  });

  it("a disabled taxonomy is not enforced", async () => {
    const id = await idOf("tlp");
    await app.http.patch(`/taxonomies/${id}`, { token: admin.token, json: { enabled: false } });
    try {
      const ev = await newEvent();
      expect((await app.http.post(`/events/${ev}/tag/tlp:green`, { token: user.token })).status).toBe(201);
      expect((await app.http.post(`/events/${ev}/tag/tlp:red`, { token: user.token })).status).toBe(201);
    } finally {
      await app.http.patch(`/taxonomies/${id}`, { token: admin.token, json: { enabled: true } });
    }
  });
});


describe("required taxonomies (runtime setting taxonomies.enforce_required)", () => {
  const enforce = (on: boolean) => app.http.post("/settings/runtime/taxonomies", { token: admin.token, json: { enforce_required: on } });
  const publish = (uuid: string) => app.http.post(`/events/${uuid}/publish`, { token: admin.token });
  const adminEvent = async (published = false) =>
    app.http.post("/events/", { token: admin.token, json: { info: `req-${crypto.randomBytes(4).toString("hex")}`, distribution: 0, published } });

  it("refuses to publish (409 naming the taxonomies) until the event carries a tag of each required one; off by default", async () => {
    const tlp = await idOf("tlp");
    const pap = await idOf("PAP");
    const before = await sql<{ id: number; enabled: boolean; required: boolean }>("SELECT id, enabled, required FROM taxonomies WHERE id = ANY($1)", [[tlp, pap]]);
    for (const id of [tlp, pap]) expect((await app.http.patch(`/taxonomies/${id}`, { token: admin.token, json: { enabled: true, required: true } })).status).toBe(200);
    try {
      // Off: required taxonomies are only marks.
      const free = (await adminEvent()).body.uuid;
      expect((await publish(free)).status).toBe(200);

      expect((await enforce(true)).status).toBe(200);
      const ev = (await adminEvent()).body.uuid;
      const refused = await publish(ev);
      expect(refused.status, refused.text).toBe(409);
      expect(refused.body.detail).toBe("Publishing needs a tag of each required taxonomy; this event has none of: PAP, tlp");
      // Through an update and at creation too, over REST and GraphQL; nothing changes.
      expect((await app.http.patch(`/events/${ev}`, { token: admin.token, json: { published: true } })).status).toBe(409);
      expect((await adminEvent(true)).status).toBe(409);
      const g = await gql(admin, `mutation($u: String!) { setEventPublished(uuid: $u, published: true) { published } }`, { u: ev });
      expect(g.body.errors?.[0].extensions?.code).toBe("conflict");
      expect((await sql("SELECT published FROM events WHERE uuid = $1", [ev]))[0].published).toBe(false);

      // A tag of the namespace satisfies it, whatever its case; a disabled taxonomy is not required.
      expect((await app.http.post(`/events/${ev}/tag/TLP:amber`, { token: admin.token })).status).toBe(201);
      expect((await publish(ev)).body.detail).toBe("Publishing needs a tag of each required taxonomy; this event has none of: PAP");
      await app.http.patch(`/taxonomies/${pap}`, { token: admin.token, json: { enabled: false } });
      expect((await publish(ev)).status).toBe(200);
      // Unpublishing is always allowed.
      expect((await app.http.post(`/events/${ev}/unpublish`, { token: admin.token })).status).toBe(200);
    } finally {
      await enforce(false);
      for (const t of before) await app.http.patch(`/taxonomies/${t.id}`, { token: admin.token, json: { enabled: t.enabled, required: t.required } });
    }
  });

  it("refuses a bad setting value (422), keeping the old one", async () => {
    const bad = await app.http.post("/settings/runtime/taxonomies", { token: admin.token, json: { enforce_required: "yes" } });
    expect(bad.status).toBe(422);
    expect((await app.http.post("/settings/runtime/taxonomies", { token: admin.token, json: { enforce_required: true, extra: 1 } })).status).toBe(422);
    expect((await app.http.get("/settings/runtime/taxonomies", { token: admin.token })).body).toEqual({ taxonomies: { enforce_required: false } });
  });
});

describe("machine tags and tag suggestions", () => {
  const suggest = (u: TestUser, text: string, limit?: number) =>
    gql(u, "query($t: String!, $l: Int) { tagSuggestions(text: $t, limit: $l) { tagId name colour taxonomy expanded numericalValue machineTag { namespace predicate value } } }", { t: text, l: limit ?? 20 });

  it("suggests enabled taxonomies' tags by the start of the name, predicate or value, with their meaning", async () => {
    const estimative = await idOf("estimative-language");
    expect((await app.http.patch(`/taxonomies/${estimative}`, { token: admin.token, json: { enabled: true } })).status).toBe(200);
    const byPredicate = (await suggest(user, "amb")).body.data.tagSuggestions;
    const amber = byPredicate.find((s: any) => s.name === "tlp:amber");
    expect(amber).toMatchObject({ taxonomy: "tlp", machineTag: { namespace: "tlp", predicate: "amber", value: null } });
    expect(amber.expanded).toMatch(/amber/i);
    const byName = (await suggest(user, "TLP:")).body.data.tagSuggestions.map((s: any) => s.name);
    expect(byName).toEqual(expect.arrayContaining(["tlp:red", "tlp:amber", "tlp:green", "tlp:clear"]));
    const byValue = (await suggest(user, "almost-cert")).body.data.tagSuggestions;
    expect(byValue.map((s: any) => s.name)).toContain('estimative-language:likelihood-probability="almost-certain"');
    const certain = byValue.find((s: any) => s.name === 'estimative-language:likelihood-probability="almost-certain"');
    expect(certain).toMatchObject({ taxonomy: "estimative-language", numericalValue: 95, machineTag: { predicate: "likelihood-probability", value: "almost-certain" } });
    // The limit holds; % and _ are literal.
    expect((await suggest(user, "tlp:", 2)).body.data.tagSuggestions).toHaveLength(2);
    expect((await suggest(user, "%")).body.data.tagSuggestions).toEqual([]);
    // Disabled, a taxonomy's tags are hidden: no longer suggested.
    await app.http.patch(`/taxonomies/${estimative}`, { token: admin.token, json: { enabled: false } });
    expect((await suggest(user, "almost-cert")).body.data.tagSuggestions).toEqual([]);
  });

  it("leaves out hidden tags and tags restricted to another organisation or user; administrators see all", async () => {
    const own = await app.http.post("/tags/", { token: admin.token, json: { name: "sugg-restricted:x", org_id: admin.orgId } });
    expect(own.status, own.text).toBe(201);
    await app.http.post("/tags/", { token: admin.token, json: { name: "sugg-hidden:x", hide_tag: true } });
    const otherOrg = await app.http.post("/organisations/", { token: admin.token, json: { name: `sugg-${crypto.randomBytes(3).toString("hex")}` } });
    const outsider = await createUser(app, admin, 3, otherOrg.body.id);
    expect((await suggest(outsider, "sugg-")).body.data.tagSuggestions).toEqual([]);
    expect((await suggest(admin, "sugg-")).body.data.tagSuggestions.map((s: any) => s.name)).toEqual(["sugg-restricted:x"]);
  });

  it("parses machine tags on Tag, and plain tags are null", async () => {
    await app.http.post("/tags/", { token: admin.token, json: { name: "plain tag" } });
    const res = await gql(user, '{ tags(filter: "plain tag") { items { name machineTag { namespace } } } }');
    expect(res.body.data.tags.items).toEqual([{ name: "plain tag", machineTag: null }]);
    const tlp = await gql(user, '{ tags(filter: "tlp:green") { items { name machineTag { namespace predicate value } } } }');
    expect(tlp.body.data.tags.items[0]).toEqual({ name: "tlp:green", machineTag: { namespace: "tlp", predicate: "green", value: null } });
  });

  it("parses machine tags on the tags attached to events and attributes (REST), plain tags null", async () => {
    const ev = await newEvent();
    const attr = await newAttribute(ev);
    const valued = 'admiralty-scale:source-reliability="b"';
    for (const name of ["tlp:green", valued, "plain tag"]) {
      expect((await app.http.post(`/events/${ev}/tag/${encodeURIComponent(name)}`, { token: user.token })).status).toBe(201);
      expect((await app.http.post(`/attributes/${attr}/tag/${encodeURIComponent(name)}`, { token: user.token })).status).toBe(201);
    }
    const expected = {
      "tlp:green": { namespace: "tlp", predicate: "green", value: null },
      [valued]: { namespace: "admiralty-scale", predicate: "source-reliability", value: "b" },
      "plain tag": null,
    };
    const machineTags = (tags: { name: string; machine_tag: unknown }[]) => Object.fromEntries(tags.map((t) => [t.name, t.machine_tag]));
    expect(machineTags((await app.http.get(`/events/${ev}`, { token: user.token })).body.tags)).toEqual(expected);
    expect(machineTags((await app.http.get(`/attributes/${attr}`, { token: user.token })).body.tags)).toEqual(expected);
  });

  it("answers bad input with validation_error: empty, too long, NUL, limit out of range", async () => {
    for (const [text, limit] of [["", 20], ["x".repeat(256), 20], ["a\u0000b", 20], ["tlp", 0], ["tlp", 101]] as const) {
      const res = await suggest(user, text, limit);
      expect(res.body.errors?.[0].extensions?.code, `${JSON.stringify(text).slice(0, 20)} ${limit}`).toBe("validation_error");
    }
  });

  it("get_tags suggests over MCP (suggest_for), and refuses bad text as a tool error", async () => {
    const clients: Client[] = [];
    try {
      const mcp = await connectMcp(app.url, admin.token, clients);
      const out = await toolOk(mcp, "get_tags", { suggest_for: "amber" });
      const amber = out.suggestions.find((s: any) => s.name === "tlp:amber");
      expect(amber).toMatchObject({ taxonomy: "tlp", machine_tag: { namespace: "tlp", predicate: "amber", value: null } });
      expect(amber.meaning).toMatch(/amber/i);
      expect(await toolRefused(mcp, "get_tags", { suggest_for: "" })).toBeTruthy();
    } finally {
      await Promise.all(clients.map((c) => c.close()));
    }
  });
});

describe("hostile inputs: 4xx, never 500", () => {
  it("bad ids, NUL bytes, unknown fields and bad types", async () => {
    const t = { token: admin.token };
    expect((await app.http.get("/taxonomies/999999999", t)).status).toBe(404);
    expect((await app.http.get("/taxonomies/99999999999999999999", t)).status).toBe(422);
    expect((await app.http.get("/taxonomies/not-an-id", t)).status).toBe(422);
    expect((await app.http.get("/taxonomies/00000000-0000-4000-8000-000000000000", t)).status).toBe(404);
    expect((await app.http.get("/taxonomies/?filter=a%00b", t)).status).toBe(422);
    expect((await app.http.get("/taxonomies/?size=0", t)).status).toBe(422);
    expect((await app.http.get("/taxonomies/?enabled=maybe", t)).status).toBe(422);
    expect((await app.http.patch("/taxonomies/999999999", { ...t, json: { enabled: true } })).status).toBe(404);
    const id = await idOf("PAP");
    const unknown = await app.http.patch(`/taxonomies/${id}`, { ...t, json: { enabled: true, exclusive: true } });
    expect(unknown.status, unknown.text).toBe(422);
    expect(unknown.body.detail[0].loc[0]).toBe("body");
    expect((await app.http.patch(`/taxonomies/${id}`, { ...t, json: { enabled: "yes" } })).status).toBe(422);
    expect((await app.http.patch(`/taxonomies/${id}`, { ...t, json: { enabled: null } })).status).toBe(422);
    expect((await sql("SELECT enabled FROM taxonomies WHERE id = $1", [id]))[0].enabled).toBe(false);
    const g = await gql(admin, `{ taxonomy(uuid: "nope") { id } }`);
    expect(g.body.errors?.[0].extensions?.code).toBe("validation_error");
    const g2 = await gql(admin, `{ taxonomies(filter: "a\\u0000b") { total } }`);
    expect(g2.body.errors?.[0].extensions?.code).toBe("validation_error");
    const ev = await newEvent();
    expect((await app.http.post(`/events/${ev}/tag/${encodeURIComponent("tlp:gr\u0000een")}`, { token: user.token })).status).toBeLessThan(500);
  });
});

describe("URL source and bounded SQL", () => {
  it("imports from a URL listed by MANIFEST.json (served from the shared data, read in place)", async () => {
    const server = http.createServer((req, res) => {
      const rel = decodeURIComponent((req.url ?? "/").split("?")[0]).replace(/^\/+/, "");
      const file = path.join(TAXONOMY_DATA, rel);
      if (rel.includes("..") || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { "content-type": "application/json" }).end(fs.readFileSync(file));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as { port: number }).port;
    const other = await startTestApp("taxonomies-url", { TAXONOMIES_SOURCE: `http://127.0.0.1:${port}/` });
    try {
      const otherAdmin = await loginAdmin(other);
      const res = await other.http.post("/taxonomies/update", { token: otherAdmin.token });
      expect(res.status, res.text).toBe(200);
      // MANIFEST.json lists 182 of the 183 directories: a URL source imports what it lists.
      const listed = JSON.parse(fs.readFileSync(path.join(TAXONOMY_DATA, "MANIFEST.json"), "utf8")).taxonomies.length;
      expect(res.body).toMatchObject({ taxonomies: listed, taxonomies_created: listed });
      const tlp = await other.http.get("/taxonomies/?filter=tlp", { token: otherAdmin.token });
      expect(tlp.body.items.map((t: any) => t.namespace)).toContain("tlp");
    } finally {
      await other.close();
      server.close();
    }
  });

  it("a GraphQL page of taxonomies with predicates, entries and counts takes as many statements for 2 as for 20", async () => {
    const query = `query($size: Int) { taxonomies(size: $size) { total items { namespace predicateCount predicates { tagName colour entryCount entries { tagName numericalValue } } } } }`;
    const counted = async (size: number) => {
      const counter = countStatements();
      try {
        const res = await gql(user, query, { size });
        expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
        expect(res.body.data.taxonomies.items).toHaveLength(size);
        return counter.count;
      } finally {
        counter.stop();
      }
    };
    const two = await counted(2);
    const twenty = await counted(20);
    console.log(`GraphQL taxonomies page: ${two} statements for 2, ${twenty} for 20`);
    expect(twenty).toBe(two);
    expect(two).toBeLessThanOrEqual(8);
  });
});
