/**
 * Timestamps on the MISP-compatible API, as MISP handles them: PyMISP's search_index with
 * timestamp and publish_timestamp (one value, [from, to], a "1d" delta), and events/edit keeping the
 * event timestamp it is given when newer than the stored one, refusing with MISP's "not newer"
 * save failure otherwise (nothing written), stamping now when none is given. Then hostile values.
 */
import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { createOrganisation, createUser, loginAdmin } from "../support/fixtures.ts";
import { pymispScript, runPythonJson } from "../support/pymisp.ts";

const SCRIPT = pymispScript("pymisp_rest_search.py");
const SCOPES = ["events:read", "events:create", "events:update", "events:publish", "attributes:read", "attributes:create", "attributes:update", "users:me"];
const NOT_NEWER = "Event could not be saved: Event in the request not newer than the local copy.";
const HOUR = 3600;
const DAY = 86_400;

type Call = { name: string; method: "search_index"; kwargs: Record<string, unknown> };

const searchIndex = (url: string, key: string, calls: Call[]) =>
  runPythonJson<Record<string, { events?: { uuid: string }[]; errors?: unknown }>>([SCRIPT], { stdin: JSON.stringify({ url, key, calls }) });

const run = crypto.randomBytes(4).toString("hex");
const now = Math.floor(Date.now() / 1000);
let app: TestApp;
let key: string;
let adminToken: string;

const misp = (p: string, json: unknown) => app.http.request("POST", `/misp/${p}`, { authorization: key, json, headers: { accept: "application/json" } });
const view = async (id: string) => (await app.http.request("GET", `/misp/events/view/${id}`, { authorization: key, headers: { accept: "application/json" } })).body.Event;

async function addEvent(info: string, timestamp: number, published = false) {
  const Event = {
    info: `${run} ${info}`, date: "2026-11-20", distribution: "0", threat_level_id: "2", analysis: "1", published, timestamp: String(timestamp),
    publish_timestamp: String(published ? timestamp : 0),
    Attribute: [{ type: "domain", category: "Network activity", value: `${info}-${run}.example.org`, timestamp: String(timestamp) }],
  };
  const res = await misp("events/add", { Event });
  expect(res.status, res.text).toBe(200);
  return res.body.Event as { id: string; uuid: string; timestamp: string; Attribute: { uuid: string; timestamp: string }[] };
}

let old: Awaited<ReturnType<typeof addEvent>>;
let mid: Awaited<ReturnType<typeof addEvent>>;
let recent: Awaited<ReturnType<typeof addEvent>>;

beforeAll(async () => {
  app = await startTestApp("misp-timestamps");
  const admin = await loginAdmin(app);
  adminToken = admin.token;
  const user = await createUser(app, admin, [...SCOPES, "api_keys:create"], await createOrganisation(app, admin));
  const res = await app.http.post("/api-keys/", { token: user.token, json: { name: "ts", scopes: SCOPES } });
  expect(res.status, res.text).toBe(201);
  key = res.body.token;
  old = await addEvent("old", now - 3 * DAY, true);
  mid = await addEvent("mid", now - 2 * HOUR);
  recent = await addEvent("recent", now - 60, true);
}, 120_000);
afterAll(() => app?.close());

describe("events/index by timestamp through PyMISP", () => {
  it("takes events changed at or after a time, within [from, to], or a delta back from now, and by publication", async () => {
    const eventinfo = run;
    const out = await searchIndex(`${app.url}/misp/`, key, [
      { name: "from", method: "search_index", kwargs: { eventinfo, timestamp: now - 2 * HOUR } },
      { name: "range", method: "search_index", kwargs: { eventinfo, timestamp: [now - 4 * DAY, now - 2 * HOUR] } },
      { name: "delta", method: "search_index", kwargs: { eventinfo, timestamp: "1d" } },
      { name: "hours", method: "search_index", kwargs: { eventinfo, timestamp: "1h" } },
      { name: "published", method: "search_index", kwargs: { eventinfo, publish_timestamp: now - 2 * DAY } },
      { name: "published range", method: "search_index", kwargs: { eventinfo, publish_timestamp: [now - 4 * DAY, now - 2 * DAY] } },
      { name: "none", method: "search_index", kwargs: { eventinfo, timestamp: now + HOUR } },
    ]);
    const uuids = (name: string) => (out[name].events ?? []).map((e) => e.uuid).sort();
    expect(uuids("from")).toEqual([mid.uuid, recent.uuid].sort());
    expect(uuids("range")).toEqual([old.uuid, mid.uuid].sort());
    expect(uuids("delta")).toEqual([mid.uuid, recent.uuid].sort());
    expect(uuids("hours")).toEqual([recent.uuid]);
    expect(uuids("published")).toEqual([recent.uuid]);
    expect(uuids("published range")).toEqual([old.uuid]);
    expect(uuids("none")).toEqual([]);
  });

  it("takes float seconds (a datetime from PyMISP) and refuses negative, huge and garbage values with MISP's error body", async () => {
    const float = await misp("events/index", { eventinfo: run, timestamp: now - 2 * HOUR + 1.5 });
    expect(float.status, float.text).toBe(200);
    expect(float.body.map((e: { uuid: string }) => e.uuid)).toEqual([recent.uuid]);
    for (const timestamp of [-1, "-1", 1e20, "99999999999999", "garbage", [1], [1, 2, 3], { from: 1 }, true]) {
      for (const field of ["timestamp", "publish_timestamp"]) {
        const res = await misp("events/index", { eventinfo: run, [field]: timestamp });
        expect(res.status, `${field} ${JSON.stringify(timestamp)}: ${res.text}`).toBe(400);
        expect(res.body).toMatchObject({ name: expect.any(String), message: expect.stringContaining(field), url: "/misp/events/index" });
      }
    }
  });
});

describe("events/edit and the event timestamp", () => {
  it("keeps a given newer timestamp (and the attributes'), refuses one not newer without writing, stamps now when none is given", async () => {
    const given = Number(mid.timestamp) + 10;
    const added = { type: "domain", category: "Network activity", value: `kept-${run}.example.org`, uuid: crypto.randomUUID(), timestamp: String(given - 5) };
    const kept = await misp(`events/edit/${mid.id}`, { Event: { info: `${run} mid edited`, timestamp: String(given), Attribute: [added] } });
    expect(kept.status, kept.text).toBe(200);
    expect(kept.body.Event).toMatchObject({ info: `${run} mid edited`, timestamp: String(given) });
    expect(kept.body.Event.Attribute.find((a: { uuid: string }) => a.uuid === added.uuid)).toMatchObject({ timestamp: added.timestamp });

    for (const stale of [given, given - 1]) {
      const refused = await misp(`events/edit/${mid.uuid}`, { Event: { info: `${run} lost`, timestamp: stale, Attribute: [{ type: "domain", value: `lost-${run}.example.org` }] } });
      expect(refused.status, refused.text).toBe(403);
      expect(refused.body).toEqual({ saved: false, name: "Could not edit Event", message: "Could not edit Event", url: `/misp/events/edit/${mid.uuid}`, errors: NOT_NEWER, id: mid.id });
    }
    const after = await view(mid.id);
    expect(after).toMatchObject({ info: `${run} mid edited`, timestamp: String(given) });
    expect(after.Attribute.map((a: { value: string }) => a.value)).not.toContain(`lost-${run}.example.org`);

    const before = Math.floor(Date.now() / 1000);
    const stamped = await misp(`events/edit/${recent.id}`, { Event: { info: `${run} recent edited` } });
    expect(stamped.status, stamped.text).toBe(200);
    expect(Number(stamped.body.Event.timestamp)).toBeGreaterThanOrEqual(Math.max(before, Number(recent.timestamp) + 1));
  });

  // The administrator holds events:sync, which lets an edit carry an Orgc; one that carries none keeps the event's (MISP's _edit).
  it("keeps the event's creator organisation when a sync-capable caller's edit carries no Orgc", async () => {
    const made = await addEvent("orgc", now - 30);
    const orgc = (await view(made.id)).Orgc as { id: string; uuid: string };
    const res = await app.http.request("POST", `/misp/events/edit/${made.id}`, { token: adminToken, json: { Event: { info: `${run} orgc, edited by the administrator` } }, headers: { accept: "application/json" } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.Event.Orgc).toMatchObject({ id: orgc.id, uuid: orgc.uuid });
    expect((await view(made.id)).Orgc).toMatchObject({ id: orgc.id, uuid: orgc.uuid });
  });

  it("refuses negative, huge and garbage event timestamps with a 4xx, writing nothing", async () => {
    for (const timestamp of [-1, "-5", 1e20, "253402300800", "soon", 1.5, [1], {}]) {
      const res = await misp(`events/edit/${old.id}`, { Event: { info: `${run} hostile`, timestamp } });
      expect(res.status, `${JSON.stringify(timestamp)}: ${res.text}`).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(res.body).toMatchObject({ name: expect.any(String), message: expect.any(String), url: `/misp/events/edit/${old.id}` });
    }
    expect(await view(old.id)).toMatchObject({ info: `${run} old`, timestamp: old.timestamp });
  });
});
