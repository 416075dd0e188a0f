/**
 * MCP's get_statistics and the complete get_event with the SDK's own client over HTTP, and the
 * per-caller search limit answered as a tool error with retry advice. Data: the shared Sednit
 * event (49 objects, 4 galaxies, 18 tags) and a 370-attribute event with values of up to 12 799
 * characters from `../shared/data`, and events of two organisations imported with fixed timestamps
 * in the future, so that a time range selects exactly them.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import pg from "pg";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { callTool as call, connectMcp, toolOk as ok, toolRefused as refused, toolText as text } from "../support/mcp-client.ts";
import { createOrganisation, createUser, loginAdmin, type TestUser } from "../support/fixtures.ts";
import { eventually } from "../support/process.ts";
import { settled } from "../support/settled.ts";
import { sharedPath } from "../support/shared-data.ts";

const SEDNIT = "5a3c2fcd-8328-42bb-a95e-4f4402de0b81"; // distribution 3, 9 attributes, 49 objects, 4 galaxies, 18 tags, timestamp 2017
const LONG = "57153590-f73c-49fa-be4b-4737950d210f"; // 370 attributes, values up to 12 799 characters
const READS = ["events:read", "attributes:read", "objects:read", "tags:read", "correlations:read", "sightings:read"];
/** 2030-03-17: after anything else in the database, so a range starting here holds only this test's events. */
const T = 1_900_000_000;

let app: TestApp;
let admin: TestUser;
let analyst: TestUser; // the administrator's organisation (A)
let outsider: TestUser; // organisation B
let analystMcp: Client;
let outsiderMcp: Client;
const clients: Client[] = [];
const own = { event: crypto.randomUUID(), late: crypto.randomUUID(), tag: `stats-a-${crypto.randomUUID()}`, attributeTag: `stats-attr-${crypto.randomUUID()}` };
const theirs = { event: crypto.randomUUID(), hidden: crypto.randomUUID(), hiddenValue: `${crypto.randomUUID()}.hidden.example`, domain: crypto.randomUUID() };

const connect = (token: string) => connectMcp(app.url, token, clients);

const mcpFor = async (user: TestUser) => {
  const minted = await app.http.get("/mcp/config", { token: user.token });
  expect(minted.status, minted.text).toBe(200);
  return connect(minted.body.token);
};




const attr = (uuid: string, type: string, value: string, distribution: number, timestamp: number, tags: string[] = []) => ({
  uuid, type, value, distribution: String(distribution), timestamp: String(timestamp), to_ids: false, Tag: tags.map((name) => ({ name })),
});
const mispEvent = (uuid: string, distribution: number, timestamp: number, attributes: unknown[], tags: string[] = []) => ({
  Event: { uuid, info: `stats ${uuid}`, date: "2030-01-01", distribution: String(distribution), analysis: "0", threat_level_id: "2", timestamp: String(timestamp), published: false, Tag: tags.map((name) => ({ name })), Attribute: attributes },
});

async function importAs(user: TestUser, doc: unknown): Promise<void> {
  const res = await app.http.post("/events/import", { token: user.token, json: doc });
  expect(res.status, res.text).toBe(201);
}

beforeAll(async () => {
  app = await startTestApp("mcp-event-stats", { ROLE: "all" });
  admin = await loginAdmin(app);
  for (const file of ["pymisp-mispevent_testfiles-existing_event.json", "pymisp-reportlab-long_event.json"]) {
    await importAs(admin, JSON.parse(fs.readFileSync(sharedPath("misp-events", file), "utf8")));
  }
  analyst = await createUser(app, admin, [...READS, "events:create", "tags:create", "mcp:*"]);
  outsider = await createUser(app, admin, [...READS, "events:create", "tags:create", "mcp:*"], await createOrganisation(app, admin));

  // A's private event in the range: three ip-dst (one tagged) and a domain; another one after the range.
  await importAs(
    analyst,
    mispEvent(own.event, 0, T, [
      attr(crypto.randomUUID(), "ip-dst", "198.51.100.1", 5, T, [own.attributeTag]),
      attr(crypto.randomUUID(), "ip-dst", "198.51.100.2", 5, T),
      attr(crypto.randomUUID(), "ip-dst", "198.51.100.3", 5, T),
      attr(crypto.randomUUID(), "domain", "movieultimate.com", 5, T),
    ], [own.tag]),
  );
  await importAs(analyst, mispEvent(own.late, 0, T + 100, [attr(crypto.randomUUID(), "md5", "d41d8cd98f00b204e9800998ecf8427e", 5, T + 100)]));
  // B's event shared with all, with one attribute for B's organisation only.
  await importAs(
    outsider,
    mispEvent(theirs.event, 3, T + 5, [attr(theirs.domain, "domain", `${crypto.randomUUID()}.example`, 5, T + 5), attr(theirs.hidden, "hostname", theirs.hiddenValue, 0, T + 5)]),
  );
  analystMcp = await mcpFor(analyst);
  outsiderMcp = await mcpFor(outsider);
  await settled(app, 60_000);
}, 180_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  await app?.close();
});

const top = (keys: { top: { key: string; count: number }[] }) => Object.fromEntries(keys.top.map((k) => [k.key, k.count]));

describe("get_statistics", () => {
  it("counts what the caller may read in the time range, by type, category and tag", async () => {
    const range = { from: T, to: T + 10 };
    const mine = await ok(analystMcp, "get_statistics", range);
    expect(mine.time_range).toEqual({ from: new Date(T * 1000).toISOString(), to: new Date((T + 10) * 1000).toISOString() });
    expect(mine.events).toMatchObject({ total: 2, published: 0 });
    expect(top(mine.events.by_tag)).toEqual({ [own.tag]: 1 });
    expect(top(mine.events.by_threat_level)).toEqual({ 2: 2 });
    // B's organisation-only hostname is not counted; A's own distribution-0 event is.
    expect(mine.attributes).toMatchObject({ total: 5, events: 2 });
    expect(mine.attributes.by_type).toEqual({ distinct: 2, top: [{ key: "ip-dst", count: 3 }, { key: "domain", count: 2 }] });
    expect(mine.attributes.by_category).toEqual({ distinct: 1, top: [{ key: "Network activity", count: 5 }] });
    expect(mine.attributes.by_tag).toEqual({ distinct: 1, top: [{ key: own.attributeTag, count: 1 }] });

    // B sees its own event whole, and nothing of A's private one.
    const b = await call(outsiderMcp, "get_statistics", range);
    expect(b.isError).toBeFalsy();
    expect(b.structuredContent.events).toMatchObject({ total: 1 });
    expect(b.structuredContent.attributes).toMatchObject({ total: 2, events: 1, by_type: { distinct: 2 } });
    expect(top(b.structuredContent.attributes.by_type)).toEqual({ domain: 1, hostname: 1 });
    expect(text(b)).not.toContain(own.tag);
    expect(text(b)).not.toContain(own.attributeTag);
  });

  it("takes open ranges and a top, and refuses a reversed range naming the argument", async () => {
    const later = await ok(analystMcp, "get_statistics", { from: T + 50 });
    expect(later.attributes).toMatchObject({ total: 1, by_type: { distinct: 1, top: [{ key: "md5", count: 1 }] } });
    const all = await ok(analystMcp, "get_statistics", { top: 1 });
    expect(all.attributes.total).toBeGreaterThan(370);
    expect(all.attributes.by_type.top).toHaveLength(1);
    expect(all.attributes.by_type.distinct).toBeGreaterThan(3);
    expect(all.events.total).toBeGreaterThanOrEqual(5);
    expect(await refused(analystMcp, "get_statistics", { from: T + 10, to: T })).toMatch(/validation_error.*from/s);
    await refused(analystMcp, "get_statistics", { top: 101 });
    await refused(analystMcp, "get_statistics", { from: "last week" });
  });
});

describe("get_event", () => {
  it("reads the event with tags, galaxies, retention badge, related events and pages of attributes and objects", async () => {
    expect((await app.http.post("/settings/runtime/retention", { token: admin.token, json: { enabled: true, period_days: 365, warning_days: 30, exempt_tags: [], purge_deleted_after_days: 30 } })).status).toBe(200);
    const first = await eventually(async () => {
      const r = await ok(analystMcp, "get_event", { event_uuid: SEDNIT });
      return r.related_events.length > 0 ? r : undefined;
    }, "Sednit's related events", 30_000, 200);
    expect(first.event).toMatchObject({ uuid: SEDNIT, distribution: 3, object_count: 49 });
    expect(first.event.retention).toMatchObject({ status: "expired" });
    expect(first.event.tags).toHaveLength(18);
    expect(first.galaxies).toHaveLength(4);
    expect(first.galaxies[0]).toMatchObject({ type: "threat-actor", name: "Threat Actor", cluster_total: 1, clusters: [{ value: "Sofacy", tag_name: 'misp-galaxy:threat-actor="Sofacy"' }] });
    expect(first.galaxies[0].clusters[0].meta).toBeUndefined();
    // A's event holds movieultimate.com too.
    expect(first.related_events).toContainEqual(expect.objectContaining({ uuid: own.event, correlation_count: 1 }));
    expect(first).toMatchObject({ attribute_total: 9, attribute_page: 1, next_attribute_page: null, object_total: 49, object_page: 1, next_object_page: 2 });
    expect(first.attributes).toHaveLength(9);
    expect(first.objects).toHaveLength(20);
    for (const o of first.objects) {
      expect(o.attributes.length).toBe(Math.min(o.attribute_total, 20));
      expect(o.event_uuid).toBe(SEDNIT);
    }
    const last = await ok(analystMcp, "get_event", { event_uuid: SEDNIT, object_page: 3 });
    expect(last).toMatchObject({ object_page: 3, next_object_page: null });
    expect(last.objects).toHaveLength(9);
    const seen = new Set([...first.objects, ...(await ok(analystMcp, "get_event", { event_uuid: SEDNIT, object_page: 2 })).objects, ...last.objects].map((o: { uuid: string }) => o.uuid));
    expect(seen.size).toBe(49);
  });

  it("caps a large event's attributes at 100 a page and cuts long values with a marker", async () => {
    const pages = [];
    for (let page = 1; page <= 4; page++) pages.push(await ok(analystMcp, "get_event", { event_uuid: LONG, attribute_page: page }));
    expect(pages.map((p) => p.attributes.length)).toEqual([100, 100, 100, 70]);
    expect(pages.map((p) => p.next_attribute_page)).toEqual([2, 3, 4, null]);
    expect(pages[0].attribute_total).toBe(370);
    expect(new Set(pages.flatMap((p) => p.attributes.map((a: { uuid: string }) => a.uuid))).size).toBe(370);
    const cut = pages.flatMap((p) => p.attributes).filter((a: { value: string }) => a.value.includes("…[truncated "));
    expect(cut.length).toBeGreaterThan(0);
    for (const a of cut) expect(a.value.length).toBeLessThan(2_100);
    const longest = await app.http.get(`/attributes/${cut[0].uuid}`, { token: analyst.token });
    expect(cut[0].value).toBe(`${longest.body.value.slice(0, 2_000)}…[truncated ${longest.body.value.length - 2_000} characters]`);
  });

  it("shows only what the caller may read: no other organisation's private event or attributes; objects and related events need their reads", async () => {
    expect(await refused(outsiderMcp, "get_event", { event_uuid: own.event })).toMatch(/not_found/);
    const shared = await ok(analystMcp, "get_event", { event_uuid: theirs.event });
    expect(shared.attribute_total).toBe(1);
    expect(shared.attributes.map((a: { uuid: string }) => a.uuid)).toEqual([theirs.domain]);
    expect(JSON.stringify(shared)).not.toContain(theirs.hiddenValue);
    expect((await ok(outsiderMcp, "get_event", { event_uuid: theirs.event })).attribute_total).toBe(2);

    const narrow = await mcpFor(await createUser(app, admin, ["events:read", "attributes:read", "mcp:*"]));
    const bare = await ok(narrow, "get_event", { event_uuid: SEDNIT });
    expect(bare).toMatchObject({ objects: null, object_total: null, related_events: [], attribute_total: 9 });
    expect(bare.objects_omitted).toMatch(/objects:read/);
  });
});

describe("caller limits over MCP", () => {
  const SEARCH_TABLES = "search_documents, search_postings, search_terms";

  it("answers a search beyond the caller's concurrent searches as a tool error with retry advice, and serves again once they end", async () => {
    await settled(app, 60_000);
    const locker = new pg.Client({ connectionString: app.databaseUrl });
    await locker.connect();
    let released = false;
    try {
      await locker.query(`BEGIN; LOCK TABLE ${SEARCH_TABLES} IN ACCESS EXCLUSIVE MODE`);
      // The default limit is 4 searches per user at once.
      const held = [
        call(analystMcp, "search_attributes", { query: "type:domain" }),
        call(analystMcp, "search_events", { query: "*" }),
        call(analystMcp, "search_attributes", { query: "type:url" }),
        call(analystMcp, "search_events", { query: "info:*" }),
      ];
      const watcher = new pg.Client({ connectionString: app.databaseUrl });
      await watcher.connect();
      try {
        // Asked outside the locking transaction: activity statistics are a snapshot per transaction.
        const waiting = async () => (await watcher.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'")).rows[0].n;
        await eventually(async () => (await waiting()) >= 4 || null, "4 searches waiting on the lock", 15_000);
      } finally {
        await watcher.end();
      }

      const refusedSearch = await call(analystMcp, "search_attributes", { query: "type:ip-dst" });
      expect(refusedSearch.isError).toBe(true);
      expect(text(refusedSearch)).toMatch(/^rate_limited: .*Retry after 1 seconds; run fewer searches at once\.$/s);
      expect(refusedSearch.structuredContent).toMatchObject({ code: "rate_limited", retry_after: 1 });
      // The statistics take a search slot too; a second session of the same user shares the limit.
      expect(text(await call(analystMcp, "get_statistics", {}))).toMatch(/^rate_limited/);
      const second = await mcpFor(analyst);
      expect(text(await call(second, "search_events", { query: "*" }))).toMatch(/^rate_limited/);
      // Another user is not limited by the first one's searches (theirs waits on the lock like any).
      const others = call(outsiderMcp, "search_attributes", { query: "type:domain" });

      await locker.query("ROLLBACK");
      released = true;
      for (const r of await Promise.all([...held, others])) expect(r.isError, text(r).slice(0, 300)).toBeFalsy();
      expect((await ok(analystMcp, "search_attributes", { query: "type:ip-dst" })).total).toBeGreaterThanOrEqual(3);
    } finally {
      if (!released) await locker.query("ROLLBACK").catch(() => undefined);
      await locker.end();
    }
  }, 60_000);
});
