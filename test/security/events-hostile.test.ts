import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { createUser, loginAdmin, type TestUser } from "../support/fixtures.ts";

/**
 * Hostile input to `POST /events/import` (MISP JSON), through HTTP against the real service. Each
 * case must give a clear 4xx with the JSON error body `{detail, code}`, and write NOTHING: every
 * table an import touches is counted before and after (one transaction per request).
 */

type Json = Record<string, any>;

let app: TestApp;
let admin: TestUser;
let user: TestUser;

beforeAll(async () => {
  app = await startTestApp("events-hostile");
  admin = await loginAdmin(app);
  user = await createUser(app, admin, 3);
});
afterAll(() => app?.close());

const sql = (text: string, params: unknown[] = []) => app.booted.ctx.db.pool.query(text, params);
const TABLES = ["events", "attributes", "objects", "object_references", "event_tags", "attribute_tags", "sightings", "tags", "organisations", "change_records"];

async function snapshot(): Promise<Record<string, number>> {
  const { rows } = await sql(
    `SELECT ${TABLES.map((t) => `(SELECT count(*)::int FROM ${t}) AS ${t}`).join(", ")},
            (SELECT count(*)::int FROM graphile_worker._private_jobs) AS jobs`,
  );
  return rows[0];
}

const uuid = () => crypto.randomUUID();
const now = () => Math.floor(Date.now() / 1000);

function event(attributes: Json[] = [{ type: "ip-dst", value: "198.51.100.1" }], extra: Json = {}): Json {
  return {
    Event: {
      uuid: uuid(),
      info: `hostile ${crypto.randomBytes(3).toString("hex")}`,
      date: "2024-05-01",
      threat_level_id: "2",
      analysis: "1",
      timestamp: String(now()),
      Attribute: attributes.map((a) => ({ uuid: uuid(), category: undefined, timestamp: String(now()), ...a })),
      ...extra,
    },
  };
}

async function post(body: string, contentType = "application/json", query = "") {
  return app.http.post(`/events/import${query}`, { token: user.token, body, contentType });
}
const postJson = (doc: unknown, query = "") => post(JSON.stringify(doc), "application/json", query);

/** The answer is a clear 4xx with our JSON error body, no internals, and nothing was written. */
async function expectRejected(send: () => Promise<{ status: number; text: string; body: any; headers: Headers }>, status: number, code?: string) {
  const before = await snapshot();
  const res = await send();
  expect(res.status, res.text.slice(0, 500)).toBe(status);
  expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  expect(res.body).toEqual({ detail: expect.anything(), code: code ?? expect.any(String) });
  expect(res.text).not.toMatch(/\bat [\w.<>]+ \(|node_modules|SELECT |INSERT |violates/);
  expect(await snapshot()).toEqual(before);
  return res;
}

const locs = (res: { body: any }) => (res.body.detail as { loc: (string | number)[] }[]).map((d) => d.loc.join("."));

describe("invalid attributes", () => {
  it.each([
    ["an unknown attribute type", { type: "no-such-type", value: "x" }, "type"],
    ["ip-dst 999.1.1.1", { type: "ip-dst", value: "999.1.1.1" }, "value"],
    ["a 31-character md5", { type: "md5", value: "d41d8cd98f00b204e9800998ecf8427" }, "value"],
    ["a category the type does not allow", { type: "md5", value: "d41d8cd98f00b204e9800998ecf8427e", category: "Network activity" }, "category"],
    ["a value that is an object", { type: "text", value: { a: 1 } }, "value"],
    ["to_ids that is not a boolean", { type: "ip-dst", value: "198.51.100.2", to_ids: "maybe" }, "to_ids"],
    ["distribution 9", { type: "ip-dst", value: "198.51.100.2", distribution: "9" }, "distribution"],
    ["a negative timestamp", { type: "ip-dst", value: "198.51.100.2", timestamp: "-5" }, "timestamp"],
    ["first_seen that is not a time", { type: "ip-dst", value: "198.51.100.2", first_seen: "yesterday-ish" }, "first_seen"],
    ["first_seen beyond the database's range", { type: "ip-dst", value: "198.51.100.2", first_seen: "-100000-01-01T00:00:00Z" }, "first_seen"],
  ])("%s: 422 naming the field, nothing written", async (_name, attribute, field) => {
    const doc = event([{ type: "domain", value: "ok.example.com" }, attribute]);
    const res = await expectRejected(() => postJson(doc), 422, "validation_error");
    expect(locs(res)).toContain(`body.Event.Attribute.1.${field}`);
  });

  it("reports every problem of the event at once, not only the first", async () => {
    const doc = event([
      { type: "ip-dst", value: "999.1.1.1" },
      { type: "md5", value: "abc" },
      { type: "bogus", value: "x" },
    ]);
    const res = await expectRejected(() => postJson(doc), 422, "validation_error");
    expect(locs(res)).toEqual(["body.Event.Attribute.0.value", "body.Event.Attribute.1.value", "body.Event.Attribute.2.type"]);
  });

  it("with on_invalid=skip stores the valid ones and lists the dropped ones", async () => {
    const doc = event([
      { type: "ip-dst", value: "999.1.1.1" },
      { type: "domain", value: "Kept.Example.COM" },
    ]);
    const res = await postJson(doc, "?on_invalid=skip");
    expect(res.status, res.text).toBe(201);
    expect(res.body.import.attributes.created).toBe(1);
    expect(res.body.import.skipped.map((s: { loc: unknown[] }) => s.loc.join("."))).toEqual(["body.Event.Attribute.0.value"]);
    const stored = await sql("SELECT value FROM attributes a JOIN events e ON e.id = a.event_id WHERE e.uuid = $1", [doc.Event.uuid]);
    expect(stored.rows).toEqual([{ value: "kept.example.com" }]);
  });

  it("rejects an unknown on_invalid mode", async () => {
    await expectRejected(() => postJson(event(), "?on_invalid=maybe"), 422, "validation_error");
  });
});

describe("uuids", () => {
  it.each([
    ["an invalid event uuid", (d: Json) => (d.Event.uuid = "not-a-uuid"), "body.Event.uuid"],
    ["a numeric event uuid", (d: Json) => (d.Event.uuid = 12345), "body.Event.uuid"],
    ["an invalid attribute uuid", (d: Json) => (d.Event.Attribute[0].uuid = "5a3c2fcd-8328-42bb-a95e-4f4402de0b8"), "body.Event.Attribute.0.uuid"],
    ["an attribute uuid with a SQL payload", (d: Json) => (d.Event.Attribute[0].uuid = "'); DROP TABLE attributes; --"), "body.Event.Attribute.0.uuid"],
    [
      "an invalid object uuid",
      (d: Json) => (d.Event.Object = [{ uuid: "zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz", name: "file", Attribute: [] }]),
      "body.Event.Object.0.uuid",
    ],
    [
      "an invalid referenced_uuid",
      (d: Json) =>
        (d.Event.Object = [
          { uuid: uuid(), name: "domain-ip", Attribute: [], ObjectReference: [{ uuid: uuid(), referenced_uuid: "nope", relationship_type: "related-to" }] },
        ]),
      "body.Event.Object.0.ObjectReference.0.referenced_uuid",
    ],
    ["a missing attribute uuid", (d: Json) => delete d.Event.Attribute[0].uuid, "body.Event.Attribute.0.uuid"],
  ])("%s: 422", async (_name, mutate, loc) => {
    const doc = event();
    mutate(doc);
    const res = await expectRejected(() => postJson(doc), 422, "validation_error");
    expect(locs(res)).toContain(loc);
  });

  it.each([
    ["two attributes", (d: Json, u: string) => d.Event.Attribute.push({ uuid: u, type: "domain", value: "b.example.com" })],
    ["two attributes, differing only in case", (d: Json, u: string) => d.Event.Attribute.push({ uuid: u.toUpperCase(), type: "domain", value: "b.example.com" })],
    ["an attribute and an object", (d: Json, u: string) => (d.Event.Object = [{ uuid: u, name: "file", Attribute: [] }])],
    [
      "a standalone attribute and an object attribute",
      (d: Json, u: string) => (d.Event.Object = [{ uuid: uuid(), name: "file", Attribute: [{ uuid: u, type: "filename", value: "a.exe", object_relation: "filename" }] }]),
    ],
  ])("a uuid used twice inside one event (%s): 422", async (_name, mutate) => {
    const doc = event([{ type: "ip-dst", value: "198.51.100.3" }]);
    mutate(doc, doc.Event.Attribute[0].uuid);
    const res = await expectRejected(() => postJson(doc), 422, "validation_error");
    expect(JSON.stringify(res.body.detail)).toContain("Duplicate uuid");
  });

  it("an attribute uuid that belongs to another event: 409, and the new event is not created", async () => {
    const first = event([{ type: "ip-dst", value: "198.51.100.4" }]);
    expect((await postJson(first)).status).toBe(201);
    const taken = first.Event.Attribute[0].uuid;
    const second = event([{ type: "domain", value: "new.example.com" }, { uuid: taken, type: "ip-dst", value: "198.51.100.5" }]);
    const res = await expectRejected(() => postJson(second), 409, "conflict");
    expect(res.body.detail).toContain(taken);
    expect((await app.http.get(`/events/${second.Event.uuid}`, { token: user.token })).status).toBe(404);
    // The first event's attribute is untouched.
    expect((await sql("SELECT value FROM attributes WHERE uuid = $1", [taken])).rows).toEqual([{ value: "198.51.100.4" }]);
  });

  it("an object uuid that belongs to another event: 409", async () => {
    const objectUuid = uuid();
    const first = event([], { Object: [{ uuid: objectUuid, name: "file", Attribute: [{ uuid: uuid(), type: "filename", value: "x.exe", object_relation: "filename" }] }] });
    expect((await postJson(first)).status).toBe(201);
    const second = event([], { Object: [{ uuid: objectUuid, name: "file", Attribute: [{ uuid: uuid(), type: "filename", value: "y.exe", object_relation: "filename" }] }] });
    await expectRejected(() => postJson(second), 409, "conflict");
  });
});

describe("bodies", () => {
  it("non-JSON with application/json: 400", async () => {
    await expectRejected(() => post("{\"Event\": {\"info\": 'single quotes'}}"), 400);
    await expectRejected(() => post("{\"Event\": "), 400);
  });

  it("an empty body: 400", async () => {
    await expectRejected(() => post(""), 400);
  });

  it.each([
    ["null", "null"],
    ["an array", "[]"],
    ["a string", "\"Event\""],
    ["a number", "42"],
    ["Event as a list", JSON.stringify({ Event: [] })],
    ["attributes as an object", JSON.stringify({ Event: { uuid: uuid(), info: "x", Attribute: { type: "ip-dst" } } })],
    ["attributes as numbers", JSON.stringify({ Event: { uuid: uuid(), info: "x", Attribute: [1, 2] } })],
    ["a missing info", JSON.stringify({ Event: { uuid: uuid(), Attribute: [] } })],
    ["an impossible date", JSON.stringify({ Event: { uuid: uuid(), info: "x", date: "2021-02-29" } })],
    ["year zero", JSON.stringify({ Event: { uuid: uuid(), info: "x", date: "0000-01-01" } })],
    ["threat level 9", JSON.stringify({ Event: { uuid: uuid(), info: "x", threat_level_id: "9" } })],
  ])("%s: 422", async (_name, body) => {
    await expectRejected(() => post(body), 422, "validation_error");
  });

  it.each([
    ["text/plain", "text/plain"],
    ["application/xml", "application/xml"],
    ["form-encoded", "application/x-www-form-urlencoded"],
    ["multipart", "multipart/form-data; boundary=x"],
  ])("a %s body: 415", async (_name, type) => {
    await expectRejected(() => post(JSON.stringify(event()), type), 415, "unsupported_media_type");
  });

  it("unknown fields: 422 naming them", async () => {
    const doc = event([{ type: "ip-dst", value: "198.51.100.6", todo_ids: true }], { infos: "typo" });
    const res = await expectRejected(() => postJson(doc), 422, "validation_error");
    expect(locs(res)).toEqual(expect.arrayContaining(["body.Event.infos", "body.Event.Attribute.0.todo_ids"]));
    expect(res.body.detail[0]).toMatchObject({ type: "extra_forbidden", msg: "Unknown field" });
  });

  it.each([
    ["beside Event", (d: Json) => (d.Extra = 1), "body.Extra"],
    ["in the creator organisation", (d: Json) => (d.Event.Orgc = { name: "Org", sector: "x", colour: "red" }), "body.Event.Orgc.colour"],
    ["in a tag", (d: Json) => (d.Event.Tag = [{ name: "tlp:green", color: "#00ff00" }]), "body.Event.Tag.0.color"],
    ["in an object", (d: Json) => (d.Event.Object = [{ uuid: uuid(), name: "file", Attributes: [] }]), "body.Event.Object.0.Attributes"],
    [
      "in a reference",
      (d: Json) => (d.Event.Object = [{ uuid: uuid(), name: "file", ObjectReference: [{ uuid: uuid(), referenced_uuid: uuid(), relationship_type: "x", weight: 1 }] }]),
      "body.Event.Object.0.ObjectReference.0.weight",
    ],
    ["in a sighting", (d: Json) => (d.Event.Attribute[0].Sighting = [{ uuid: uuid(), type: "0", evil: true }]), "body.Event.Attribute.0.Sighting.0.evil"],
  ])("an unknown field %s: 422 naming it", async (_name, mutate, loc) => {
    const doc = event();
    mutate(doc);
    const res = await expectRejected(() => postJson(doc), 422, "validation_error");
    expect(locs(res)).toContain(loc);
  });

  it("MISP fields we do not keep are accepted and ignored (id, Org, RelatedEvent, ShadowAttribute, attribute_count)", async () => {
    const doc = event([{ type: "ip-dst", value: "198.51.100.8", id: "17", event_id: "3", ShadowAttribute: [] }], {
      id: "3",
      org_id: "9",
      Org: { id: "9", name: "Somebody", uuid: uuid() },
      RelatedEvent: [{ Event: { id: "1", uuid: uuid(), info: "other" } }],
      attribute_count: "1",
      Galaxy: [{ name: "path C:\\u0000dir is text, not a NUL", GalaxyCluster: [] }],
    });
    const res = await postJson(doc);
    expect(res.status, res.text.slice(0, 500)).toBe(201);
    expect(res.body.org_id).toBe(user.orgId);
  });

  it.each([
    ["at the top", "{\"__proto__\": {\"isAdmin\": true}, \"Event\": {\"info\": \"x\"}}"],
    ["inside the event", "{\"Event\": {\"info\": \"x\", \"__proto__\": {\"distribution\": 3}}}"],
    ["inside an attribute", "{\"Event\": {\"info\": \"x\", \"Attribute\": [{\"type\": \"ip-dst\", \"value\": \"198.51.100.7\", \"__proto__\": {\"to_ids\": true}}]}}"],
  ])("a __proto__ key %s: 400", async (_name, body) => {
    await expectRejected(() => post(body), 400);
  });

  it.each([
    ["info", (d: Json) => (d.Event.info = "bad\u0000info"), "body.Event.info"],
    ["an attribute value", (d: Json) => (d.Event.Attribute[0] = { uuid: uuid(), type: "text", value: "a\u0000b" }), "body.Event.Attribute.0.value"],
    ["a comment", (d: Json) => (d.Event.Attribute[0].comment = "x\u0000"), "body.Event.Attribute.0.comment"],
    ["a tag name", (d: Json) => (d.Event.Tag = [{ name: "tlp:\u0000white" }]), "body.Event.Tag.0.name"],
    ["the creator organisation", (d: Json) => (d.Event.Orgc = { name: "Evil\u0000Org" }), "body.Event.Orgc.name"],
    ["an object name", (d: Json) => (d.Event.Object = [{ uuid: uuid(), name: "fi\u0000le", Attribute: [] }]), "body.Event.Object.0.name"],
    ["the galaxy block", (d: Json) => (d.Event.Galaxy = [{ name: "ga\u0000laxy", GalaxyCluster: [] }]), "body.Event.Galaxy"],
    ["the galaxy block (an unpaired surrogate)", (d: Json) => (d.Event.Galaxy = [{ name: "ga\ud800laxy" }]), "body.Event.Galaxy"],
    ["a galaxy key", (d: Json) => (d.Event.Galaxy = [{ ["k\u0000"]: 1 }]), "body.Event.Galaxy"],
  ])("a NUL byte in %s: 422", async (_name, mutate, loc) => {
    const doc = event();
    mutate(doc);
    const res = await expectRejected(() => postJson(doc), 422, "validation_error");
    // Refused before the parser by the check every route shares (rest-shim/register.ts), at the exact place.
    expect(locs(res).some((l) => l === loc || l.startsWith(`${loc}.`)), locs(res).join(", ")).toBe(true);
  });

  it.each([
    ["info of 70 000 characters", (d: Json) => (d.Event.info = "i".repeat(70_000)), "body.Event.info"],
    ["a value of 200 000 characters", (d: Json) => (d.Event.Attribute[0] = { uuid: uuid(), type: "text", value: "v".repeat(200_000) }), "body.Event.Attribute.0.value"],
    ["a comment of 70 000 characters", (d: Json) => (d.Event.Attribute[0].comment = "c".repeat(70_000)), "body.Event.Attribute.0.comment"],
    ["a tag name of 300 characters", (d: Json) => (d.Event.Tag = [{ name: "t".repeat(300) }]), "body.Event.Tag.0.name"],
    ["a uuid of a million characters", (d: Json) => (d.Event.uuid = "u".repeat(1_000_000)), "body.Event.uuid"],
  ])("a huge string (%s): 422 with a short answer", async (_name, mutate, loc) => {
    const doc = event();
    mutate(doc);
    const res = await expectRejected(() => postJson(doc), 422, "validation_error");
    expect(locs(res)).toContain(loc);
    expect(res.text.length).toBeLessThan(2000);
  });

  it("a 50 MB body: 413", async () => {
    const doc = event([{ type: "text", value: "x", comment: "c".repeat(50 * 1024 * 1024) }]);
    await expectRejected(() => postJson(doc), 413, "payload_too_large");
  });

  it.each([
    ["the whole body", (deep: string) => deep],
    ["the galaxy block", (deep: string) => `{"Event": {"uuid": "${uuid()}", "info": "x", "Galaxy": ${deep}}}`],
    ["an attribute value", (deep: string) => `{"Event": {"uuid": "${uuid()}", "info": "x", "Attribute": [{"uuid": "${uuid()}", "type": "text", "value": ${deep}}]}}`],
    ["a tag", (deep: string) => `{"Event": {"uuid": "${uuid()}", "info": "x", "Tag": [{"name": ${deep}}]}}`],
    ["an unknown field", (deep: string) => `{"Event": {"uuid": "${uuid()}", "info": "x", "nested": ${deep}}}`],
  ])("100 000 nested arrays in %s: 4xx, and the service still answers", async (_name, wrap) => {
    const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
    const res = await expectRejected(() => post(wrap(deep)), 413, "payload_too_large");
    expect(res.text.length).toBeLessThan(5000);
    expect((await app.http.get("/healthz")).status).toBe(200);
  });

  it("100 000 nested objects in the galaxy block: 4xx, and the service still answers", async () => {
    const deep = `${"{\"a\":".repeat(100_000)}1${"}".repeat(100_000)}`;
    await expectRejected(() => post(`{"Event": {"uuid": "${uuid()}", "info": "x", "Galaxy": [${deep}]}}`), 413, "payload_too_large");
    expect((await app.http.get("/healthz")).status).toBe(200);
  });
});

describe("an event of 100 000 attributes", () => {
  /** Real-looking, distinct values of the common indicator types, some in objects, some tagged. */
  function bigEvent(n: number): Json {
    const rnd = crypto.randomBytes(n * 4);
    const words = ["update", "cdn", "login", "secure", "mail", "files", "api", "portal", "cloud", "static", "auth", "docs"];
    const tlds = ["com", "net", "org", "info", "io", "ru", "xyz", "top"];
    const hex = (len: number, i: number) => crypto.createHash("sha512").update(`${i}`).digest("hex").repeat(2).slice(0, len);
    const ts = String(now() - 3600);
    const attrs: Json[] = [];
    for (let i = 0; i < n; i++) {
      const b = rnd.readUInt32BE(i * 4);
      const word = `${words[b % words.length]}${i}`;
      const tld = tlds[(b >>> 8) % tlds.length];
      let a: Json;
      switch (i % 8) {
        case 0: a = { type: "ip-dst", category: "Network activity", value: `${11 + (b % 200)}.${(b >>> 8) & 255}.${(b >>> 16) & 255}.${i % 250}` }; break;
        case 1: a = { type: "domain", category: "Network activity", value: `${word}.example-${(b >>> 4) % 997}.${tld}` }; break;
        case 2: a = { type: "url", category: "Network activity", value: `https://${word}.${tld}/${hex(12, i)}/index.php?id=${b}` }; break;
        case 3: a = { type: "md5", category: "Payload delivery", value: hex(32, i).toUpperCase() }; break;
        case 4: a = { type: "sha256", category: "Payload delivery", value: hex(64, i) }; break;
        case 5: a = { type: "email-src", category: "Payload delivery", value: `${word}@mail-${(b >>> 3) % 991}.${tld}` }; break;
        case 6: a = { type: "filename", category: "Payload delivery", value: `${word}_${hex(6, i)}.exe` }; break;
        default: a = { type: "hostname", category: "Network activity", value: `srv-${i}.${word}.${tld}` }; break;
      }
      attrs.push({ uuid: uuid(), timestamp: ts, to_ids: i % 3 !== 0, comment: i % 50 === 0 ? `batch ${i}` : "", ...(i % 1000 === 0 ? { Tag: [{ name: "tlp:green" }] } : {}), ...a });
    }
    // The last 10 000 go into 2 000 file objects of five attributes each.
    const standalone = attrs.slice(0, n - 10_000);
    const objects = [];
    for (let i = n - 10_000, k = 0; i < n; i += 5, k++) {
      objects.push({
        uuid: uuid(),
        name: "file",
        "meta-category": "file",
        timestamp: ts,
        Attribute: [
          { uuid: uuid(), type: "filename", category: "Payload delivery", object_relation: "filename", value: `dropper_${k}.dll`, timestamp: ts },
          { uuid: uuid(), type: "md5", category: "Payload delivery", object_relation: "md5", value: hex(32, i + 1e7), timestamp: ts },
          { uuid: uuid(), type: "sha1", category: "Payload delivery", object_relation: "sha1", value: hex(40, i + 2e7), timestamp: ts },
          { uuid: uuid(), type: "sha256", category: "Payload delivery", object_relation: "sha256", value: hex(64, i + 3e7), timestamp: ts },
          { uuid: uuid(), type: "size-in-bytes", category: "Other", object_relation: "size-in-bytes", value: String(1000 + k), timestamp: ts },
        ],
      });
    }
    return { Event: { uuid: uuid(), info: "100k attributes", date: "2024-06-01", timestamp: ts, threat_level_id: "3", analysis: "2", Tag: [{ name: "tlp:green" }], Attribute: standalone, Object: objects } };
  }

  it("imports in one request, in bulk, with every attribute stored and its change records dispatched", { timeout: 90_000 }, async () => {
    const doc = bigEvent(100_000);
    const body = JSON.stringify(doc);
    expect(body.length).toBeGreaterThan(15_000_000);
    const jobsBefore = (await sql("SELECT count(*)::int AS n FROM graphile_worker._private_jobs")).rows[0].n;
    const changesBefore = Number((await sql("SELECT COALESCE(max(id), 0)::text AS m FROM change_records")).rows[0].m);
    const started = Date.now();
    const res = await post(body);
    const ms = Date.now() - started;
    expect(res.status, res.text.slice(0, 500)).toBe(201);
    expect(res.body.import.attributes).toEqual({ created: 100_000, updated: 0, unchanged: 0 });
    expect(res.body.import.objects.created).toBe(2000);
    const counted = await sql(
      `SELECT count(*)::int AS attributes, count(*) FILTER (WHERE a.object_id IS NOT NULL)::int AS in_objects, count(DISTINCT a.type)::int AS types
         FROM attributes a JOIN events e ON e.id = a.event_id WHERE e.uuid = $1`,
      [doc.Event.uuid],
    );
    expect(counted.rows[0]).toEqual({ attributes: 100_000, in_objects: 10_000, types: 10 });
    // Normalised as validation returns it (md5 lower-cased).
    const md5 = doc.Event.Attribute[3];
    expect((await sql("SELECT value FROM attributes WHERE uuid = $1", [md5.uuid])).rows[0].value).toBe(md5.value.toLowerCase());
    // 1 event + 2 000 objects + 100 000 attributes = 102 001 change records in 21 ranges of at most 5 000.
    const changes = (await sql("SELECT count(*)::int AS n FROM change_records WHERE id > $1", [changesBefore])).rows[0].n;
    expect(changes).toBe(102_001);
    // Each range queues its three consumers (index, correlate, notify) in the import's transaction.
    const jobs = (await sql("SELECT count(*)::int AS n FROM graphile_worker._private_jobs")).rows[0].n;
    expect(jobs - jobsBefore).toBe(3 * Math.ceil(102_001 / 5000));
    expect(ms).toBeLessThan(60_000);
  });
});
