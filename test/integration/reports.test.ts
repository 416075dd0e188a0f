/**
 * Event reports (MISP EventReport) over REST (the peer's /reports/ routes) and GraphQL: CRUD, soft
 * and hard delete, change records, who may read and write them, and hostile inputs.
 */
import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { createOrganisation, createUser, loginAdmin, type TestUser } from "../support/fixtures.ts";

let app: TestApp;
let admin: TestUser;
let owner: TestUser;
let foreign: TestUser;
let readOnly: TestUser;

beforeAll(async () => {
  app = await startTestApp("reports");
  admin = await loginAdmin(app);
  owner = await createUser(app, admin, 3);
  const other = await createOrganisation(app, admin);
  foreign = await createUser(app, admin, 3, other);
  readOnly = await createUser(app, admin, 4, other);
});
afterAll(() => app?.close());

const sql = (text: string, params: unknown[] = []) => app.booted.ctx.db.pool.query(text, params);
const reportRows = async (eventUuid: string) =>
  (await sql("SELECT r.uuid::text, r.name, r.content, r.deleted FROM event_reports r JOIN events e ON e.id = r.event_id WHERE e.uuid = $1 ORDER BY r.id", [eventUuid])).rows;
const changes = async (eventUuid: string) =>
  (await sql("SELECT kind, entity_type, entity_uuid::text, payload FROM change_records WHERE event_uuid = $1 AND entity_type = 'report' ORDER BY id", [eventUuid])).rows;
const put = (path: string, opts: Parameters<TestApp["http"]["request"]>[2]) => app.http.request("PUT", path, opts);
/** The first GraphQL error, with the extensions this service sets. */
const gqlError = (res: { body: { errors?: unknown[] } }) => res.body.errors?.[0] as { extensions: { code: string; detail: { loc: unknown[] }[] } };
const eventTimestamp = async (uuid: string) => Number((await sql("SELECT timestamp FROM events WHERE uuid = $1", [uuid])).rows[0].timestamp);

async function newEvent(user: TestUser, distribution = 0): Promise<string> {
  const res = await app.http.post("/events/", { token: user.token, json: { info: `ev-${crypto.randomBytes(4).toString("hex")}`, distribution } });
  expect(res.status, res.text).toBe(201);
  return res.body.uuid;
}

async function newReport(user: TestUser, eventUuid: string, body: Record<string, unknown> = {}) {
  const res = await app.http.post(`/reports/${eventUuid}`, { token: user.token, json: { name: "Campaign notes", content: "# Notes\n\nSeen **twice**.", ...body } });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

describe("REST /reports/ (the peer's routes)", () => {
  it("creates, lists as the peer's hits, updates (merge), soft-deletes, restores and deletes for good, with change records", async () => {
    const ev = await newEvent(owner);
    await sql("UPDATE events SET timestamp = timestamp - 1000 WHERE uuid = $1", [ev]);
    const before = await eventTimestamp(ev);
    // The peer's frontend sends uuid: null and the event's uuid along with name and content.
    const r = await newReport(owner, ev, { uuid: null, event_uuid: ev });
    expect(Object.keys(r).sort()).toEqual(["@timestamp", "content", "deleted", "deleted_at", "distribution", "event_uuid", "name", "sharing_group_id", "timestamp", "uuid"]);
    expect(r).toMatchObject({ event_uuid: ev, name: "Campaign notes", content: "# Notes\n\nSeen **twice**.", distribution: 5, sharing_group_id: null, deleted: false, deleted_at: null });
    expect(r["@timestamp"]).toMatch(/\+00:00$/);
    expect(await eventTimestamp(ev)).toBeGreaterThan(before);

    const list = await app.http.get(`/reports/${ev}`, { token: owner.token });
    expect(list.status).toBe(200);
    expect(list.body).toEqual([{ _index: "svc-event-reports", _id: r.uuid, _source: r }]);

    // PUT merges: what is not sent stays; the peer's echoed fields are accepted.
    const changed = await put(`/reports/${r.uuid}`, { token: owner.token, json: { content: "updated", uuid: r.uuid, event_uuid: ev, "@timestamp": r["@timestamp"], timestamp: r.timestamp } });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body).toMatchObject({ uuid: r.uuid, name: "Campaign notes", content: "updated" });
    expect(changed.body.timestamp).toBeGreaterThan(r.timestamp);

    const del = await app.http.delete(`/reports/${r.uuid}`, { token: owner.token });
    expect(del.status).toBe(200);
    expect(del.body).toMatchObject({ uuid: r.uuid, deleted: true });
    expect(del.body.deleted_at).not.toBeNull();
    expect((await app.http.get(`/reports/${ev}`, { token: owner.token })).body).toEqual([]);
    expect((await app.http.get(`/reports/${ev}?deleted=true`, { token: owner.token })).body.map((h: { _id: string }) => h._id)).toEqual([r.uuid]);
    // Deleting a deleted report changes nothing.
    const n = (await changes(ev)).length;
    expect((await app.http.delete(`/reports/${r.uuid}`, { token: owner.token })).status).toBe(200);
    expect((await changes(ev)).length).toBe(n);

    const restored = await put(`/reports/${r.uuid}`, { token: owner.token, json: { deleted: false } });
    expect(restored.body).toMatchObject({ deleted: false, deleted_at: null });

    const gone = await app.http.delete(`/reports/${r.uuid}?force=true`, { token: owner.token });
    expect(gone.status).toBe(200);
    expect(await reportRows(ev)).toEqual([]);
    expect((await put(`/reports/${r.uuid}`, { token: owner.token, json: { name: "x" } })).status).toBe(404);

    expect((await changes(ev)).map((c) => c.kind)).toEqual(["report.created", "report.updated", "report.deleted", "report.updated", "report.deleted"]);
    expect((await changes(ev))[1].payload.fields).toEqual(["content"]);
    expect((await changes(ev)).at(-1).payload).toMatchObject({ hard: true, report_name: "Campaign notes" });
  });

  it("names an empty report as the peer does and keeps markdown and HTML as text, never rendered", async () => {
    const ev = await newEvent(owner);
    const hostile = "<script>alert(document.cookie)</script>\n<img src=x onerror=alert(1)>\n[x](javascript:alert(1))";
    const r = await newReport(owner, ev, { name: "", content: hostile });
    expect(r.name).toMatch(/^Event report \(\d+\)$/);
    const res = await app.http.get(`/reports/${ev}`, { token: owner.token });
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(res.body[0]._source.content).toBe(hostile);
    expect((await reportRows(ev))[0].content).toBe(hostile);
  });

  it("takes a client's uuid once (409 after) and a distribution; checks a sharing group exists", async () => {
    const ev = await newEvent(owner);
    const uuid = crypto.randomUUID();
    const r = await newReport(owner, ev, { uuid: uuid.toUpperCase(), distribution: 0 });
    expect(r).toMatchObject({ uuid, distribution: 0 });
    const again = await app.http.post(`/reports/${ev}`, { token: owner.token, json: { name: "x", uuid } });
    expect(again.status).toBe(409);
    const unknownGroup = await app.http.post(`/reports/${ev}`, { token: owner.token, json: { name: "x", distribution: 4, sharing_group_id: 2_000_000 } });
    expect(unknownGroup.status).toBe(422);
    expect(unknownGroup.body.detail[0].loc).toEqual(["body", "sharing_group_id"]);
    expect(await reportRows(ev)).toHaveLength(1);
  });

  it("needs the reports scopes: the read-only role reads, never writes", async () => {
    const ev = await newEvent(owner, 3);
    const r = await newReport(owner, ev);
    expect((await app.http.get(`/reports/${ev}`, { token: readOnly.token })).body.map((h: { _id: string }) => h._id)).toEqual([r.uuid]);
    const denied = await app.http.post(`/reports/${ev}`, { token: readOnly.token, json: { name: "ro" } });
    expect([401, 403]).toContain(denied.status);
    expect(denied.body.code).toBe("insufficient_scope");
    const roles = (await sql("SELECT id, scopes FROM roles WHERE id IN (2, 3, 4) ORDER BY id")).rows;
    expect(roles[0].scopes).toContain("reports:*");
    expect(roles[1].scopes).toEqual(expect.arrayContaining(["reports:read", "reports:create", "reports:update", "reports:delete"]));
    expect(roles[2].scopes).toContain("reports:read");
    expect(roles[2].scopes).not.toContain("reports:create");
  });
});

describe("across organisations", () => {
  it("another organisation reads the shared reports of a community event, not its distribution-0 one, and writes none", async () => {
    const ev = await newEvent(owner, 1);
    const shared = await newReport(owner, ev, { name: "shared", content: "shared text", distribution: 5 });
    const hidden = await newReport(owner, ev, { name: "org only", content: "organisation-only text", distribution: 0 });
    const list = await app.http.get(`/reports/${ev}`, { token: foreign.token });
    expect(list.body.map((h: { _id: string }) => h._id)).toEqual([shared.uuid]);
    expect(list.text).not.toContain("organisation-only text");
    expect((await app.http.get(`/reports/${ev}`, { token: owner.token })).body.map((h: { _id: string }) => h._id)).toEqual([shared.uuid, hidden.uuid]);

    // Writes: the visible one is 403 (readable, another organisation's), the hidden one 404, creating 403.
    expect((await put(`/reports/${shared.uuid}`, { token: foreign.token, json: { content: "by B" } })).status).toBe(403);
    expect((await put(`/reports/${hidden.uuid}`, { token: foreign.token, json: { content: "by B" } })).status).toBe(404);
    expect((await app.http.delete(`/reports/${shared.uuid}`, { token: foreign.token })).status).toBe(403);
    expect((await app.http.delete(`/reports/${hidden.uuid}?force=true`, { token: foreign.token })).status).toBe(404);
    expect((await app.http.post(`/reports/${ev}`, { token: foreign.token, json: { name: "B's" } })).status).toBe(403);
    expect((await reportRows(ev)).map((r) => [r.name, r.content, r.deleted])).toEqual([["shared", "shared text", false], ["org only", "organisation-only text", false]]);

    // GraphQL: the same rule in the report query, the event's relation and the mutations.
    const one = await app.http.graphql("query ($u: String!) { eventReport(uuid: $u) { uuid } }", { u: hidden.uuid }, foreign.token);
    expect(gqlError(one).extensions.code).toBe("not_found");
    const rel = await app.http.graphql("query ($u: String!) { event(uuid: $u) { reports { uuid content } } }", { u: ev }, foreign.token);
    expect(rel.body.data.event.reports).toEqual([{ uuid: shared.uuid, content: "shared text" }]);
    const upd = await app.http.graphql('mutation ($u: String!) { updateEventReport(uuid: $u, input: {content: "by B"}) { uuid } }', { u: shared.uuid }, foreign.token);
    expect(gqlError(upd).extensions.code).toBe("forbidden");
    expect((await reportRows(ev))[0].content).toBe("shared text");
  });

  it("a private event's reports are 404 to another organisation, the administrator reads them", async () => {
    const ev = await newEvent(owner, 0);
    const r = await newReport(owner, ev, { distribution: 5 });
    expect((await app.http.get(`/reports/${ev}`, { token: foreign.token })).status).toBe(404);
    expect((await put(`/reports/${r.uuid}`, { token: foreign.token, json: { name: "x" } })).status).toBe(404);
    expect((await app.http.post(`/reports/${ev}`, { token: foreign.token, json: { name: "x" } })).status).toBe(404);
    expect((await app.http.get(`/reports/${ev}`, { token: admin.token })).body.map((h: { _id: string }) => h._id)).toEqual([r.uuid]);
  });
});

describe("GraphQL", () => {
  it("creates, reads (query, event relation), updates and deletes through the same service", async () => {
    const ev = await newEvent(owner);
    const created = await app.http.graphql(
      'mutation ($e: String!) { createEventReport(eventUuid: $e, input: {name: "GQL", content: "*md*", distribution: 1}) { uuid eventUuid name content distribution sharingGroupId deleted deletedAt timestamp } }',
      { e: ev },
      owner.token,
    );
    expect(created.body.errors).toBeUndefined();
    const r = created.body.data.createEventReport;
    expect(r).toMatchObject({ eventUuid: ev, name: "GQL", content: "*md*", distribution: 1, sharingGroupId: null, deleted: false, deletedAt: null });
    const list = await app.http.graphql("query ($e: String!) { eventReports(eventUuid: $e) { uuid } event(uuid: $e) { reports { uuid name } } }", { e: ev }, owner.token);
    expect(list.body.data).toEqual({ eventReports: [{ uuid: r.uuid }], event: { reports: [{ uuid: r.uuid, name: "GQL" }] } });
    const upd = await app.http.graphql('mutation ($u: String!) { updateEventReport(uuid: $u, input: {name: "Renamed"}) { name content } }', { u: r.uuid }, owner.token);
    expect(upd.body.data.updateEventReport).toEqual({ name: "Renamed", content: "*md*" });
    const del = await app.http.graphql("mutation ($u: String!) { deleteEventReport(uuid: $u) }", { u: r.uuid }, owner.token);
    expect(del.body.data.deleteEventReport).toBe(true);
    const after = await app.http.graphql("query ($u: String!, $e: String!) { eventReport(uuid: $u) { deleted } eventReports(eventUuid: $e) { uuid } deletedOnes: eventReports(eventUuid: $e, deleted: true) { uuid } }", { u: r.uuid, e: ev }, owner.token);
    expect(after.body.data).toEqual({ eventReport: { deleted: true }, eventReports: [], deletedOnes: [{ uuid: r.uuid }] });
    const force = await app.http.graphql("mutation ($u: String!) { deleteEventReport(uuid: $u, force: true) }", { u: r.uuid }, owner.token);
    expect(force.body.data.deleteEventReport).toBe(true);
    expect(await reportRows(ev)).toEqual([]);
  });

  it("checks inputs with the contract: errors under the argument, nothing written", async () => {
    const ev = await newEvent(owner);
    const bad = await app.http.graphql("mutation ($e: String!, $c: String) { createEventReport(eventUuid: $e, input: {content: $c}) { uuid } }", { e: ev, c: "a\u0000b" }, owner.token);
    expect(gqlError(bad).extensions.code).toBe("validation_error");
    // NUL is refused in every request's variables before any resolver runs, named where it was sent.
    expect(gqlError(bad).extensions.detail[0].loc).toEqual(["variables", "c"]);
    const long = await app.http.graphql("mutation ($e: String!, $n: String) { createEventReport(eventUuid: $e, input: {name: $n}) { uuid } }", { e: ev, n: "n".repeat(256) }, owner.token);
    expect(gqlError(long).extensions.detail[0].loc).toEqual(["args", "input", "name"]);
    const dist = await app.http.graphql('mutation ($e: String!) { createEventReport(eventUuid: $e, input: {distribution: 9}) { uuid } }', { e: ev }, owner.token);
    expect(gqlError(dist).extensions.detail[0].loc).toEqual(["args", "input", "distribution"]);
    const deleted = await app.http.graphql('mutation ($e: String!) { createEventReport(eventUuid: $e, input: {deleted: true}) { uuid } }', { e: ev }, owner.token);
    expect(gqlError(deleted).extensions.detail[0].loc).toEqual(["args", "input", "deleted"]);
    const uuid = await app.http.graphql('{ eventReport(uuid: "nope") { uuid } }', {}, owner.token);
    expect(gqlError(uuid).extensions.code).toBe("validation_error");
    expect(await reportRows(ev)).toEqual([]);
  });
});

describe("hostile inputs: 4xx JSON, never 500, nothing written", () => {
  it("refuses NUL bytes, lone surrogates, over-long names and content past 1 MiB (422), and bodies past the limit (413)", async () => {
    const ev = await newEvent(owner);
    const cases: [Record<string, unknown>, string][] = [
      [{ name: "x", content: "before\u0000after" }, "content"],
      [{ name: "a\u0000b" }, "name"],
      [{ name: "x", content: "lone \ud800 surrogate" }, "content"],
      [{ name: "n".repeat(256) }, "name"],
      [{ name: "two\nlines" }, "name"],
      [{ name: "x", content: "é".repeat(600_000) }, "content"],
      [{ name: "x", distribution: 6 }, "distribution"],
      [{ name: "x", distribution: "1" }, "distribution"],
      [{ name: "x", colour: "red" }, "colour"],
      [{ name: "x", event_uuid: crypto.randomUUID() }, "event_uuid"],
    ];
    for (const [json, field] of cases) {
      const res = await app.http.post(`/reports/${ev}`, { token: owner.token, json });
      expect(res.status, `${field}: ${res.text.slice(0, 200)}`).toBe(422);
      expect(res.body.code).toBe("validation_error");
      expect(res.body.detail[0].loc).toEqual(["body", field]);
    }
    // 1 MiB exactly is taken; 8 MiB of body is past the route's limit.
    const max = await app.http.post(`/reports/${ev}`, { token: owner.token, json: { name: "max", content: "x".repeat(1024 * 1024) } });
    expect(max.status).toBe(200);
    const huge = await app.http.post(`/reports/${ev}`, { token: owner.token, json: { name: "huge", content: "x".repeat(9 * 1024 * 1024) } });
    expect(huge.status).toBe(413);
    expect(huge.body.code).toBe("payload_too_large");
    const tooLong = await put(`/reports/${max.body.uuid}`, { token: owner.token, json: { content: "y".repeat(1024 * 1024 + 1) } });
    expect(tooLong.status).toBe(422);
    expect(tooLong.body.detail[0].loc).toEqual(["body", "content"]);
    expect((await reportRows(ev)).map((r) => [r.name, r.content.length])).toEqual([["max", 1024 * 1024]]);
  });

  it("answers bad uuids, unknown events and reports, and empty updates with 4xx JSON", async () => {
    const ev = await newEvent(owner);
    const r = await newReport(owner, ev);
    for (const [method, path, json] of [
      ["GET", "/reports/not-a-uuid", undefined],
      ["POST", "/reports/not-a-uuid", { name: "x" }],
      ["PUT", "/reports/123", { name: "x" }],
      ["DELETE", "/reports/%00", undefined],
    ] as const) {
      const res = await app.http.request(method, path, { token: owner.token, ...(json ? { json } : {}) });
      expect(res.status, `${method} ${path}`).toBe(422);
      expect(res.body.detail[0].loc[0]).toBe("path");
    }
    expect((await app.http.get(`/reports/${crypto.randomUUID()}`, { token: owner.token })).status).toBe(404);
    expect((await app.http.post(`/reports/${crypto.randomUUID()}`, { token: owner.token, json: { name: "x" } })).status).toBe(404);
    expect((await app.http.delete(`/reports/${crypto.randomUUID()}`, { token: owner.token })).status).toBe(404);
    const empty = await put(`/reports/${r.uuid}`, { token: owner.token, json: {} });
    expect(empty.status).toBe(422);
    const other = await put(`/reports/${r.uuid}`, { token: owner.token, json: { uuid: crypto.randomUUID(), name: "x" } });
    expect(other.status).toBe(422);
    expect(other.body.detail[0].loc).toEqual(["body", "uuid"]);
    const otherEvent = await put(`/reports/${r.uuid}`, { token: owner.token, json: { event_uuid: crypto.randomUUID(), name: "x" } });
    expect(otherEvent.status).toBe(422);
    expect(otherEvent.body.detail[0].loc).toEqual(["body", "event_uuid"]);
    const notJson = await app.http.request("POST", `/reports/${ev}`, { token: owner.token, body: "{", headers: { "content-type": "application/json" } });
    expect(notJson.status).toBe(400);
    expect((await reportRows(ev)).map((x) => x.name)).toEqual(["Campaign notes"]);
  });
});
