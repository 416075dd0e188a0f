/**
 * Event retention end to end on real MISP data whose timestamps span 2016 to 2026: settings and
 * their bad input, status, preview (counted independently here from the JSON), the badges, and
 * enforcement through the scheduled-task run route, after which exempt and recent events keep
 * everything, purged events leave no sighting, correlation or search document behind, and the
 * search indices match PostgreSQL.
 */
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { createUser, loginAdmin, type TestUser } from "../support/fixtures.ts";
import { eventually } from "../support/process.ts";
import { settled } from "../support/settled.ts";
import { sharedPath } from "../support/shared-data.ts";

const FEED = [
  "0dbb179a-1c8c-4e7c-a264-2440414dbac8", "1733d613-f09f-43ec-8e6a-3926f75e5fa4", "24e799ca-aad8-4244-8005-90b3ceb44540",
  "27dceb7d-92bd-4848-bfbd-8570e86de7de", "2dc45085", "6981d484", "68f58844", "6c1c6c4f", "a8a516f1", "aacc7574", "bf89f592", "c166c077", "dad88707",
];
const MISP = [
  "57c4445b-c548-4654-af0b-4be3950d210f.json", "pymisp-mispevent_testfiles-existing_event.json", "pymisp-reportlab-galaxy_1.json",
  "pymisp-reportlab-sighting_1.json", "pymisp-reportlab-to_delete1.json", "pymisp-reportlab-image_event.json", "pymisp-reportlab-HTML_event.json",
];
const PERIOD_DAYS = 730;
const EXEMPT = ["retention:exempt", "keep:forever"];

let app: TestApp;
let admin: TestUser;
let analyst: TestUser;

interface Imported {
  uuid: string;
  timestamp: number;
  eventTags: string[];
}
const imported: Imported[] = [];

const q = (sql: string, params: unknown[] = []) => app.booted.ctx.db.pool.query(sql, params);
const nowSeconds = () => Math.floor(Date.now() / 1000);

function loadEvent(file: string): { Event: Record<string, any> } {
  const doc = JSON.parse(fs.readFileSync(file, "utf8"));
  return doc.Event ? doc : { Event: doc };
}

function feedFile(prefix: string): string {
  const name = fs.readdirSync(sharedPath("misp-feed-sample")).find((f) => f.startsWith(prefix))!;
  return sharedPath("misp-feed-sample", name);
}

async function importEvent(doc: { Event: Record<string, any> }): Promise<void> {
  const res = await app.http.post("/events/import?on_invalid=skip", { token: admin.token, json: doc });
  if (res.status !== 201) throw new Error(`import ${doc.Event.uuid}: ${res.status} ${res.text.slice(0, 300)}`);
  imported.push({ uuid: doc.Event.uuid, timestamp: Number(doc.Event.timestamp), eventTags: (doc.Event.Tag ?? []).map((t: { name: string }) => t.name) });
}

/** What enforcement must purge, computed here from the imported JSON (not by the service's SQL). */
const expectedPurge = (periodDays: number, exempt: string[]) =>
  imported.filter((e) => e.timestamp < nowSeconds() - periodDays * 86_400 && !e.eventTags.some((t) => exempt.includes(t))).map((e) => e.uuid).sort();

async function setRetention(value: Record<string, unknown>) {
  const res = await app.http.post("/settings/runtime/retention", { token: admin.token, json: value });
  if (res.status !== 200) throw new Error(res.text);
}

async function searchTotal(index: "events" | "attributes" | "correlations"): Promise<number> {
  const res = await app.http.get(`/${index}/search?query=*&size=1`, { token: admin.token });
  if (res.status !== 200) throw new Error(res.text);
  expect(res.body.total_relation).toBe("eq");
  return res.body.total;
}

const count = async (sql: string, params: unknown[] = []) => (await q(sql, params)).rows[0].n as number;

beforeAll(async () => {
  app = await startTestApp("retention", { ROLE: "all" });
  admin = await loginAdmin(app);
  analyst = await createUser(app, admin, 3);
  for (const prefix of FEED) {
    const doc = loadEvent(feedFile(prefix));
    // Exempt markers are part of the events as they arrive (tagging through the API would make them recent).
    if (prefix === "27dceb7d-92bd-4848-bfbd-8570e86de7de") doc.Event.Tag = [...(doc.Event.Tag ?? []), { name: "retention:exempt" }];
    if (prefix === "6981d484") doc.Event.Tag = [...(doc.Event.Tag ?? []), { name: "keep:forever" }];
    // Not exact matches of an exempt tag: purged.
    if (prefix === "aacc7574") doc.Event.Tag = [...(doc.Event.Tag ?? []), { name: "retention:exempt-until-2025" }];
    if (prefix === "dad88707") doc.Event.Attribute[0].Tag = [{ name: "retention:exempt" }];
    await importEvent(doc);
  }
  for (const f of MISP) await importEvent(loadEvent(sharedPath("misp-events", f)));
  await settled(app, 120_000);
}, 240_000);
afterAll(async () => {
  await app?.close();
});

describe("settings, status and preview", () => {
  it("status has the spec defaults; any user with events:read may read it", async () => {
    const res = await app.http.get("/events/retention/status", { token: analyst.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ enabled: false, period_days: 365, warning_days: 30, exempt_tags: ["retention:exempt"] });
  });

  const badSettings: [string, Record<string, unknown>][] = [
    ["period_days 0", { period_days: 0 }],
    ["period_days negative", { period_days: -30 }],
    ["period_days a string", { period_days: "365" }],
    ["period_days 10^9", { period_days: 1e9 }],
    ["period_days fractional", { period_days: 1.5 }],
    ["exempt tags that are not strings", { exempt_tags: [1, null] }],
    ["exempt tags as a string", { exempt_tags: "retention:exempt" }],
    ["warning_days negative", { warning_days: -1 }],
    ["enabled as a string", { enabled: "true" }],
  ];
  it.each(badSettings)("settings with %s: 422, nothing changed", async (_what, change) => {
    const value = { enabled: false, period_days: 365, warning_days: 30, exempt_tags: ["retention:exempt"], ...change };
    const res = await app.http.post("/settings/runtime/retention", { token: admin.token, json: value });
    expect(res.status, res.text).toBe(422);
    expect(res.body.code).toBe("validation_error");
    expect(await count("SELECT count(*)::int AS n FROM runtime_settings WHERE namespace = 'retention'")).toBe(0);
  });

  it.each(["0", "-1", "abc", "1000000000", "1.5", "", "365)--"])("preview with period_days=%s: 422", async (v) => {
    const res = await app.http.get(`/events/retention/preview?period_days=${encodeURIComponent(v)}`, { token: admin.token });
    expect(res.status, res.text).toBe(422);
    expect(res.body.detail[0].loc).toEqual(["query", "period_days"]);
  });

  it("preview counts exactly the events enforcement would delete, with the configured exempt tags", async () => {
    await setRetention({ enabled: false, period_days: PERIOD_DAYS, warning_days: 30, exempt_tags: EXEMPT });
    for (const days of [PERIOD_DAYS, 365, 3650, 36_500]) {
      const res = await app.http.get(`/events/retention/preview?period_days=${days}`, { token: admin.token });
      expect(res.body, `${days} days`).toEqual({ count: expectedPurge(days, EXEMPT).length, period_days: days });
    }
    expect(expectedPurge(PERIOD_DAYS, EXEMPT).length).toBeGreaterThanOrEqual(10);
    expect((await app.http.get("/events/retention/preview", { token: admin.token })).body.period_days).toBe(PERIOD_DAYS);
    // settings:read is needed: role 3 lacks it.
    expect((await app.http.get("/events/retention/preview?period_days=30", { token: analyst.token })).status).toBe(403);
  });
});

describe("badges", () => {
  it("expired past the period, expiring within warning_days, nothing when exempt, far from expiry or disabled", async () => {
    const [old] = expectedPurge(PERIOD_DAYS, EXEMPT);
    const recent = imported.find((e) => e.timestamp > nowSeconds() - 200 * 86_400)!;
    const badge = async (uuid: string) => (await app.http.get(`/events/${uuid}`, { token: admin.token })).body.retention;
    expect(await badge(old)).toBeNull(); // disabled
    await setRetention({ enabled: true, period_days: PERIOD_DAYS, warning_days: 30, exempt_tags: EXEMPT });
    expect(await badge(old)).toMatchObject({ status: "expired" });
    expect((await badge(old)).expires_in_days).toBeLessThanOrEqual(0);
    expect(await badge("27dceb7d-92bd-4848-bfbd-8570e86de7de")).toBeNull(); // exempt
    expect(await badge(recent.uuid)).toBeNull();
    // Ten days before expiry (and back to its real timestamp afterwards).
    const { rows } = await q("UPDATE events SET timestamp = $2 WHERE uuid = $1 RETURNING (SELECT timestamp FROM events WHERE uuid = $1) AS was", [
      recent.uuid,
      nowSeconds() - (PERIOD_DAYS - 10) * 86_400 - 3600,
    ]);
    expect(await badge(recent.uuid)).toEqual({ status: "expiring", expires_in_days: 10 });
    const list = await app.http.get(`/events/?uuid=${recent.uuid}`, { token: admin.token });
    expect(list.body.items[0].retention).toEqual({ status: "expiring", expires_in_days: 10 });
    const gql = await app.http.post("/graphql", { token: admin.token, json: { query: `{ event(uuid: "${recent.uuid}") { retention { status expiresInDays } } }` } });
    expect(gql.body.data.event.retention).toEqual({ status: "EXPIRING", expiresInDays: 10 });
    await q("UPDATE events SET timestamp = $2 WHERE uuid = $1", [recent.uuid, rows[0].was]);
    await setRetention({ enabled: false, period_days: PERIOD_DAYS, warning_days: 30, exempt_tags: EXEMPT });
  });
});

describe("enforcement", () => {
  let scheduleId: string;

  const runNow = async (): Promise<Record<string, any>> => {
    const res = await app.http.post(`/tasks/scheduled/${scheduleId}/run`, { token: admin.token });
    expect(res.status, res.text).toBe(202);
    return eventually(async () => {
      const r = await app.http.get(`/tasks/${res.body.task_id}`, { token: admin.token });
      return ["succeeded", "failed"].includes(r.body.status) ? r.body : undefined;
    }, "retention run finished", 120_000, 200);
  };

  beforeAll(async () => {
    const res = await app.http.post("/tasks/schedule", {
      token: admin.token,
      json: { name: "retention", task: "app.worker.tasks.enforce_retention", schedule_type: "crontab", crontab: { minute: "0", hour: "2" } },
    });
    expect(res.status, res.text).toBe(201);
    scheduleId = res.body.id;
  });

  it("does nothing while retention is disabled", async () => {
    await setRetention({ enabled: false, period_days: PERIOD_DAYS, warning_days: 30, exempt_tags: EXEMPT });
    const before = await count("SELECT count(*)::int AS n FROM events");
    const run = await runNow();
    expect(run).toMatchObject({ status: "succeeded", result: { purged: 0, skipped: "retention is disabled" } });
    expect(await count("SELECT count(*)::int AS n FROM events")).toBe(before);
  });

  it("purges exactly the expected events with their sightings and correlations; everything else survives and the indices match PostgreSQL", async () => {
    const purge = expectedPurge(PERIOD_DAYS, EXEMPT);
    const survivors = imported.map((e) => e.uuid).filter((u) => !purge.includes(u));
    // A recent event sharing a value with a purged one: a correlation across the cut.
    const oldValue = (await q("SELECT a.value, a.type FROM attributes a JOIN events e ON e.id = a.event_id WHERE e.uuid = $1 AND a.type = 'domain' LIMIT 1", [purge[0]])).rows[0];
    const fresh = await app.http.post("/events/", { token: admin.token, json: { info: "recent event sharing a value", distribution: 0 } });
    const freshAttr = await app.http.post("/attributes/", { token: admin.token, json: { event_uuid: fresh.body.uuid, type: oldValue.type, value: oldValue.value } });
    survivors.push(fresh.body.uuid);
    // Sightings on both sides of the cut.
    const sightingOn = async (eventUuid: string) => {
      const { rows } = await q("SELECT a.uuid::text, a.value, a.type FROM attributes a JOIN events e ON e.id = a.event_id WHERE e.uuid = $1 AND NOT a.deleted LIMIT 1", [eventUuid]);
      const res = await app.http.post("/sightings/", { token: admin.token, json: { value: rows[0].value, attribute_uuid: rows[0].uuid, source: "retention-test" } });
      expect(res.status, res.text).toBeLessThan(300);
      return rows[0].uuid as string;
    };
    const purgedSighted = await sightingOn(purge[1]);
    const keptSighted = await sightingOn(survivors[0]);
    await settled(app, 60_000);
    expect(await count("SELECT count(*)::int AS n FROM correlations c JOIN attributes a ON a.id IN (c.source_attribute_id, c.target_attribute_id) WHERE a.uuid = $1", [freshAttr.body.uuid])).toBeGreaterThan(0);

    const keptBefore = await q(
      `SELECT e.uuid::text, (SELECT count(*)::int FROM attributes a WHERE a.event_id = e.id) AS attributes, (SELECT count(*)::int FROM objects o WHERE o.event_id = e.id) AS objects,
              (SELECT count(*)::int FROM event_tags t WHERE t.event_id = e.id) AS tags
         FROM events e WHERE e.uuid = ANY($1::uuid[]) ORDER BY 1`,
      [survivors],
    );
    const purgedIds = (await q("SELECT id FROM events WHERE uuid = ANY($1::uuid[])", [purge])).rows.map((r) => r.id);
    expect(purgedIds).toHaveLength(purge.length);
    const purgedAttributes = await count("SELECT count(*)::int AS n FROM attributes WHERE event_id = ANY($1::int[])", [purgedIds]);

    await setRetention({ enabled: true, period_days: PERIOD_DAYS, warning_days: 30, exempt_tags: EXEMPT });
    const run = await runNow();
    expect(run).toMatchObject({ status: "succeeded", attempts: 1, result: { purged: purge.length, attributes: purgedAttributes, period_days: PERIOD_DAYS } });
    expect(run.result.correlations).toBeGreaterThan(0);
    expect(run.result.sightings).toBeGreaterThanOrEqual(1);

    // PostgreSQL: the purged events and everything of theirs are gone; the rest is untouched.
    expect((await q("SELECT uuid::text FROM events ORDER BY 1")).rows.map((r) => r.uuid)).toEqual([...survivors].sort());
    expect(await count("SELECT count(*)::int AS n FROM attributes WHERE event_id = ANY($1::int[])", [purgedIds])).toBe(0);
    expect(await count("SELECT count(*)::int AS n FROM objects WHERE event_id = ANY($1::int[])", [purgedIds])).toBe(0);
    expect(await count("SELECT count(*)::int AS n FROM correlations WHERE source_event_id = ANY($1::int[]) OR target_event_id = ANY($1::int[])", [purgedIds])).toBe(0);
    expect(await count("SELECT count(*)::int AS n FROM sightings s JOIN attributes a ON a.id = s.attribute_id WHERE a.uuid = $1", [purgedSighted])).toBe(0);
    expect(await count("SELECT count(*)::int AS n FROM sightings s JOIN attributes a ON a.id = s.attribute_id WHERE a.uuid = $1", [keptSighted])).toBe(1);
    const keptAfter = await q(
      `SELECT e.uuid::text, (SELECT count(*)::int FROM attributes a WHERE a.event_id = e.id) AS attributes, (SELECT count(*)::int FROM objects o WHERE o.event_id = e.id) AS objects,
              (SELECT count(*)::int FROM event_tags t WHERE t.event_id = e.id) AS tags
         FROM events e WHERE e.uuid = ANY($1::uuid[]) ORDER BY 1`,
      [survivors],
    );
    expect(keptAfter.rows).toEqual(keptBefore.rows);
    expect(await count("SELECT count(*)::int AS n FROM correlations c JOIN attributes a ON a.id IN (c.source_attribute_id, c.target_attribute_id) WHERE a.uuid = $1", [freshAttr.body.uuid])).toBe(0);

    // One event.deleted record per purged event, none per attribute.
    const records = await q("SELECT entity_uuid::text, payload FROM change_records WHERE kind = 'event.deleted' AND entity_uuid = ANY($1::uuid[])", [purge]);
    expect(records.rows.map((r) => r.entity_uuid).sort()).toEqual(purge);
    expect(records.rows[0].payload).toMatchObject({ reason: "retention" });

    // The search indices match PostgreSQL.
    await settled(app, 60_000);
    expect(await searchTotal("events")).toBe(await count("SELECT count(*)::int AS n FROM events"));
    expect(await searchTotal("attributes")).toBe(await count("SELECT count(*)::int AS n FROM attributes"));
    expect(await searchTotal("correlations")).toBe(2 * (await count("SELECT count(*)::int AS n FROM correlations")));
    for (const uuid of purge.slice(0, 3)) {
      const hits = await app.http.get(`/attributes/search?query=${encodeURIComponent(`event_uuid:"${uuid}"`)}&size=1`, { token: admin.token });
      expect(hits.body.total).toBe(0);
    }
    expect((await app.http.get(`/events/${purge[0]}`, { token: admin.token })).status).toBe(404);

    // One audit entry for the run, with the count.
    const audit = await app.http.get("/admin/audit-logs/?action=retention.enforced", { token: admin.token });
    const entries = audit.body.items ?? audit.body;
    expect(entries).toHaveLength(1);
    expect(entries[0].metadata).toMatchObject({ run_id: run.id, purged: purge.length });

    // A second run finds nothing more.
    expect(await runNow()).toMatchObject({ status: "succeeded", result: { purged: 0 } });
    expect((await app.http.get(`/events/retention/preview?period_days=${PERIOD_DAYS}`, { token: admin.token })).body.count).toBe(0);
  });
});
