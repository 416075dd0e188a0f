/**
 * GraphQL lists of hunts and sightings load through their services with @pothos/plugin-prisma's
 * query: a page of hunts with their schedules (read from each hunt's scheduled task) and a page of
 * sightings with their attribute's fields and their organisation's name (through the sightings.org_id
 * foreign key) are the same small number of SQL statements for 2 rows as for 20, still only what the
 * caller may read, and the same rows as REST.
 */
import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { createOrganisation, createUser, loginAdmin, type TestUser } from "../support/fixtures.ts";
import { countStatements } from "../support/statement-counter.ts";

const ROWS = 20;
const FREQUENCIES = ["hourly", "daily", "weekly", null] as const;
const tag = crypto.randomBytes(3).toString("hex");
let app: TestApp;
let admin: TestUser;
/** A user of another organisation: owns the hunts, records the readable sightings. */
let viewer: TestUser;
let viewerOrgName: string;
let goneOrgSighting: string;
let hiddenSighting: string;
const q = (sql: string, params: unknown[] = []) => app.booted.ctx.db.pool.query(sql, params);

beforeAll(async () => {
  app = await startTestApp("graphql_statements_hunts_sightings", { ROLE: "api" });
  admin = await loginAdmin(app);
  viewerOrgName = `viewers ${tag}`;
  viewer = await createUser(app, admin, 3, await createOrganisation(app, admin, viewerOrgName));

  // The viewer's hunts, each with a schedule but every fourth (paused for one), and one of the administrator's.
  for (let i = 0; i < ROWS; i++) {
    const res = await app.http.post("/hunts/", { token: viewer.token, json: { name: `hunt ${tag} ${i}`, query: `value:10.0.0.${i}`, schedule: FREQUENCIES[i % 4] } });
    expect(res.status, res.text).toBe(201);
    if (i === 1) await q("UPDATE scheduled_tasks SET enabled = false WHERE id = $1", [res.body.scheduled_task_id]);
  }
  const adminHunt = await app.http.post("/hunts/", { token: admin.token, json: { name: `admin hunt ${tag}`, query: "value:10.1.1.1", schedule: "daily" } });
  expect(adminHunt.status, adminHunt.text).toBe(201);

  // A shared event of the administrator's organisation with 20 attributes, each sighted once by the viewer.
  const shared = await app.http.post("/events/", { token: admin.token, json: { info: `shared ${tag}`, distribution: 3 } });
  expect(shared.status, shared.text).toBe(201);
  const values: string[] = [];
  for (let i = 0; i < ROWS; i++) {
    values.push(`192.0.2.${i + 1}`);
    const a = await app.http.post("/attributes/", { token: admin.token, json: { event_uuid: shared.body.uuid, type: "ip-dst", value: values[i] } });
    expect(a.status, a.text).toBe(201);
  }
  const sighted = await app.http.post("/sightings/", { token: viewer.token, json: values.map((value) => ({ value, source: `sensor ${tag}` })) });
  expect(sighted.status, sighted.text).toBe(201);

  // The administrator's organisation-only event: its sighting is not the viewer's to read.
  const own = await app.http.post("/events/", { token: admin.token, json: { info: `own ${tag}`, distribution: 0 } });
  const hidden = await app.http.post("/attributes/", { token: admin.token, json: { event_uuid: own.body.uuid, type: "ip-dst", value: "198.51.100.7" } });
  expect(hidden.status, hidden.text).toBe(201);
  hiddenSighting = crypto.randomUUID();
  await q("INSERT INTO sightings (uuid, attribute_id, event_id, org_id, date_sighting) SELECT $1, id, event_id, $2, 1700000000 FROM attributes WHERE uuid = $3", [hiddenSighting, admin.orgId, hidden.body.uuid]);

  // A sighting of the shared event by an organisation deleted since: no organisation any more (the foreign key's SET NULL).
  const gone = await createOrganisation(app, admin, `gone ${tag}`);
  goneOrgSighting = crypto.randomUUID();
  await q("INSERT INTO sightings (uuid, attribute_id, event_id, org_id, date_sighting) SELECT $1, id, event_id, $2, 1600000000 FROM attributes WHERE value = $3", [goneOrgSighting, gone, values[0]]);
  expect((await app.http.delete(`/organisations/${gone}`, { token: admin.token })).status).toBe(204);
});
afterAll(() => app?.close());

async function counted<T>(query: string, variables: Record<string, unknown>, token = viewer.token): Promise<{ statements: number; data: T }> {
  const counter = countStatements();
  try {
    const res = await app.http.graphql(query, variables, token);
    expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
    return { statements: counter.count, data: res.body.data as T };
  } finally {
    counter.stop();
  }
}

interface HuntItem {
  id: number;
  name: string;
  userId: number;
  schedule: string | null;
  scheduledTaskId: string | null;
  nextRunAt: string | null;
  huntType: string;
  status: string;
}
const HUNTS = `query($size: Int!) { hunts(page: 1, size: $size) { total items { id name userId huntType status schedule scheduledTaskId nextRunAt } } }`;

describe("a GraphQL page of hunts with their schedules", () => {
  it("is the same number of statements for 2 hunts as for 20, only the caller's", async () => {
    const small = await counted<{ hunts: { items: HuntItem[] } }>(HUNTS, { size: 2 });
    const large = await counted<{ hunts: { total: number; items: HuntItem[] } }>(HUNTS, { size: ROWS });
    expect(small.data.hunts.items).toHaveLength(2);
    expect(large.data.hunts.items).toHaveLength(ROWS);
    expect(large.data.hunts.total).toBe(ROWS);
    expect(large.data.hunts.items.every((h) => h.userId === viewer.id)).toBe(true);
    expect(large.statements).toBe(small.statements);
    // The page with each hunt's scheduled task (one statement) and the total; room for the credential's lookup.
    expect(large.statements).toBeLessThanOrEqual(3);
  });

  it("reads schedule and nextRunAt from each hunt's scheduled task, as REST", async () => {
    const { data } = await counted<{ hunts: { items: HuntItem[] } }>(HUNTS, { size: ROWS });
    const byName = new Map(data.hunts.items.map((h) => [h.name, h]));
    for (let i = 0; i < ROWS; i++) {
      const h = byName.get(`hunt ${tag} ${i}`)!;
      expect(h.schedule).toBe(FREQUENCIES[i % 4]);
      expect(h.scheduledTaskId === null).toBe(FREQUENCIES[i % 4] === null);
      // A paused schedule (hunt 1) has no next run; an active one has its task's.
      expect(h.nextRunAt === null).toBe(FREQUENCIES[i % 4] === null || i === 1);
    }
    const rest = await app.http.get(`/hunts/?size=${ROWS}`, { token: viewer.token });
    expect(rest.status).toBe(200);
    expect(
      rest.body.items.map((h: { id: number; schedule: string | null; next_run_at: string | null }) => ({ id: h.id, schedule: h.schedule, next: h.next_run_at && new Date(h.next_run_at).getTime() })),
    ).toEqual(data.hunts.items.map((h) => ({ id: h.id, schedule: h.schedule, next: h.nextRunAt && new Date(h.nextRunAt).getTime() })));
    // A crontab set through /tasks reads as custom.
    const custom = data.hunts.items.find((h) => h.schedule === "daily")!;
    await q("UPDATE scheduled_tasks SET schedule_type = 'crontab', interval_every = NULL, interval_period = NULL, cron_minute = '0', cron_hour = '3' WHERE id = $1", [custom.scheduledTaskId]);
    const one = await counted<{ hunt: HuntItem }>(`query($id: Int!) { hunt(id: $id) { schedule nextRunAt } }`, { id: custom.id });
    expect(one.data.hunt.schedule).toBe("custom");
    expect((await app.http.get(`/hunts/${custom.id}`, { token: viewer.token })).body.schedule).toBe("custom");
  });

  it("another user's hunt is not found; the administrator lists everyone's with all", async () => {
    const adminHunts = await counted<{ hunts: { total: number; items: HuntItem[] } }>(HUNTS, { size: ROWS }, admin.token);
    expect(adminHunts.data.hunts.total).toBe(1);
    const theirs = adminHunts.data.hunts.items[0];
    const res = await app.http.graphql(`query($id: Int!) { hunt(id: $id) { id } }`, { id: theirs.id }, viewer.token);
    expect(res.body.errors?.[0]?.extensions?.code).toBe("not_found");
    const all = await counted<{ hunts: { total: number } }>(`query { hunts(all: true, size: 1) { total } }`, {}, admin.token);
    expect(all.data.hunts.total).toBe(ROWS + 1);
  });
});

interface SightingItem {
  uuid: string;
  type: string;
  value: string;
  timestamp: number;
  attributeUuid: string;
  attributeType: string;
  eventUuid: string;
  organisation: string | null;
  source: string;
}
const SIGHTINGS = `query($size: Int!) { sightings(page: 1, size: $size) { total items { uuid type value timestamp attributeUuid attributeType eventUuid organisation source } } }`;

describe("a GraphQL page of sightings with their organisation", () => {
  it("is the same number of statements for 2 sightings as for 20", async () => {
    const small = await counted<{ sightings: { items: SightingItem[] } }>(SIGHTINGS, { size: 2 });
    const large = await counted<{ sightings: { total: number; items: SightingItem[] } }>(SIGHTINGS, { size: ROWS });
    expect(small.data.sightings.items).toHaveLength(2);
    expect(large.data.sightings.items).toHaveLength(ROWS);
    expect(large.statements).toBe(small.statements);
    // The page with attribute, event and organisation joined in (one statement) and the total; room for the credential's lookup.
    expect(large.statements).toBeLessThanOrEqual(3);
  });

  it("shows only sightings of readable attributes, with the organisation's name (none once it is deleted), as REST", async () => {
    const { data } = await counted<{ sightings: { total: number; items: SightingItem[] } }>(SIGHTINGS, { size: 100 });
    expect(data.sightings.total).toBe(ROWS + 1);
    const uuids = data.sightings.items.map((s) => s.uuid);
    expect(uuids).not.toContain(hiddenSighting);
    const gone = data.sightings.items.find((s) => s.uuid === goneOrgSighting)!;
    expect(gone).toMatchObject({ organisation: null, value: "192.0.2.1", timestamp: 1_600_000_000, type: "sighting" });
    const mine = data.sightings.items.filter((s) => s.uuid !== goneOrgSighting);
    expect(mine.every((s) => s.organisation === viewerOrgName && s.source === `sensor ${tag}` && s.attributeType === "ip-dst" && s.value.startsWith("192.0.2."))).toBe(true);
    const rest = await app.http.get("/sightings/?size=100", { token: viewer.token });
    expect(rest.status).toBe(200);
    expect(
      rest.body.results.map((h: { _source: Record<string, unknown> & { observer: { organisation: string | null; source: string } } }) => {
        const { observer, attribute_uuid, attribute_type, event_uuid, ...s } = h._source;
        return { uuid: s.uuid, type: s.type, value: s.value, timestamp: s.timestamp, attributeUuid: attribute_uuid, attributeType: attribute_type, eventUuid: event_uuid, organisation: observer.organisation, source: observer.source };
      }),
    ).toEqual(data.sightings.items);
    // The administrator reads the hidden one too, with its organisation.
    const all = await counted<{ sightings: { total: number; items: SightingItem[] } }>(SIGHTINGS, { size: 100 }, admin.token);
    expect(all.data.sightings.total).toBe(ROWS + 2);
    expect(all.data.sightings.items.find((s) => s.uuid === hiddenSighting)?.organisation).toBeTruthy();
  });
});
