/**
 * A feed whose batches share most of their values with other events: correlation makes exactly the
 * pairs the rule says (per value, the lowest-id attribute of each event represents it; every two
 * representatives pair; a value in more events than the cap pairs nothing; a composite on either
 * side makes a composite pair), each announced once, and a second pass over the same changes
 * changes nothing. The expected pairs are worked out here from the stored rows, independently of the
 * correlator's SQL. ROLE=api: the test runs the correlate_changes job's work itself.
 */
import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { correlateChangeRange } from "../../src/modules/correlations/index.ts";
import { startTestApp, type TestApp } from "../support/app.ts";
import { loginAdmin, type TestUser } from "../support/fixtures.ts";

const SHARED = 1200; // values in every batch that other events hold too
const CAP = 20; // the default max_correlations_per_value

let app: TestApp;
let admin: TestUser;
const q = (sql: string, params: unknown[] = []) => app.booted.ctx.db.pool.query(sql, params);

type Attr = { type: string; value: string };

async function importEvent(attributes: Attr[]): Promise<void> {
  const Attribute = attributes.map((a) => ({ uuid: crypto.randomUUID(), category: "Network activity", ...a }));
  const res = await app.http.post("/events/import", { token: admin.token, json: { Event: { uuid: crypto.randomUUID(), info: `batch ${crypto.randomUUID()}`, Attribute } } });
  expect(res.status, res.text).toBe(201);
}

async function correlateAll(since: number): Promise<{ created: number; removed: number }> {
  const last = (await q("SELECT max(id)::int AS id FROM change_records")).rows[0].id as number;
  const totals = { created: 0, removed: 0 };
  for (let first = since + 1; first <= last; first += 5000) {
    const counts = await correlateChangeRange(app.booted.ctx.db.pool, first, Math.min(first + 4999, last));
    totals.created += counts.created;
    totals.removed += counts.removed;
  }
  return totals;
}

/** The pairs the rule gives for the stored attributes, as `uuid|uuid|match_type` (lower uuid first). */
async function expectedPairs(): Promise<string[]> {
  const { rows } = await q("SELECT a.id::int, a.uuid::text, a.event_id, a.type, a.value1, a.value2 FROM attributes a ORDER BY a.id");
  const reps = new Map<string, Map<number, { uuid: string; type: string }>>();
  for (const r of rows as { uuid: string; event_id: number; type: string; value1: string; value2: string | null }[]) {
    for (const v of [r.value1, r.value2]) {
      if (!v) continue;
      const byEvent = reps.get(v) ?? new Map<number, { uuid: string; type: string }>();
      if (!byEvent.has(r.event_id)) byEvent.set(r.event_id, { uuid: r.uuid, type: r.type });
      reps.set(v, byEvent);
    }
  }
  const pairs = new Set<string>();
  for (const byEvent of reps.values()) {
    if (byEvent.size < 2 || byEvent.size > CAP) continue;
    const list = [...byEvent.values()];
    for (let i = 0; i < list.length; i++) {
      for (let j = i + 1; j < list.length; j++) {
        const [s, t] = [list[i].uuid, list[j].uuid].sort();
        pairs.add(`${s}|${t}|${list[i].type.includes("|") || list[j].type.includes("|") ? "composite" : "term"}`);
      }
    }
  }
  return [...pairs].sort();
}

const storedPairs = async () =>
  (
    await q(`SELECT least(s.uuid::text, t.uuid::text) || '|' || greatest(s.uuid::text, t.uuid::text) || '|' || c.match_type AS k
               FROM correlations c JOIN attributes s ON s.id = c.source_attribute_id JOIN attributes t ON t.id = c.target_attribute_id ORDER BY 1`)
  ).rows.map((r: { k: string }) => r.k);

beforeAll(async () => {
  app = await startTestApp("feeds-correlation-batch", { ROLE: "api" });
  admin = await loginAdmin(app);
}, 60_000);
afterAll(async () => {
  await app?.close();
});

describe("correlating batches that share most of their values", () => {
  it("stores exactly the rule's pairs, once each, and a second pass changes nothing", async () => {
    const salt = crypto.randomBytes(3).toString("hex");
    const domain = (i: number) => `s${i}.${salt}.example`;
    const ip = (i: number) => `10.${(i >> 8) & 255}.${i & 255}.7`;
    // Event A: the shared domains once each, a copy of the first 50 (the lower id represents A).
    await importEvent([...Array.from({ length: SHARED }, (_, i) => ({ type: "domain", value: domain(i) })), ...Array.from({ length: 50 }, (_, i) => ({ type: "domain", value: domain(i) }))]);
    // Event B: the same domains, half of them inside domain|ip composites whose address event C holds.
    await importEvent(Array.from({ length: SHARED }, (_, i) => (i % 2 ? { type: "domain", value: domain(i) } : { type: "domain|ip", value: `${domain(i)}|${ip(i)}` })));
    await importEvent(Array.from({ length: SHARED }, (_, i) => ({ type: "ip-dst", value: ip(i) })));
    // 21 more events hold the first 10 domains: 23 events, over the cap, so those pair nothing.
    for (let e = 0; e < CAP + 1; e++) await importEvent(Array.from({ length: 10 }, (_, i) => ({ type: "domain", value: domain(i) })));

    const first = await correlateAll(0);
    const expected = await expectedPairs();
    expect(expected.length).toBeGreaterThan(SHARED);
    expect(expected.filter((k) => k.endsWith("|composite")).length).toBeGreaterThan(SHARED / 2);
    expect(await storedPairs()).toEqual(expected);
    expect(first.created).toBe(expected.length);
    const announced = (await q("SELECT count(*)::int AS n, count(DISTINCT payload->>'correlation_id')::int AS pairs FROM change_records WHERE kind = 'attribute.correlation.created'")).rows[0];
    expect(announced).toEqual({ n: expected.length, pairs: expected.length });

    const again = await correlateAll(0);
    expect(again).toEqual({ created: 0, removed: 0 });
    expect(await storedPairs()).toEqual(expected);
  }, 120_000);
});
