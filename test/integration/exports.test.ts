/**
 * Saved exports (issue 21, peer notes 3.20) end to end, ROLE=all: a real MISP event of organisation
 * A (shared with the community, one attribute kept to A) exported as json, csv, misp and stix by the
 * run_export task into local storage; downloads compared with search; the misp file imported again
 * into a second service gives the same attributes; schedules as run_export tasks; the per-user limit
 * (429); 409 before completion; another organisation's exports are 404 and never hold A's
 * distribution-0 attribute.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { createOrganisation, createUser, loginAdmin, type TestUser } from "../support/fixtures.ts";
import { eventually } from "../support/process.ts";
import { settled } from "../support/settled.ts";
import { sharedPath } from "../support/shared-data.ts";
import { storedFiles } from "../support/storage.ts";

let app: TestApp;
let admin: TestUser;
let alice: TestUser;
let bob: TestUser;
let readOnly: TestUser;

const SOURCE = JSON.parse(fs.readFileSync(sharedPath("misp-events", "pymisp-reportlab-mainly_objects_1.json"), "utf8"));
const eventUuid = crypto.randomUUID();
const privateAttribute = crypto.randomUUID();
const privateValue = `private-${crypto.randomBytes(4).toString("hex")}.example`;
/** The attributes of the event A's exports must hold (the source's, under fresh uuids). */
let sourceAttributes: { uuid: string; type: string; value: string; objectUuid: string | null }[] = [];

/** The shared event, with fresh uuids so that the second service can import the export of it. */
function sourceEvent() {
  const ev = structuredClone(SOURCE.Event ?? SOURCE);
  const fresh = (o: { uuid?: string }) => (o.uuid = crypto.randomUUID());
  ev.uuid = eventUuid;
  ev.distribution = "1";
  ev.info = "exports test event";
  for (const a of ev.Attribute ?? []) fresh(a);
  for (const o of ev.Object ?? []) {
    fresh(o);
    for (const a of o.Attribute ?? []) fresh(a);
    o.ObjectReference = [];
  }
  ev.Attribute = [...(ev.Attribute ?? []), { uuid: privateAttribute, type: "domain", category: "Network activity", value: privateValue, distribution: "0" }];
  return { Event: ev };
}

async function waitDone(user: TestUser, id: number): Promise<Record<string, any>> {
  return eventually(async () => {
    const r = await app.http.get(`/exports/${id}`, { token: user.token });
    return ["completed", "failed"].includes(r.body.status) ? r.body : undefined;
  }, `export ${id} finished`, 60_000, 100);
}

async function exportOf(user: TestUser, body: Record<string, unknown>): Promise<{ meta: Record<string, any>; text: string; headers: Headers }> {
  const res = await app.http.post("/exports/", { token: user.token, json: body });
  expect(res.status, res.text).toBe(201);
  const meta = await waitDone(user, res.body.id);
  expect(meta.status, meta.error).toBe("completed");
  const file = await app.http.get(`/exports/${meta.id}/download`, { token: user.token });
  expect(file.status).toBe(200);
  return { meta, text: file.text, headers: file.headers };
}

async function searchUuids(user: TestUser, query: string): Promise<string[]> {
  const res = await app.http.get(`/attributes/search?query=${encodeURIComponent(query)}&size=100`, { token: user.token });
  expect(res.status, res.text).toBe(200);
  expect(res.body.total).toBeLessThan(100);
  return res.body.results.map((h: { _id: string }) => h._id).sort();
}

const QUERY = `event_uuid:"${eventUuid}"`;

beforeAll(async () => {
  app = await startTestApp("exports", { ROLE: "all" });
  admin = await loginAdmin(app);
  alice = await createUser(app, admin, 3);
  readOnly = await createUser(app, admin, 4);
  bob = await createUser(app, admin, 3, await createOrganisation(app, admin));
  const imported = await app.http.post("/events/import", { token: alice.token, json: sourceEvent() });
  expect(imported.status, imported.text).toBe(201);
  const rows = await app.booted.ctx.db.pool.query(
    "SELECT a.uuid::text, a.type, a.value, o.uuid::text AS object_uuid FROM attributes a JOIN events e ON e.id = a.event_id LEFT JOIN objects o ON o.id = a.object_id WHERE e.uuid = $1",
    [eventUuid],
  );
  sourceAttributes = rows.rows.map((r) => ({ uuid: r.uuid, type: r.type, value: r.value, objectUuid: r.object_uuid }));
  expect(sourceAttributes.filter((a) => a.objectUuid).length).toBeGreaterThan(5);
  await settled(app, 60_000);
}, 120_000);
afterAll(async () => {
  await app?.close();
});

describe("formats", () => {
  it("json: every document the owner may read, as search finds them, in an attachment", async () => {
    const { meta, text, headers } = await exportOf(alice, { name: "all of it", query: QUERY, index_target: "attributes", format: "json" });
    const docs = JSON.parse(text) as { uuid: string }[];
    expect(docs.map((d) => d.uuid).sort()).toEqual(await searchUuids(alice, QUERY));
    expect(docs.map((d) => d.uuid).sort()).toEqual(sourceAttributes.map((a) => a.uuid).sort());
    expect(meta).toMatchObject({ record_count: docs.length, file_size: Buffer.byteLength(text), index_target: "attributes", format: "json", schedule: null, schedule_enabled: false });
    expect(headers.get("content-type")).toMatch(/^application\/json/);
    expect(headers.get("content-disposition")).toContain('attachment; filename="all of it.json"');
  });

  it("csv: the peer's columns, one row per document, formula cells neutralised", async () => {
    const { text, meta } = await exportOf(alice, { name: "as csv", query: QUERY, format: "csv" });
    const lines = text.trimEnd().split("\r\n");
    expect(lines[0]).toBe("uuid,event_uuid,object_uuid,object_relation,category,type,value,to_ids,comment,timestamp,first_seen,last_seen,tags");
    expect(lines.length - 1).toBe(meta.record_count);
    expect(meta.record_count).toBe(sourceAttributes.length);
  });

  it("misp: 422 without a distribution or for events; the file is one MISP event that a second service imports with the same attributes", async () => {
    for (const body of [{ name: "m", query: QUERY, format: "misp" }, { name: "m", query: QUERY, format: "misp", distribution: 1, index_target: "events" }]) {
      const bad = await app.http.post("/exports/", { token: alice.token, json: body });
      expect(bad.status, bad.text).toBe(422);
      expect(bad.body.code).toBe("validation_error");
    }
    const { text } = await exportOf(alice, { name: "as misp", query: QUERY, format: "misp", distribution: 2 });
    const doc = JSON.parse(text);
    expect(doc.Event).toMatchObject({ info: "as misp", distribution: "2" });
    const other = await startTestApp("exports-reimport", { ROLE: "api" });
    try {
      const otherAdmin = await loginAdmin(other);
      const res = await other.http.post("/events/import", { token: otherAdmin.token, json: doc });
      expect(res.status, res.text).toBe(201);
      const rows = await other.booted.ctx.db.pool.query(
        "SELECT a.uuid::text, a.type, a.value, o.uuid::text AS object_uuid FROM attributes a LEFT JOIN objects o ON o.id = a.object_id ORDER BY a.uuid",
      );
      const key = (a: { uuid: string; type: string; value: string; objectUuid?: string | null; object_uuid?: string | null }) => `${a.uuid} ${a.type} ${a.value} ${a.objectUuid ?? a.object_uuid ?? "-"}`;
      expect(rows.rows.map(key).sort()).toEqual(sourceAttributes.map(key).sort());
    } finally {
      await other.close();
    }
  }, 120_000);

  it("stix: a STIX 2.1 bundle with an object per attribute and a report for the event", async () => {
    const { text, headers, meta } = await exportOf(alice, { name: "as stix", query: QUERY, format: "stix" });
    expect(headers.get("content-type")).toMatch(/^application\/stix\+json/);
    const bundle = JSON.parse(text);
    expect(bundle.type).toBe("bundle");
    const byType = (t: string) => bundle.objects.filter((o: { type: string }) => o.type === t);
    expect(byType("report").map((r: { id: string }) => r.id)).toEqual([`report--${eventUuid}`]);
    expect(byType("indicator").length + byType("observed-data").length + byType("note").length).toBe(meta.record_count);
    expect(new Set(bundle.objects.map((o: { id: string }) => o.id)).size).toBe(bundle.objects.length);
  });
});

describe("access", () => {
  it("another organisation's user exports only what they may read: never A's distribution-0 attribute", async () => {
    const { text } = await exportOf(bob, { name: "bob's", query: QUERY, format: "json" });
    const uuids = (JSON.parse(text) as { uuid: string }[]).map((d) => d.uuid).sort();
    expect(uuids).toEqual(await searchUuids(bob, QUERY));
    expect(uuids).not.toContain(privateAttribute);
    expect(uuids.length).toBe(sourceAttributes.length - 1);
    expect(text).not.toContain(privateValue);
  });

  it("an export is its owner's: 404 to another user for every route, listed only to its owner and administrators", async () => {
    const { meta } = await exportOf(alice, { name: "alice only", query: QUERY, format: "json" });
    for (const [method, path] of [
      ["GET", `/exports/${meta.id}`],
      ["GET", `/exports/${meta.id}/download`],
      ["POST", `/exports/${meta.id}/run`],
      ["PATCH", `/exports/${meta.id}/schedule`],
      ["DELETE", `/exports/${meta.id}`],
    ] as const) {
      const res = await app.http[method.toLowerCase() as "get"](path, { token: bob.token, json: method === "PATCH" ? { schedule: null } : undefined });
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    const bobs = await app.http.get("/exports/?size=100", { token: bob.token });
    expect(bobs.body.items.map((e: { id: number }) => e.id)).not.toContain(meta.id);
    expect((await app.http.get("/exports/?all=true", { token: bob.token })).status).toBe(403);
    const all = await app.http.get("/exports/?all=true&size=100", { token: admin.token });
    expect(all.body.items.map((e: { id: number }) => e.id)).toContain(meta.id);
    expect((await app.http.post("/exports/", { token: readOnly.token, json: { name: "x", query: "*" } })).status).toBe(403);
  });
});

describe("lifecycle", () => {
  it("409 until completed, run again replaces the file, the limit answers 429, a schedule is a run_export task, delete removes everything", async () => {
    const { meta } = await exportOf(alice, { name: "lifecycle", query: QUERY, format: "json" });
    const q = (sql: string, params: unknown[]) => app.booted.ctx.db.pool.query(sql, params);
    const files = () => storedFiles(app.dataDir).filter((f) => f.startsWith(`exports/${meta.id}/`));
    expect(files()).toHaveLength(1);

    await q("UPDATE exports SET status = 'running' WHERE id = $1", [meta.id]);
    const early = await app.http.get(`/exports/${meta.id}/download`, { token: alice.token });
    expect(early.status).toBe(409);
    expect(early.body.code).toBe("conflict");
    expect((await app.http.post(`/exports/${meta.id}/run`, { token: alice.token })).status).toBe(409);
    // One of alice's exports is running: the default limit (1) refuses another.
    const limited = await app.http.post("/exports/", { token: alice.token, json: { name: "one too many", query: QUERY } });
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("30");
    await q("UPDATE exports SET status = 'completed' WHERE id = $1", [meta.id]);

    const before = files();
    const rerun = await app.http.post(`/exports/${meta.id}/run`, { token: alice.token });
    expect(rerun.status, rerun.text).toBe(200);
    expect(["queued", "running", "completed"]).toContain(rerun.body.status);
    expect((await waitDone(alice, meta.id)).status).toBe("completed");
    expect(files()).toHaveLength(1);
    expect(files()).not.toEqual(before);

    const scheduled = await app.http.patch(`/exports/${meta.id}/schedule`, { token: alice.token, json: { schedule: { type: "interval", every: 3600 }, schedule_enabled: true } });
    expect(scheduled.status, scheduled.text).toBe(200);
    expect(scheduled.body).toMatchObject({ schedule: { type: "interval", every: 3600 }, schedule_enabled: true });
    const task = await app.http.get(`/tasks/scheduled/${scheduled.body.scheduled_task_name}`, { token: admin.token });
    expect(task.status, task.text).toBe(200);
    expect(task.body).toMatchObject({ task: "run_export", kwargs: { export_id: meta.id }, enabled: true });
    const badSchedule = await app.http.patch(`/exports/${meta.id}/schedule`, { token: alice.token, json: { schedule: { type: "interval" } } });
    expect(badSchedule.status).toBe(422);
    expect(badSchedule.body.detail[0].loc).toEqual(["body", "schedule", "every"]);
    const unscheduled = await app.http.patch(`/exports/${meta.id}/schedule`, { token: alice.token, json: { schedule: null } });
    expect(unscheduled.body).toMatchObject({ schedule: null, schedule_enabled: false, scheduled_task_name: null });
    expect((await q("SELECT count(*)::int AS n FROM scheduled_tasks WHERE task = 'run_export'", [])).rows[0].n).toBe(0);

    expect((await app.http.delete(`/exports/${meta.id}`, { token: alice.token })).status).toBe(204);
    expect((await app.http.get(`/exports/${meta.id}`, { token: alice.token })).status).toBe(404);
    expect(files()).toEqual([]);
  });

  it("refuses bad definitions with 4xx and stores nothing", async () => {
    const count = async () => (await app.booted.ctx.db.pool.query("SELECT count(*)::int AS n FROM exports")).rows[0].n;
    const before = await count();
    for (const [body, status] of [
      [{ name: "x", query: "value:(" }, 400],
      [{ name: "", query: "*" }, 422],
      [{ name: "x", query: "*", format: "pdf" }, 422],
      [{ name: "x", query: "*", index_target: "correlations" }, 422],
      [{ name: "x", query: "*", distribution: 9, format: "misp" }, 422],
      [{ name: "x", query: "*", schedule: { type: "crontab", minute: "61" } }, 422],
      [{ name: "x\u0000y", query: "*" }, 422],
    ] as const) {
      const res = await app.http.post("/exports/", { token: alice.token, json: body });
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(typeof res.body.code).toBe("string");
    }
    expect(await count()).toBe(before);
  });

  it("GraphQL: createExport, export, exports, runExport, setExportSchedule and deleteExport", async () => {
    const gql = async (query: string, variables: Record<string, unknown> = {}) => {
      const res = await app.http.post("/graphql", { token: alice.token, json: { query, variables } });
      expect(res.status, res.text).toBe(200);
      expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
      return res.body.data;
    };
    const created = await gql(`mutation($q: String!) { createExport(input: { name: "gql", query: $q, format: CSV }) { id status format } }`, { q: QUERY });
    expect(created.createExport.format).toBe("CSV");
    expect(["QUEUED", "RUNNING", "COMPLETED"]).toContain(created.createExport.status);
    const id = created.createExport.id;
    await waitDone(alice, id);
    const got = await gql(`query($id: Int!) { export(id: $id) { status recordCount downloadUrl } exports { total } }`, { id });
    expect(got.export).toEqual({ status: "COMPLETED", recordCount: sourceAttributes.length, downloadUrl: `/exports/${id}/download` });
    const scheduled = await gql(`mutation($id: Int!) { setExportSchedule(id: $id, schedule: { type: "crontab", minute: "0", hour: "4" }, scheduleEnabled: true) { scheduleEnabled schedule } }`, { id });
    expect(scheduled.setExportSchedule).toMatchObject({ scheduleEnabled: true, schedule: { type: "crontab", minute: "0", hour: "4" } });
    expect(["QUEUED", "RUNNING", "COMPLETED"]).toContain((await gql(`mutation($id: Int!) { runExport(id: $id) { status } }`, { id })).runExport.status);
    await waitDone(alice, id);
    expect((await gql(`mutation($id: Int!) { deleteExport(id: $id) }`, { id })).deleteExport).toBe(true);
  });
});
