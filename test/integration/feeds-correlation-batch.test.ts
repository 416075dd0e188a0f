/**
 * A feed whose batches share most of their values with other events: correlation makes exactly the
 * pairs the rule says (per value, the lowest-id attribute of each event represents it; every two
 * representatives pair; a value in more events than the cap pairs nothing; a composite on either
 * side makes a composite pair; a network pairs with the addresses of other events inside it, both
 * when the network comes after them and when they come after it), each announced once, and a second pass over the same changes
 * changes nothing. The expected pairs are worked out here from the stored rows, independently of the
 * correlator's SQL. ROLE=api: the test runs the correlate_changes job's work itself.
 */
import crypto from "node:crypto";
import net from "node:net";
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

const lastChangeId = async () => (await q("SELECT COALESCE(max(id), 0)::int AS id FROM change_records")).rows[0].id as number;

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

/** Where each address type keeps its address (the correlation rules' cidrTypes). */
const ADDRESS_COLUMN: Record<string, "value1" | "value2"> = { "ip-src": "value1", "ip-dst": "value1", "ip-src|port": "value1", "ip-dst|port": "value1", "domain|ip": "value2" };

/** CIDR pairs: each network with every address of another event inside it (networks around at most CAP events). */
function cidrPairs(rows: { uuid: string; event_id: number; type: string; value1: string; value2: string | null }[]): string[] {
  const addressOf = (r: (typeof rows)[number]) => (ADDRESS_COLUMN[r.type] ? r[ADDRESS_COLUMN[r.type]] : null);
  const hosts = rows.filter((r) => addressOf(r) && !addressOf(r)!.includes("/"));
  const pairs: string[] = [];
  for (const n of rows.filter((r) => addressOf(r)?.includes("/"))) {
    const [address, bits] = addressOf(n)!.split("/");
    const list = new net.BlockList();
    list.addSubnet(address, Number(bits));
    const inside = hosts.filter((h) => h.event_id !== n.event_id && list.check(addressOf(h)!));
    if (new Set([n.event_id, ...inside.map((h) => h.event_id)]).size > CAP) continue;
    for (const h of inside) pairs.push(`${[n.uuid, h.uuid].sort().join("|")}|cidr`);
  }
  return pairs;
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
  const pairs = new Set<string>(cidrPairs(rows));
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
    // Networks around addresses correlated above (B's composites, C's ip-dst), then addresses inside
    // them, each correlated in its own pass: both directions of CIDR containment.
    let since = await lastChangeId();
    await importEvent([{ type: "ip-dst", value: "10.1.0.0/16" }, { type: "ip-src", value: "10.2.0.0/24" }, { type: "ip-dst", value: "10.3.0.0/16" }]);
    const networks = await correlateAll(since);
    since = await lastChangeId();
    await importEvent([{ type: "ip-src", value: "10.1.200.9" }, { type: "ip-dst|port", value: "10.3.17.4|443" }]);
    const addresses = await correlateAll(since);
    expect(networks.created).toBeGreaterThan(SHARED / 2);
    expect(addresses.created).toBe(2);
    const expected = await expectedPairs();
    expect(expected.length).toBeGreaterThan(SHARED);
    expect(expected.filter((k) => k.endsWith("|composite")).length).toBeGreaterThan(SHARED / 2);
    expect(expected.filter((k) => k.endsWith("|cidr")).length).toBeGreaterThan(SHARED / 2);
    expect(await storedPairs()).toEqual(expected);
    expect(first.created + networks.created + addresses.created).toBe(expected.length);
    const announced = (await q("SELECT count(*)::int AS n, count(DISTINCT payload->>'correlation_id')::int AS pairs FROM change_records WHERE kind = 'attribute.correlation.created'")).rows[0];
    expect(announced).toEqual({ n: expected.length, pairs: expected.length });

    const again = await correlateAll(0);
    expect(again).toEqual({ created: 0, removed: 0 });
    expect(await storedPairs()).toEqual(expected);
  }, 120_000);
});
