/**
 * Issue 20, finding 4: a MISP import names who the event is from (`Orgc`) and who saw its values
 * (sighting `Organisation`). Only a holder of `events:sync` may speak for another organisation;
 * anyone else's import is their own organisation's, creates no organisation, and the
 * `organisation.event.*` notifications name the importer's organisation. ROLE=all: notifications
 * are produced by the worker.
 */
import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { createOrganisation, createUser, loginAdmin, type TestUser } from "../support/fixtures.ts";
import { settled } from "../support/settled.ts";

type Json = Record<string, any>;

let app: TestApp;
let admin: TestUser;
let orgA: { id: number; uuid: string; name: string };
let orgB: { id: number; uuid: string; name: string };
let followerA: TestUser; // follows organisation A
let followerB: TestUser; // follows organisation B
let plainB: TestUser; // role 3 of B
let orgAdminB: TestUser; // role 2 of B
let syncB: TestUser; // a role of B holding events:sync

const q = (sql: string, params: unknown[] = []) => app.booted.ctx.db.pool.query(sql, params);
const unique = (prefix: string) => `${prefix}-${crypto.randomBytes(4).toString("hex")}`;
const orgCount = async () => (await q("SELECT count(*)::int AS n FROM organisations")).rows[0].n as number;

async function organisation(id: number) {
  const res = await app.http.get(`/organisations/${id}`, { token: admin.token });
  return { id, uuid: res.body.uuid as string, name: res.body.name as string };
}

async function follow(user: TestUser, organisations: string[]): Promise<void> {
  const res = await app.http.post("/settings/user/notifications", { token: user.token, json: { follow: { events: [], attributes: [], objects: [], organisations } } });
  if (res.status !== 200) throw new Error(res.text);
}

const notificationsOf = async (user: TestUser): Promise<Json[]> => (await app.http.get("/notifications?size=100", { token: user.token })).body.items;

/** A community-wide event (everyone may read it) claiming to come from `orgc`, with sightings by `sightingOrg`. */
function mispEvent(orgc: Json, sightingOrg: Json, timestamp = 1_700_000_000): { doc: Json; eventUuid: string; attributeUuid: string } {
  const eventUuid = crypto.randomUUID();
  const attributeUuid = crypto.randomUUID();
  const doc = {
    Event: {
      uuid: eventUuid,
      info: unique("claimed"),
      date: "2026-11-20",
      distribution: 3,
      timestamp: String(timestamp),
      Orgc: orgc,
      Attribute: [
        {
          uuid: attributeUuid,
          type: "ip-dst",
          category: "Network activity",
          value: "198.51.100.20",
          timestamp: String(timestamp),
          Sighting: [
            { uuid: crypto.randomUUID(), type: "0", date_sighting: String(timestamp), Organisation: sightingOrg },
            { uuid: crypto.randomUUID(), type: "1", date_sighting: String(timestamp) },
          ],
        },
      ],
    },
  };
  return { doc, eventUuid, attributeUuid };
}

async function importAs(user: TestUser, doc: Json): Promise<Json> {
  const res = await app.http.post("/events/import", { token: user.token, json: doc });
  expect([200, 201], res.text.slice(0, 500)).toContain(res.status);
  return res.body;
}

async function stored(eventUuid: string): Promise<{ org_id: number; orgc_id: number; user_id: number; sighting_orgs: (number | null)[] }> {
  const { rows } = await q(
    `SELECT e.org_id, e.orgc_id, e.user_id, ARRAY(SELECT s.org_id FROM sightings s WHERE s.event_id = e.id ORDER BY s.type) AS sighting_orgs
       FROM events e WHERE e.uuid = $1`,
    [eventUuid],
  );
  return rows[0];
}

beforeAll(async () => {
  app = await startTestApp("import-impersonation", { ROLE: "all" });
  admin = await loginAdmin(app);
  orgA = await organisation(await createOrganisation(app, admin, unique("org-a")));
  orgB = await organisation(await createOrganisation(app, admin, unique("org-b")));
  followerA = await createUser(app, admin, 3, orgA.id);
  followerB = await createUser(app, admin, 3, orgB.id);
  plainB = await createUser(app, admin, 3, orgB.id);
  orgAdminB = await createUser(app, admin, 2, orgB.id);
  syncB = await createUser(app, admin, ["events:read", "events:create", "events:sync", "users:me"], orgB.id);
  await follow(followerA, [orgA.uuid]);
  await follow(followerB, [orgB.uuid]);
}, 60_000);
afterAll(() => app?.close());

describe("without events:sync the import is the importer's organisation's", () => {
  it.each([
    ["a plain user", () => plainB],
    ["an org admin", () => orgAdminB],
  ])("%s: Orgc and sighting organisations of A become B, the creator is the importer, A is not touched", async (_who, importer) => {
    const { doc, eventUuid } = mispEvent({ name: orgA.name, uuid: orgA.uuid }, { name: orgA.name, uuid: orgA.uuid });
    const body = await importAs(importer(), doc);
    expect(body.orgc_id).toBe(orgB.id);
    expect(await stored(eventUuid)).toEqual({ org_id: orgB.id, orgc_id: orgB.id, user_id: importer().id, sighting_orgs: [orgB.id, orgB.id] });
    const exported = await app.http.get(`/events/${eventUuid}/export?format=misp`, { token: importer().token });
    expect(exported.body.Event.Orgc).toMatchObject({ name: orgB.name, uuid: orgB.uuid });
    expect(exported.body.Event.Attribute[0].Sighting.map((s: Json) => s.Organisation?.name)).toEqual([orgB.name, orgB.name]);
  });

  it("names of unknown organisations create nothing", async () => {
    const before = await orgCount();
    const invented = unique("Invented Org");
    const seen = unique("Sighting Corp");
    const { doc, eventUuid } = mispEvent({ name: invented, uuid: crypto.randomUUID() }, { name: seen });
    await importAs(plainB, doc);
    expect(await orgCount()).toBe(before);
    expect((await q("SELECT count(*)::int AS n FROM organisations WHERE name = ANY($1)", [[invented, seen]])).rows[0].n).toBe(0);
    expect((await stored(eventUuid)).orgc_id).toBe(orgB.id);
  });

  it("a newer version of a stored event keeps its Orgc whatever the file claims", async () => {
    const first = mispEvent({ name: orgB.name }, { name: orgB.name }, 1_700_000_000);
    await importAs(plainB, first.doc);
    const newer = structuredClone(first.doc);
    newer.Event.timestamp = "1700000100";
    newer.Event.info = unique("renamed");
    newer.Event.Orgc = { name: orgA.name, uuid: orgA.uuid };
    const res = await app.http.post("/events/import", { token: plainB.token, json: newer });
    expect(res.status, res.text).toBe(200);
    expect(res.body.info).toBe(newer.Event.info);
    expect((await stored(first.eventUuid)).orgc_id).toBe(orgB.id);
  });

  it("GraphQL importMispEvent follows the same rule", async () => {
    const before = await orgCount();
    const { doc, eventUuid } = mispEvent({ name: orgA.name, uuid: orgA.uuid }, { name: unique("Gql Corp") });
    const res = await app.http.graphql(`mutation ($e: JSON!) { importMispEvent(event: $e) { created event { uuid orgcId } } }`, { e: doc }, plainB.token);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.importMispEvent).toEqual({ created: true, event: { uuid: eventUuid, orgcId: orgB.id } });
    expect(await orgCount()).toBe(before);
    expect((await stored(eventUuid)).sighting_orgs).toEqual([orgB.id, orgB.id]);
  });
});

describe("with events:sync the file's organisations are kept", () => {
  it("Orgc and sighting organisations by uuid or name, unknown ones created; the owner is still the importer's organisation", async () => {
    const invented = unique("Sync Sighter");
    const { doc, eventUuid } = mispEvent({ name: orgA.name, uuid: orgA.uuid }, { name: invented });
    await importAs(syncB, doc);
    const created = (await q("SELECT id FROM organisations WHERE name = $1", [invented])).rows[0];
    expect(created).toBeDefined();
    expect(await stored(eventUuid)).toEqual({ org_id: orgB.id, orgc_id: orgA.id, user_id: syncB.id, sighting_orgs: [created.id, null] });
  });

  it("only the administrator role holds events:sync among the built-in roles", async () => {
    const { rows } = await q("SELECT id, scopes FROM roles WHERE id IN (1, 2, 3, 4) ORDER BY id");
    const holds = (scopes: string[]) => scopes.includes("*") || scopes.includes("events:*") || scopes.includes("events:sync");
    expect(rows.map((r) => [r.id, holds(r.scopes)])).toEqual([[1, true], [2, false], [3, false], [4, false]]);
  });
});

describe("notifications name the importer's organisation", () => {
  it("a follower of A gets nothing when B imports an event claiming Orgc A; a follower of B gets organisation.event.created naming B", async () => {
    await settled(app);
    for (const u of [followerA, followerB]) await app.http.delete("/notifications/all", { token: u.token });
    const { doc, eventUuid } = mispEvent({ name: orgA.name, uuid: orgA.uuid }, { name: orgA.name });
    await importAs(plainB, doc);
    await settled(app);
    expect((await notificationsOf(followerA)).filter((n) => n.entity_uuid === eventUuid)).toEqual([]);
    const [n, ...more] = (await notificationsOf(followerB)).filter((x) => x.entity_uuid === eventUuid);
    expect(more).toEqual([]);
    expect(n).toMatchObject({ type: "organisation.event.created", payload: { organisation_uuid: orgB.uuid, organisation_name: orgB.name } });
  });
});
