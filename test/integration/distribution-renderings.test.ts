/**
 * The distribution rule has three renderings (src/auth/distribution.ts): the JavaScript predicate the
 * services use (`canReadEvent`, `canReadInEvent`), the SQL filter of raw reads (`readableSql`) and
 * the Prisma filters of GraphQL's relations (`readable*Where`). On every combination of event,
 * object, attribute and event-report levels and owners, for each kind of caller, all three select the same rows.
 */
import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { canReadEvent, canReadInEvent, readableAttributeWhere, readableEventWhere, readableObjectWhere, readableReportWhere, readableSql } from "../../src/auth/distribution.ts";
import type { Principal } from "../../src/auth/principal.ts";
import { connectDatabase, type Database } from "../../src/platform/db/index.ts";
import { createTestDatabase } from "../support/databases.ts";
import pino from "pino";

const LEVELS = [0, 1, 2, 3, 4, 5];
const EVENT_LEVELS = [0, 1, 2, 3, 4];

let drop: () => Promise<void>;
let db: Database;
let orgs: { a: number; b: number; c: number };

interface Row {
  event: { id: number; distribution: number; orgId: number; orgcId: number };
  object: { id: number; distribution: number } | null;
  attribute: { id: string; distribution: number };
}
const rows: Row[] = [];
/** An event report of each level in every event. */
const reports: { id: number; distribution: number; event: Row["event"] }[] = [];

const principal = (orgId: number | null, admin = false): Principal => ({
  actorType: "user", userId: 1, email: null, orgId, roleId: 1, credentialId: null, tokenId: null, tokenExpiresAt: null,
  grantSets: [admin ? ["*"] : ["events:read"]], ip: null, userAgent: null,
});

beforeAll(async () => {
  const created = await createTestDatabase("distribution_renderings");
  drop = created.drop;
  db = connectDatabase(created.url, pino({ level: "silent" }));
  const sql = db.pool;
  const org = async (name: string) =>
    (await sql.query<{ id: number }>("INSERT INTO organisations (uuid, name) VALUES ($1, $2) RETURNING id", [crypto.randomUUID(), name])).rows[0].id;
  orgs = { a: await org("render-a"), b: await org("render-b"), c: await org("render-c") };
  // Events of A, and events A created for B (org B, orgc A): A and B own the second kind.
  for (const [orgId, orgcId] of [[orgs.a, orgs.a], [orgs.b, orgs.a]]) {
    for (const level of EVENT_LEVELS) {
      const event = (
        await sql.query<{ id: number }>(
          "INSERT INTO events (uuid, info, date, timestamp, org_id, orgc_id, distribution) VALUES ($1, 'e', '2026-01-01', 1, $2, $3, $4) RETURNING id",
          [crypto.randomUUID(), orgId, orgcId, level],
        )
      ).rows[0].id;
      const eventRef = { id: event, distribution: level, orgId, orgcId };
      for (const reportLevel of LEVELS) {
        const id = (await sql.query<{ id: number }>("INSERT INTO event_reports (uuid, event_id, name, timestamp, distribution) VALUES ($1, $2, 'r', 1, $3) RETURNING id", [crypto.randomUUID(), event, reportLevel])).rows[0].id;
        reports.push({ id, distribution: reportLevel, event: eventRef });
      }
      const objects: (Row["object"])[] = [null];
      for (const objectLevel of LEVELS) {
        const id = (await sql.query<{ id: number }>("INSERT INTO objects (uuid, event_id, name, timestamp, distribution) VALUES ($1, $2, 'o', 1, $3) RETURNING id", [crypto.randomUUID(), event, objectLevel])).rows[0].id;
        objects.push({ id, distribution: objectLevel });
      }
      for (const object of objects) {
        for (const attributeLevel of LEVELS) {
          const id = (
            await sql.query<{ id: string }>(
              "INSERT INTO attributes (uuid, event_id, object_id, type, category, value, value1, timestamp, distribution) VALUES ($1, $2, $3, 'domain', 'Network activity', 'x', 'x', 1, $4) RETURNING id::text",
              [crypto.randomUUID(), event, object?.id ?? null, attributeLevel],
            )
          ).rows[0].id;
          rows.push({ event: eventRef, object, attribute: { id, distribution: attributeLevel } });
        }
      }
    }
  }
});
afterAll(async () => {
  await db?.close();
  await drop?.();
});

const callers = () => ({ admin: principal(null, true), ownerA: principal(orgs.a), ownerB: principal(orgs.b), otherC: principal(orgs.c), noOrganisation: principal(null) });

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

    const jsObjects = objects.filter((r) => canReadInEvent(p, r.event, r.object!.distribution)).map((r) => r.object!.id);
    const objectParams: unknown[] = [];
    const sqlObjects = (
      await db.pool.query<{ id: number }>(`SELECT o.id FROM objects o JOIN events e ON e.id = o.event_id WHERE ${readableSql(p, "e", ["o.distribution"], objectParams)}`, objectParams)
    ).rows.map((r) => r.id);
    const prismaObjects = (await db.prisma.mispObject.findMany({ where: readableObjectWhere(p), select: { id: true } })).map((r) => r.id);
    expect(sorted(sqlObjects)).toEqual(sorted(jsObjects));
    expect(sorted(prismaObjects)).toEqual(sorted(jsObjects));

    const jsAttributes = rows.filter((r) => canReadInEvent(p, r.event, r.attribute.distribution, r.object?.distribution ?? null)).map((r) => r.attribute.id);
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
    const jsReports = reports.filter((r) => canReadInEvent(p, r.event, r.distribution)).map((r) => r.id);
    const reportParams: unknown[] = [];
    const sqlReports = (
      await db.pool.query<{ id: number }>(`SELECT r.id FROM event_reports r JOIN events e ON e.id = r.event_id WHERE ${readableSql(p, "e", ["r.distribution"], reportParams)}`, reportParams)
    ).rows.map((r) => r.id);
    const prismaReports = (await db.prisma.eventReport.findMany({ where: readableReportWhere(p), select: { id: true } })).map((r) => r.id);
    expect(sorted(sqlReports)).toEqual(sorted(jsReports));
    expect(sorted(prismaReports)).toEqual(sorted(jsReports));
    if (who === "otherC") expect(jsReports.length).toBeGreaterThan(0);
    if (who === "otherC") expect(jsReports.length).toBeLessThan(reports.length);

    // A owns (or created) every event; B owns half of them; C and a caller without an organisation see the shared part only.
    expect(jsAttributes.length).toBeGreaterThan(0);
    if (who === "admin" || who === "ownerA") expect(jsAttributes.length).toBe(rows.length);
    else expect(jsAttributes.length).toBeLessThan(rows.length);
  });
});
