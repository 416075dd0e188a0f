/**
 * How restSearch's filters reach the PostgreSQL search backend: a tag (or searchall) also matches
 * through the events its attributes carry it in (or the reverse for attributes), a set found by a
 * search of the other index. When that set is empty, the query must be the filter alone, which the
 * backend answers from its postings; `tag OR uuid:<nil>` was answered from every candidate
 * document's JSON (a full page of 50 events 2-3x slower than the native search at 300,000
 * attributes). Answers are checked too: an attribute's tag still finds its event. Then the events'
 * read behind a metadata answer: without JIT, which compiled its per-event counts for 23-26 ms of a
 * 31 ms statement once the planner's statistics put hundreds of attributes in each event.
 */
import crypto from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Principal } from "../../src/auth/principal.ts";
import { INDEX_FIELDS } from "../../src/search/fields.ts";
import { planPostings } from "../../src/search/postgres/postings-plan.ts";
import { restSearchContract } from "../../rest-shim/misp/rest-search-contract.ts";
import { attributesQuery, eventsQuery, type SearchRun } from "../../rest-shim/misp/rest-search-query.ts";
import { startTestApp, type TestApp } from "../support/app.ts";
import { createUser, loginAdmin } from "../support/fixtures.ts";
import { settled } from "../support/settled.ts";

const SCOPES = ["events:read", "events:create", "attributes:read", "attributes:create", "tags:read", "tags:create"];

describe("restSearch's searches and reads on the PostgreSQL backend", () => {
  const run = crypto.randomBytes(4).toString("hex");
  const [eventTag, attributeTag] = [`plan-${run}:event`, `plan-${run}:attribute`];
  let app: TestApp;
  let key: string;
  let p: Principal;
  const uuids = { tagged: "", attributeTagged: "" };

  beforeAll(async () => {
    app = await startTestApp("misp-rs-plan", { ROLE: "all" });
    const admin = await loginAdmin(app);
    const user = await createUser(app, admin, [...SCOPES, "api_keys:create"]);
    key = (await app.http.post("/api-keys/", { token: user.token, json: { name: "misp", scopes: SCOPES } })).body.token as string;
    p = (await app.booted.services.authenticator.authenticate([`Bearer ${user.token}`], { ip: null, userAgent: null }))!;
    const add = async (Event: Record<string, unknown>) => {
      const res = await app.http.request("POST", "/misp/events/add", { authorization: key, json: { Event } });
      expect(res.status, res.text).toBe(200);
      return res.body.Event.uuid as string;
    };
    uuids.tagged = await add({ info: `tagged ${run}`, date: "2026-06-01", distribution: 1, Tag: [{ name: eventTag }], Attribute: [{ type: "domain", value: `a-${run}.example` }] });
    uuids.attributeTagged = await add({ info: `attribute tagged ${run}`, date: "2026-06-02", distribution: 1, Attribute: [{ type: "domain", value: `b-${run}.example`, comment: `searchall-${run}`, Tag: [{ name: attributeTag }] }] });
    await settled(app);
  });
  afterAll(() => app?.close());

  /** Whether the PostgreSQL backend answers this run from its postings (its planner's own decision). */
  const fromPostings = (r: SearchRun) => {
    const index = r.target === "events" ? "svc-events" : "svc-attributes";
    const req = { index, query: r.query, defaultFields: INDEX_FIELDS[index].defaultFields, access: { admin: false, orgId: p.orgId }, filters: { deleted: false }, from: 0, size: 50, sort: { field: "@timestamp", order: "desc" }, timeoutMs: 10_000 } as const;
    return planPostings(req, Date.now()) !== null;
  };
  const filters = (f: Record<string, unknown>) => restSearchContract.parse(f);
  const restSearch = async (controller: "events" | "attributes", json: Record<string, unknown>) => {
    const res = await app.http.request("POST", `/misp/${controller}/restSearch`, { authorization: key, json });
    expect(res.status, res.text).toBe(200);
    return controller === "events" ? (res.body.response as { Event: { uuid: string } }[]).map((e) => e.Event.uuid) : (res.body.response.Attribute as { event_uuid: string }[]).map((a) => a.event_uuid);
  };

  it("events: a tag no attribute carries, with a date range, is answered from the postings", async () => {
    const f = { tags: eventTag, from: "2026-01-01", to: "2026-12-31", limit: 50, metadata: 1 };
    expect(fromPostings(await eventsQuery(app.booted.services, p, filters(f)))).toBe(true);
    expect(await restSearch("events", f)).toEqual([uuids.tagged]);
  });

  it("events: a tag an attribute carries still finds that attribute's event", async () => {
    expect(await restSearch("events", { tags: attributeTag, from: "2026-01-01", to: "2026-12-31", limit: 50, metadata: 1 })).toEqual([uuids.attributeTagged]);
  });

  it("attributes: a tag no event carries is answered from the postings; an event's tag finds its attributes", async () => {
    const f = { tags: attributeTag, limit: 50, includeEventUuid: 1 };
    expect(fromPostings(await attributesQuery(app.booted.services, p, filters(f)))).toBe(true);
    expect(await restSearch("attributes", f)).toEqual([uuids.attributeTagged]);
    expect(await restSearch("attributes", { tags: eventTag, limit: 50, includeEventUuid: 1 })).toEqual([uuids.tagged]);
  });

  it("searchall that no attribute matches leaves out the empty set of events", async () => {
    const f = { searchall: `tagged ${run}%`, limit: 50, metadata: 1 };
    const q = await eventsQuery(app.booted.services, p, filters(f));
    expect(JSON.stringify(q.query)).not.toContain("00000000-0000-0000-0000-000000000000");
    expect(await restSearch("events", f)).toEqual([uuids.tagged]);
    expect(await restSearch("events", { searchall: `searchall-${run}`, limit: 50, metadata: 1 })).toEqual([uuids.attributeTagged]);
  });

  it("reads a page of events with their counts without JIT", async () => {
    // The session's jit setting as the events' page statement runs: asked on its connection right
    // after it, before anything else the service sends there (a connection runs its queries in order).
    const settings: Promise<string>[] = [];
    const query = pg.Client.prototype.query;
    const observed = function (this: pg.Client, ...args: unknown[]) {
      const result = (query as (...a: unknown[]) => unknown).apply(this, args);
      const text = typeof args[0] === "string" ? args[0] : "";
      if (text.includes("e.uuid = ANY($1::uuid[])") && text.includes("AS attribute_count")) {
        // Awaited below: the answer can be sent before this ask returns.
        settings.push((query as (text: string) => Promise<pg.QueryResult<{ jit: string }>>).call(this, "SELECT current_setting('jit') AS jit").then((r) => r.rows[0]!.jit));
      }
      return result;
    };
    pg.Client.prototype.query = observed as typeof query;
    try {
      expect(await restSearch("events", { eventinfo: `tagged ${run}`, limit: 50, metadata: 1 })).toEqual([uuids.tagged]);
    } finally {
      pg.Client.prototype.query = query;
    }
    expect(await Promise.all(settings)).toEqual(["off"]);
  });
});
