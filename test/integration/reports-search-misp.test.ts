/**
 * Event reports in search (both backends: the event document's reports.uuid/name/content, free
 * text included, only what every reader of the document may read) and in MISP JSON (import stores
 * EventReport[] by uuid, the export writes them back; a real event keeps them through a round trip).
 */
import crypto from "node:crypto";
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { createOrganisation, createUser, loginAdmin, type TestUser } from "../support/fixtures.ts";
import { SEARCH_BACKENDS } from "../support/search-backends.ts";
import { settled } from "../support/settled.ts";
import { sharedPath } from "../support/shared-data.ts";

type Json = Record<string, any>;

describe.each(SEARCH_BACKENDS)("report text in Explore on $name", ({ env }) => {
  let app: TestApp;
  let admin: TestUser;
  let owner: TestUser;
  let outsider: TestUser;
  const word = () => `w${crypto.randomBytes(5).toString("hex")}`;
  const hits = async (q: string, user: TestUser): Promise<Json[]> => {
    const res = await app.http.get(`/events/search?query=${encodeURIComponent(q)}&size=100`, { token: user.token });
    expect(res.status, res.text).toBe(200);
    return res.body.results;
  };
  const ids = async (q: string, user: TestUser) => (await hits(q, user)).map((h) => h._id);
  const newEvent = async (distribution: number) => (await app.http.post("/events/", { token: owner.token, json: { info: `reports ${word()}`, distribution } })).body.uuid as string;
  const newReport = async (eventUuid: string, body: Json) => {
    const res = await app.http.post(`/reports/${eventUuid}`, { token: owner.token, json: body });
    expect(res.status, res.text).toBe(200);
    return res.body as Json;
  };
  const put = (uuid: string, json: Json) => app.http.request("PUT", `/reports/${uuid}`, { token: owner.token, json });

  beforeAll(async () => {
    app = await startTestApp("reports-search", { ROLE: "all", ...env() });
    admin = await loginAdmin(app);
    owner = await createUser(app, admin, 3);
    outsider = await createUser(app, admin, 3, await createOrganisation(app, admin));
  }, 120_000);
  afterAll(async () => {
    await app?.close();
  });

  it("finds an event by its report's content and name, by field and as free text; the report's level decides who finds it", async () => {
    const [shared, hidden, title] = [word(), word(), word()];
    const ev = await newEvent(1);
    await newReport(ev, { name: `Report ${title}`, content: `# Findings\n\nThe actor uses **${shared}** loaders.\n<script>alert(1)</script>` });
    await newReport(ev, { name: "internal", content: `Only for us: ${hidden}`, distribution: 0 });
    await settled(app);

    for (const user of [owner, outsider]) {
      expect(await ids(`reports.content:${shared}`, user)).toEqual([ev]);
      expect(await ids(shared, user)).toEqual([ev]);
      expect(await ids(`reports.name:${title}`, user)).toEqual([ev]);
      expect(await ids(`reports.content:"uses ${shared} loaders"`, user)).toEqual([ev]);
    }
    // The distribution-0 report inside the community event is left out of the event's document: the
    // document has one audience (every organisation), so its text would reach them. Its owners read
    // it through the event's reports, not through search.
    for (const user of [owner, outsider, admin]) {
      expect(await ids(`reports.content:${hidden}`, user)).toEqual([]);
      expect(await ids(hidden, user)).toEqual([]);
    }
    const doc = (await hits(`reports.content:${shared}`, outsider))[0]._source;
    expect(doc.reports.map((r: Json) => r.name)).toEqual([`Report ${title}`]);
    expect(JSON.stringify(doc)).not.toContain(hidden);
  }, 60_000);

  it("holds every report of an organisation-only event (its document is the owners' alone)", async () => {
    const secret = word();
    const ev = await newEvent(0);
    await newReport(ev, { name: "org only", content: `text ${secret}`, distribution: 0 });
    await settled(app);
    expect(await ids(`reports.content:${secret}`, owner)).toEqual([ev]);
    expect(await ids(secret, admin)).toEqual([ev]);
    expect(await ids(`reports.content:${secret}`, outsider)).toEqual([]);
    expect(await ids(secret, outsider)).toEqual([]);
  }, 60_000);

  it("follows changes: new text, soft delete, restore, a lowered level, deletion for good", async () => {
    const [first, second] = [word(), word()];
    const ev = await newEvent(3);
    const r = await newReport(ev, { name: "evolving", content: first });
    await settled(app);
    expect(await ids(first, outsider)).toEqual([ev]);

    expect((await put(r.uuid, { content: second })).status).toBe(200);
    await settled(app);
    expect(await ids(first, outsider)).toEqual([]);
    expect(await ids(`reports.content:${second}`, outsider)).toEqual([ev]);

    expect((await app.http.delete(`/reports/${r.uuid}`, { token: owner.token })).status).toBe(200);
    await settled(app);
    expect(await ids(second, owner)).toEqual([]);
    expect((await put(r.uuid, { deleted: false })).status).toBe(200);
    await settled(app);
    expect(await ids(second, outsider)).toEqual([ev]);

    expect((await put(r.uuid, { distribution: 0 })).status).toBe(200);
    await settled(app);
    expect(await ids(second, outsider)).toEqual([]);
    expect((await put(r.uuid, { distribution: 5 })).status).toBe(200);
    await settled(app);
    expect(await ids(`reports.uuid:"${r.uuid}"`, outsider)).toEqual([ev]);

    expect((await app.http.delete(`/reports/${r.uuid}?force=true`, { token: owner.token })).status).toBe(200);
    await settled(app);
    expect(await ids(second, owner)).toEqual([]);
    expect(await ids(`_exists_:reports.content AND uuid:"${ev}"`, owner)).toEqual([]);
  }, 90_000);
});

describe("MISP JSON: EventReport through import and export", () => {
  let app: TestApp;
  let admin: TestUser;
  let owner: TestUser;
  let outsider: TestUser;

  beforeAll(async () => {
    app = await startTestApp("reports-misp");
    admin = await loginAdmin(app);
    owner = await createUser(app, admin, 3);
    outsider = await createUser(app, admin, 3, await createOrganisation(app, admin));
  });
  afterAll(() => app?.close());

  const sql = (text: string, params: unknown[] = []) => app.booted.ctx.db.pool.query(text, params);
  /** A real MISP event of the shared data (no shared event carries EventReport): its reports are added in MISP's own form. */
  const realEvent = (): Json => {
    const doc = JSON.parse(fs.readFileSync(sharedPath("misp-events", "pymisp-mispevent_testfiles-existing_event.json"), "utf8"));
    return doc.Event ? doc : { Event: doc };
  };
  const REAL_UUID = "5a3c2fcd-8328-42bb-a95e-4f4402de0b81";
  const mispReports = (): Json[] => [
    {
      id: "12", event_id: "7", uuid: "0d8fdacd-5ed2-42ca-a286-d4880b198827", name: "EventReport Test",
      content:
        "This Event showcases a @[object](f91abf56-b017-462a-849f-d03ae0187498) MISP Object with its @[attribute](7ef43014-e2d6-4a13-b8fd-129fe4009310) value.\r\n\r\n<script>alert('x')</script>\r\n| a | b |\r\n|---|---|\r\n| 1 | 2 |",
      distribution: "5", sharing_group_id: "0", timestamp: "1603642920", deleted: false,
    },
    { id: "13", event_id: "7", uuid: "5f3b3f0e-6c8a-4d7e-9d0e-4b1c2a3d4e5f", name: "Internal notes", content: "for our eyes", distribution: "0", sharing_group_id: "0", timestamp: "1603642921", deleted: false },
    { uuid: "a1b2c3d4-0000-4000-8000-000000000001", name: "Old draft", content: "superseded", distribution: "5", timestamp: "1603642922", deleted: true },
  ];
  const exportOf = async (uuid: string, user: TestUser) => {
    const res = await app.http.get(`/events/${uuid}/export?format=misp`, { token: user.token });
    expect(res.status, res.text).toBe(200);
    return res.body.Event as Json;
  };
  const stored = async (eventUuid: string) =>
    (await sql("SELECT r.uuid::text, r.name, r.content, r.distribution, r.timestamp::int AS timestamp, r.deleted FROM event_reports r JOIN events e ON e.id = r.event_id WHERE e.uuid = $1 ORDER BY r.uuid", [eventUuid])).rows;

  it("a real event keeps its reports through import and export (uuid, name, content byte for byte, distribution, timestamp, deleted)", async () => {
    const doc = realEvent();
    doc.Event.EventReport = mispReports();
    const res = await app.http.post("/events/import", { token: owner.token, json: doc });
    expect(res.status, res.text).toBe(201);
    const out = await exportOf(REAL_UUID, owner);
    const pick = (r: Json) => ({ uuid: r.uuid, name: r.name, content: r.content, distribution: String(r.distribution), timestamp: String(r.timestamp), deleted: r.deleted });
    const byUuid = (a: Json, b: Json) => a.uuid.localeCompare(b.uuid);
    expect(out.EventReport.map(pick).sort(byUuid)).toEqual(mispReports().map(pick).sort(byUuid));
    expect(Object.keys(out.EventReport[0]).sort()).toEqual(["content", "deleted", "distribution", "name", "sharing_group_id", "timestamp", "uuid"]);
    // The rest of the event went through as before (attributes and objects all there).
    expect(out.Attribute.length + out.Object.length).toBe(doc.Event.Attribute.length + doc.Event.Object.length);

    // The export is itself an import: into a fresh instance's copy it gives the same reports.
    const again = structuredClone(out);
    again.uuid = crypto.randomUUID();
    for (const r of again.EventReport) r.uuid = crypto.randomUUID();
    for (const a of again.Attribute) a.uuid = crypto.randomUUID();
    for (const o of again.Object) {
      o.uuid = crypto.randomUUID();
      for (const a of o.Attribute) a.uuid = crypto.randomUUID();
      for (const ref of o.ObjectReference) ref.uuid = crypto.randomUUID();
    }
    delete again.Org;
    const copy = await app.http.post("/events/import", { token: owner.token, json: { Event: again } });
    expect(copy.status, copy.text).toBe(201);
    expect((await exportOf(again.uuid, owner)).EventReport.map(pick).sort(byUuid)).toEqual(again.EventReport.map(pick).sort(byUuid));
  });

  it("exports to another organisation only the reports it may read", async () => {
    const out = await exportOf(REAL_UUID, outsider);
    expect(out.EventReport.map((r: Json) => r.name).sort()).toEqual(["EventReport Test", "Old draft"]);
  });

  it("re-import updates a report by uuid only when newer, and adds new ones; an import without EventReport leaves them", async () => {
    const doc = realEvent();
    doc.Event.timestamp = String(Number(doc.Event.timestamp) + 10);
    const reports = mispReports();
    reports[0].content = "rewritten";
    reports[0].timestamp = "1603643000";
    reports[1].content = "older copy: ignored";
    reports[1].timestamp = "1603600000";
    reports.push({ uuid: "a1b2c3d4-0000-4000-8000-000000000002", name: "Added", content: "new", timestamp: "1603643001" });
    doc.Event.EventReport = reports;
    const res = await app.http.post("/events/import", { token: owner.token, json: doc });
    expect(res.status, res.text).toBe(200);
    const rows = await stored(REAL_UUID);
    expect(rows.map((r) => [r.name, r.content])).toEqual([
      ["EventReport Test", "rewritten"],
      ["Internal notes", "for our eyes"],
      ["Old draft", "superseded"],
      ["Added", "new"],
    ].sort((a, b) => rows.findIndex((r) => r.name === a[0]) - rows.findIndex((r) => r.name === b[0])));
    expect(rows).toHaveLength(4);
    const kinds = (await sql("SELECT kind FROM change_records WHERE event_uuid = $1 AND entity_type = 'report' ORDER BY id", [REAL_UUID])).rows.map((r) => r.kind);
    expect(kinds).toEqual(["report.created", "report.created", "report.created", "report.updated", "report.created"]);

    const without = realEvent();
    without.Event.timestamp = String(Number(without.Event.timestamp) + 20);
    expect((await app.http.post("/events/import", { token: owner.token, json: without })).status).toBe(200);
    expect(await stored(REAL_UUID)).toHaveLength(4);
  });

  it("refuses hostile or foreign reports with a 4xx naming them, writing nothing", async () => {
    const cases: [Json, number, (string | number)[] | null][] = [
      [{ uuid: crypto.randomUUID(), name: "nul", content: "a\u0000b" }, 422, ["body", "Event", "EventReport", 0, "content"]],
      [{ uuid: crypto.randomUUID(), name: "huge", content: "x".repeat(1024 * 1024 + 1) }, 422, ["body", "Event", "EventReport", 0, "content"]],
      [{ uuid: crypto.randomUUID(), name: "extra", content: "", colour: "red" }, 422, ["body", "Event", "EventReport", 0, "colour"]],
      [{ uuid: "not-a-uuid", name: "bad uuid", content: "" }, 422, ["body", "Event", "EventReport", 0, "uuid"]],
      [{ uuid: crypto.randomUUID(), content: "no name" }, 422, ["body", "Event", "EventReport", 0, "name"]],
      [{ uuid: crypto.randomUUID(), name: "level", content: "", distribution: "9" }, 422, ["body", "Event", "EventReport", 0, "distribution"]],
      // A report uuid of another event (the real event's): a conflict.
      [{ uuid: "0d8fdacd-5ed2-42ca-a286-d4880b198827", name: "taken", content: "" }, 409, null],
    ];
    for (const [report, status, loc] of cases) {
      const uuid = crypto.randomUUID();
      const res = await app.http.post("/events/import", { token: owner.token, json: { Event: { uuid, info: "hostile reports", EventReport: [report] } } });
      expect(res.status, `${report.name}: ${res.text.slice(0, 300)}`).toBe(status);
      if (loc) expect(res.body.detail[0].loc).toEqual(loc);
      expect((await sql("SELECT count(*)::int AS n FROM events WHERE uuid = $1", [uuid])).rows[0].n).toBe(0);
    }
    const list = await app.http.post("/events/import", { token: owner.token, json: { Event: { uuid: crypto.randomUUID(), info: "not a list", EventReport: { name: "x" } } } });
    expect(list.status).toBe(422);
    expect((await stored(REAL_UUID)).find((r) => r.name === "taken")).toBeUndefined();
  });
});
