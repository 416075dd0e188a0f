/**
 * The distribution rule has three renderings (src/auth/distribution.ts): the JavaScript predicate the
 * services use (`canReadEvent`, `canReadInEvent`), the SQL filter of raw reads (`readableSql`) and
 * the Prisma filters of GraphQL's relations (`readable*Where`). On every combination of event,
 * object, attribute and event-report levels and owners, for each kind of caller, all three select the same rows.
 * Level 4 comes in three forms: sharing group g1 (A and C), g2 (A and B), and no group.
 */
import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { canReadEvent, canReadInEvent, readableAttributeWhere, readableEventWhere, readableObjectWhere, readableReportWhere, readableSql } from "../../src/auth/distribution.ts";
import type { Principal } from "../../src/auth/principal.ts";
import { connectDatabase, type Database } from "../../src/platform/db/index.ts";
import { createTestDatabase } from "../support/databases.ts";
import pino from "pino";

interface Level {
  distribution: number;
  sharingGroupId: number | null;
}
const groups = { g1: 0, g2: 0 };
const levels = (upTo: number): Level[] =>
  Array.from({ length: upTo + 1 }, (_, d) => d).flatMap((d) =>
    d === 4 ? [{ distribution: 4, sharingGroupId: groups.g1 }, { distribution: 4, sharingGroupId: groups.g2 }, { distribution: 4, sharingGroupId: null }] : [{ distribution: d, sharingGroupId: null }],
  );

let drop: () => Promise<void>;
let db: Database;
let orgs: { a: number; b: number; c: number };

interface Row {
  event: Level & { id: number; orgId: number; orgcId: number };
  object: (Level & { id: number }) | null;
  attribute: Level & { id: string };
}
const rows: Row[] = [];
/** An event report of each level in every event. */
const reports: (Level & { id: number; event: Row["event"] })[] = [];

const principal = (orgId: number | null, admin = false, sharingGroupIds: number[] = []): Principal => ({
  actorType: "user", userId: 1, email: null, orgId, roleId: 1, credentialId: null, tokenId: null, tokenExpiresAt: null,
  grantSets: [admin ? ["*"] : ["events:read"]], sharingGroupIds, ip: null, userAgent: null,
});
const item = (l: Level) => ({ distribution: l.distribution, sharingGroupId: l.sharingGroupId });

beforeAll(async () => {
  const created = await createTestDatabase("distribution_renderings");
  drop = created.drop;
  db = connectDatabase(created.url, pino({ level: "silent" }));
  const sql = db.pool;
  const org = async (name: string) =>
    (await sql.query<{ id: number }>("INSERT INTO organisations (uuid, name) VALUES ($1, $2) RETURNING id", [crypto.randomUUID(), name])).rows[0].id;
  orgs = { a: await org("render-a"), b: await org("render-b"), c: await org("render-c") };
  const group = async (name: string, member: number) => {
    const id = (await sql.query<{ id: number }>("INSERT INTO sharing_groups (uuid, name, org_id) VALUES ($1, $2, $3) RETURNING id", [crypto.randomUUID(), name, orgs.a])).rows[0].id;
    await sql.query("INSERT INTO sharing_group_orgs (sharing_group_id, org_id) VALUES ($1, $2), ($1, $3)", [id, orgs.a, member]);
    return id;
  };
  groups.g1 = await group("render-g1", orgs.c);
  groups.g2 = await group("render-g2", orgs.b);
  // Events of A, and events A created for B (org B, orgc A): A and B own the second kind.
  for (const [orgId, orgcId] of [[orgs.a, orgs.a], [orgs.b, orgs.a]]) {
    for (const level of levels(4)) {
      const event = (
        await sql.query<{ id: number }>(
          "INSERT INTO events (uuid, info, date, timestamp, org_id, orgc_id, distribution, sharing_group_id) VALUES ($1, 'e', '2026-01-01', 1, $2, $3, $4, $5) RETURNING id",
          [crypto.randomUUID(), orgId, orgcId, level.distribution, level.sharingGroupId],
        )
      ).rows[0].id;
      const eventRef = { id: event, ...level, orgId, orgcId };
      for (const reportLevel of levels(5)) {
        const id = (
          await sql.query<{ id: number }>(
            "INSERT INTO event_reports (uuid, event_id, name, timestamp, distribution, sharing_group_id) VALUES ($1, $2, 'r', 1, $3, $4) RETURNING id",
            [crypto.randomUUID(), event, reportLevel.distribution, reportLevel.sharingGroupId],
          )
        ).rows[0].id;
        reports.push({ id, ...reportLevel, event: eventRef });
      }
      const objects: (Row["object"])[] = [null];
      for (const objectLevel of levels(5)) {
        const id = (
          await sql.query<{ id: number }>(
            "INSERT INTO objects (uuid, event_id, name, timestamp, distribution, sharing_group_id) VALUES ($1, $2, 'o', 1, $3, $4) RETURNING id",
            [crypto.randomUUID(), event, objectLevel.distribution, objectLevel.sharingGroupId],
          )
        ).rows[0].id;
        objects.push({ id, ...objectLevel });
      }
      for (const object of objects) {
        for (const attributeLevel of levels(5)) {
          const id = (
            await sql.query<{ id: string }>(
              `INSERT INTO attributes (uuid, event_id, object_id, type, category, value, value1, timestamp, distribution, sharing_group_id)
               VALUES ($1, $2, $3, 'domain', 'Network activity', 'x', 'x', 1, $4, $5) RETURNING id::text`,
              [crypto.randomUUID(), event, object?.id ?? null, attributeLevel.distribution, attributeLevel.sharingGroupId],
            )
          ).rows[0].id;
          rows.push({ event: eventRef, object, attribute: { id, ...attributeLevel } });
        }
      }
    }
  }
});
afterAll(async () => {
  await db?.close();
  await drop?.();
});

// Callers carry their organisation's groups as authentication loads them: A owns both, B is in g2, C in g1.
const callers = () => ({
  admin: principal(null, true),
  ownerA: principal(orgs.a, false, [groups.g1, groups.g2]),
  ownerB: principal(orgs.b, false, [groups.g2]),
  otherC: principal(orgs.c, false, [groups.g1]),
  noOrganisation: principal(null),
});

const sorted = (xs: (number | string)[]) => xs.map(String).sort();

describe("the distribution rule's renderings agree", () => {
  it.each(["admin", "ownerA", "ownerB", "otherC", "noOrganisation"] as const)("on events, objects, attributes and event reports for %s", async (who) => {
    const p = callers()[who];
    const eventIds = [...new Map(rows.map((r) => [r.event.id, r.event])).values()];
    const objects = [...new Map(rows.filter((r) => r.object).map((r) => [r.object!.id, r])).values()];

    const jsEvents = eventIds.filter((e) => canReadEvent(p, e)).map((e) => e.id);
    const params: unknown[] = [];
    const sqlEvents = (await db.pool.query<{ id: number }>(`SELECT e.id FROM events e WHERE ${readableSql(p, "e", [], params)}`, params)).rows.map((r) => r.id);
    const prismaEvents = (await db.prisma.event.findMany({ where: readableEventWhere(p), select: { id: true } })).map((r) => r.id);
    expect(sorted(sqlEvents)).toEqual(sorted(jsEvents));
    expect(sorted(prismaEvents)).toEqual(sorted(jsEvents));

    const jsObjects = objects.filter((r) => canReadInEvent(p, r.event, item(r.object!))).map((r) => r.object!.id);
    const objectParams: unknown[] = [];
    const sqlObjects = (
      await db.pool.query<{ id: number }>(`SELECT o.id FROM objects o JOIN events e ON e.id = o.event_id WHERE ${readableSql(p, "e", ["o.distribution"], objectParams)}`, objectParams)
    ).rows.map((r) => r.id);
    const prismaObjects = (await db.prisma.mispObject.findMany({ where: readableObjectWhere(p), select: { id: true } })).map((r) => r.id);
    expect(sorted(sqlObjects)).toEqual(sorted(jsObjects));
    expect(sorted(prismaObjects)).toEqual(sorted(jsObjects));

    const jsAttributes = rows.filter((r) => canReadInEvent(p, r.event, item(r.attribute), r.object ? item(r.object) : null)).map((r) => r.attribute.id);
    const attributeParams: unknown[] = [];
    const sqlAttributes = (
      await db.pool.query<{ id: string }>(
        `SELECT a.id::text FROM attributes a JOIN events e ON e.id = a.event_id LEFT JOIN objects o ON o.id = a.object_id WHERE ${readableSql(p, "e", ["a.distribution", "o.distribution"], attributeParams)}`,
        attributeParams,
      )
    ).rows.map((r) => r.id);
    const prismaAttributes = (await db.prisma.attribute.findMany({ where: readableAttributeWhere(p), select: { id: true } })).map((r) => String(r.id));
    expect(sorted(sqlAttributes)).toEqual(sorted(jsAttributes));
    expect(sorted(prismaAttributes)).toEqual(sorted(jsAttributes));
    const jsReports = reports.filter((r) => canReadInEvent(p, r.event, item(r))).map((r) => r.id);
    const reportParams: unknown[] = [];
    const sqlReports = (
      await db.pool.query<{ id: number }>(`SELECT r.id FROM event_reports r JOIN events e ON e.id = r.event_id WHERE ${readableSql(p, "e", ["r.distribution"], reportParams)}`, reportParams)
    ).rows.map((r) => r.id);
    const prismaReports = (await db.prisma.eventReport.findMany({ where: readableReportWhere(p), select: { id: true } })).map((r) => r.id);
    expect(sorted(sqlReports)).toEqual(sorted(jsReports));
    expect(sorted(prismaReports)).toEqual(sorted(jsReports));
    if (who === "otherC") expect(jsReports.length).toBeGreaterThan(0);
    if (who === "otherC") expect(jsReports.length).toBeLessThan(reports.length);

    // Through the groups, in A's own events (B owns the others): each group's members read its data, and two groups at once no one else.
    const ofA = rows.filter((r) => r.event.orgId === orgs.a && r.object === null);
    const pick = (test: (r: Row) => boolean) => ofA.filter(test).map((r) => r.attribute.id);
    const g1Event = pick((r) => r.event.sharingGroupId === groups.g1 && r.attribute.distribution === 5);
    const g2InCommunity = pick((r) => r.event.distribution === 1 && r.attribute.sharingGroupId === groups.g2);
    const g2InG1 = pick((r) => r.event.sharingGroupId === groups.g1 && r.attribute.sharingGroupId === groups.g2);
    const bareFour = pick((r) => r.event.distribution === 4 && r.event.sharingGroupId === null);
    for (const list of [g1Event, g2InCommunity, g2InG1, bareFour]) expect(list.length).toBeGreaterThan(0);
    const reads = (ids: string[]) => ids.every((id) => jsAttributes.includes(id));
    const readsNone = (ids: string[]) => ids.every((id) => !jsAttributes.includes(id));
    if (who === "otherC") expect([reads(g1Event), readsNone(g2InCommunity), readsNone(g2InG1), readsNone(bareFour)]).toEqual([true, true, true, true]);
    if (who === "ownerB") expect([readsNone(g1Event), reads(g2InCommunity), readsNone(g2InG1), readsNone(bareFour)]).toEqual([true, true, true, true]);
    if (who === "noOrganisation") expect([readsNone(g1Event), readsNone(g2InCommunity)]).toEqual([true, true]);

    // A owns (or created) every event; B owns half of them; C and a caller without an organisation see the shared part only.
    expect(jsAttributes.length).toBeGreaterThan(0);
    if (who === "admin" || who === "ownerA") expect(jsAttributes.length).toBe(rows.length);
    else expect(jsAttributes.length).toBeLessThan(rows.length);
  });
});
