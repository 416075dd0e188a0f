import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { createOrganisation, createUser, loginAdmin, type TestUser } from "../support/fixtures.ts";

let app: TestApp;
let admin: TestUser;
let owner: TestUser;
let foreign: TestUser;

beforeAll(async () => {
  app = await startTestApp("sightings");
  admin = await loginAdmin(app);
  owner = await createUser(app, admin, 3);
  foreign = await createUser(app, admin, 3, await createOrganisation(app, admin));
});
afterAll(() => app?.close());

const sql = (text: string, params: unknown[] = []) => app.booted.ctx.db.pool.query(text, params);

async function newEvent(user: TestUser, distribution = 0): Promise<string> {
  const res = await app.http.post("/events/", { token: user.token, json: { info: `ev-${crypto.randomBytes(4).toString("hex")}`, distribution } });
  expect(res.status, res.text).toBe(201);
  return res.body.uuid;
}

async function attr(user: TestUser, eventUuid: string, type: string, value: string): Promise<string> {
  const res = await app.http.post("/attributes/", { token: user.token, json: { event_uuid: eventUuid, type, value } });
  expect(res.status, res.text).toBe(201);
  return res.body.uuid;
}

const sightingsOf = async (attributeUuid: string) =>
  (
    await sql(
      `SELECT s.type, s.source, s.org_id, s.date_sighting::int AS ts, e.uuid::text AS event_uuid
         FROM sightings s JOIN attributes a ON a.id = s.attribute_id JOIN events e ON e.id = s.event_id WHERE a.uuid = $1 ORDER BY s.id`,
      [attributeUuid],
    )
  ).rows;

const randomIp = () => `10.${crypto.randomInt(255)}.${crypto.randomInt(255)}.${crypto.randomInt(1, 255)}`;

describe("POST /sightings/ by value", () => {
  it("sights every readable live attribute with that value across events, once each, with the caller's organisation", async () => {
    const ip = randomIp();
    const md5 = crypto.randomBytes(16).toString("hex");
    const evA = await newEvent(owner);
    const evB = await newEvent(owner);
    const a1 = await attr(owner, evA, "ip-dst", ip);
    const a2 = await attr(owner, evB, "ip-src", ip);
    const composite = await attr(owner, evB, "ip-dst|port", `${ip}|443`);
    const deleted = await attr(owner, evA, "ip-dst", ip);
    await app.http.delete(`/attributes/${deleted}`, { token: owner.token });
    const hidden = await attr(foreign, await newEvent(foreign, 0), "ip-dst", ip);
    const visible = await attr(foreign, await newEvent(foreign, 3), "ip-dst", ip);
    const hashed = await attr(owner, evA, "filename|md5", `a.exe|${md5}`);

    const res = await app.http.post("/sightings/", { token: owner.token, json: { value: ` ${ip} `, timestamp: 1_700_000_000.75, source: "sensor-1" } });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toEqual({ result: "Sighting created successfully", created: 4, capped: false });
    for (const uuid of [a1, a2, composite, visible]) {
      expect(await sightingsOf(uuid)).toEqual([expect.objectContaining({ type: 0, source: "sensor-1", org_id: owner.orgId, ts: 1_700_000_000 })]);
    }
    expect(await sightingsOf(deleted)).toEqual([]);
    expect(await sightingsOf(hidden)).toEqual([]);
    expect(Number((await sql("SELECT sighting_timestamp FROM events WHERE uuid = $1", [evA])).rows[0].sighting_timestamp)).toBe(1_700_000_000);

    const rec = (
      await sql(
        `SELECT c.kind, c.entity_type, c.event_uuid::text, c.payload FROM change_records c JOIN sightings s ON s.uuid = c.entity_uuid
           JOIN attributes a ON a.id = s.attribute_id WHERE a.uuid = $1`,
        [a1],
      )
    ).rows;
    const org = (await sql("SELECT name FROM organisations WHERE id = $1", [owner.orgId])).rows[0].name;
    expect(rec).toEqual([
      {
        kind: "sighting.created",
        entity_type: "sighting",
        event_uuid: evA,
        payload: { attribute_uuid: a1, sighting_type: "sighting", value: ip, organisation: org, timestamp: 1_700_000_000 },
      },
    ]);

    const byHalf = await app.http.post("/sightings/", { token: owner.token, json: { value: md5, type: "false-positive" } });
    expect(byHalf.body.created).toBe(1);
    expect(await sightingsOf(hashed)).toEqual([expect.objectContaining({ type: 1 })]);
  });

  it("accepts MISP codes and the peer's names for the type, and refuses others", async () => {
    const ip = randomIp();
    const a = await attr(owner, await newEvent(owner), "ip-dst", ip);
    for (const type of [0, "1", 2, "positive", "negative", "expiration", "sighting"]) {
      expect((await app.http.post("/sightings/", { token: owner.token, json: { value: ip, type } })).status).toBe(201);
    }
    expect((await sightingsOf(a)).map((s) => s.type)).toEqual([0, 1, 2, 0, 1, 2, 0]);
    expect((await app.http.post("/sightings/", { token: owner.token, json: { value: ip, type: "maybe" } })).status).toBe(422);
    expect((await app.http.post("/sightings/", { token: owner.token, json: { value: ip, type: 3 } })).status).toBe(422);
  });

  it("caps matches at 1000 attributes per value and 10000 sightings per request", async () => {
    const ev = await newEvent(owner);
    const value = `capped-${crypto.randomBytes(4).toString("hex")}`;
    await sql(
      `INSERT INTO attributes (uuid, event_id, type, category, value, value1, timestamp)
       SELECT gen_random_uuid(), (SELECT id FROM events WHERE uuid = $1), 'text', 'Other', $2, $2, 1 FROM generate_series(1, 1001)`,
      [ev, value],
    );
    const one = await app.http.post("/sightings/", { token: owner.token, json: { value } });
    expect(one.body).toMatchObject({ created: 1000, capped: false });
    const many = await app.http.post("/sightings/", { token: owner.token, json: Array.from({ length: 11 }, () => ({ value })) });
    expect(many.status).toBe(201);
    expect(many.body).toMatchObject({ created: 10_000, capped: true, response: [10_000, []] });
  });

  it("answers 201 with a count of 0 when nothing matches", async () => {
    const res = await app.http.post("/sightings/", { token: owner.token, json: { value: "no-such-value-anywhere" } });
    expect(res.status).toBe(201);
    expect(res.body.created).toBe(0);
  });
});

describe("POST /sightings/ by attribute", () => {
  it("sights only the named attribute; an unreadable one is a 404 and nothing is stored", async () => {
    const ip = randomIp();
    const ev = await newEvent(owner);
    const a = await attr(owner, ev, "ip-dst", ip);
    const b = await attr(owner, ev, "ip-src", ip);
    const hidden = await attr(foreign, await newEvent(foreign, 0), "ip-dst", ip);
    const res = await app.http.post("/sightings/", { token: owner.token, json: { attribute_uuid: a, value: ip } });
    expect(res.body.created).toBe(1);
    expect(await sightingsOf(a)).toHaveLength(1);
    expect(await sightingsOf(b)).toHaveLength(0);
    const noValue = await app.http.post("/sightings/", { token: owner.token, json: { attribute_uuid: a } });
    expect(noValue.status).toBe(201);

    const mixed = await app.http.post("/sightings/", { token: owner.token, json: [{ value: ip }, { attribute_uuid: hidden, value: ip }] });
    expect(mixed.status).toBe(404);
    expect(await sightingsOf(b)).toHaveLength(0);
    const mismatch = await app.http.post("/sightings/", { token: owner.token, json: { attribute_uuid: a, value: "10.255.255.255" } });
    expect(mismatch.status).toBe(422);
    expect((await app.http.post("/sightings/", { token: owner.token, json: { attribute_uuid: "nope", value: ip } })).status).toBe(422);
  });
});

describe("POST /sightings/ arrays and hostile input", () => {
  it("answers arrays as the peer, skipping items with an empty value", async () => {
    const ip = randomIp();
    await attr(owner, await newEvent(owner), "ip-dst", ip);
    const res = await app.http.post("/sightings/", { token: owner.token, json: [{ value: ip }, { value: "" }, { value: ip, type: "expiration" }] });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ result: "Sightings created successfully", response: [2, [{ index: 1, detail: "empty value skipped" }]], created: 2, capped: false });
  });

  it.each([
    ["an empty single value", { value: "" }],
    ["a missing value", { type: "sighting" }],
    ["a NUL byte", { value: "a\u0000b" }],
    ["an unknown field", { value: "x", colour: 1 }],
    ["a negative timestamp", { value: "x", timestamp: -5 }],
    ["a value over 131072 characters", { value: "a".repeat(200_000) }],
    ["1001 items", Array.from({ length: 1001 }, () => ({ value: "x" }))],
    ["a string body", "1.2.3.4"],
  ])("refuses %s with 422", async (_n, json) => {
    const res = await app.http.post("/sightings/", { token: owner.token, json });
    expect(res.status, res.text).toBe(422);
  });

  it("refuses 10 MB with 413", async () => {
    expect((await app.http.post("/sightings/", { token: owner.token, json: { value: "a".repeat(10 * 1024 * 1024) } })).status).toBe(413);
  });
});

describe("GET /sightings/", () => {
  it("answers the P3 envelope with {_id, _source} hits, filtered and limited to readable attributes", async () => {
    const ip = randomIp();
    // A community event of the owner (the foreign organisation sees it) and a restricted foreign one.
    const a = await attr(owner, await newEvent(owner, 3), "ip-dst", ip);
    const hidden = await attr(foreign, await newEvent(foreign, 0), "ip-dst", ip);
    await app.http.post("/sightings/", { token: foreign.token, json: [{ value: ip }, { value: ip, type: 1, source: "honeypot" }] });
    const res = await app.http.get(`/sightings/?attribute_uuid=${a}`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(["max_score", "page", "results", "size", "timed_out", "took", "total"]);
    expect(res.body).toMatchObject({ page: 1, size: 10, total: 2, timed_out: false, max_score: null });
    const foreignOrg = (await sql("SELECT name FROM organisations WHERE id = $1", [foreign.orgId])).rows[0].name;
    expect(res.body.results[0]).toMatchObject({
      _id: expect.any(String),
      _source: { value: ip, type: "false-positive", attribute_uuid: a, observer: { organisation: foreignOrg, source: "honeypot" }, "@timestamp": expect.stringMatching(/Z$/) },
    });
    const typed = await app.http.get(`/sightings/?attribute_uuid=${a}&type=sighting`, { token: owner.token });
    expect(typed.body.total).toBe(1);
    expect((await app.http.get(`/sightings/?attribute_uuid=${hidden}`, { token: owner.token })).body.total).toBe(0);
    expect((await app.http.get(`/sightings/?attribute_uuid=${hidden}`, { token: foreign.token })).body.total).toBe(2);
    for (const q of ["size=0", "size=-1", "size=101", "size=1000001", "page=0", "type=maybe", "attribute_uuid=x"]) {
      expect((await app.http.get(`/sightings/?${q}`, { token: owner.token })).status, q).toBe(422);
    }
  });
});

describe("GraphQL", () => {
  it("records and lists sightings through the same service", async () => {
    const ip = randomIp();
    const a = await attr(owner, await newEvent(owner), "ip-dst", ip);
    const res = await app.http.graphql(`mutation ($v: String!) { createSightings(input: [{value: $v, type: "expiration"}]) { created capped } }`, { v: ip }, owner.token);
    expect(res.body.data.createSightings).toEqual({ created: 1, capped: false });
    const list = await app.http.graphql(`query ($a: String!) { sightings(attributeUuid: $a) { total items { type value attributeUuid } } }`, { a }, owner.token);
    expect(list.body.data.sightings).toEqual({ total: 1, items: [{ type: "expiration", value: ip, attributeUuid: a }] });
  });
});
