/**
 * CIDR correlation: which addresses and networks pair (written out by hand here, both directions:
 * networks correlated after the addresses inside them, addresses after the networks around them),
 * and how the statement finds them: through attributes_address_spgist_idx, one lookup per network
 * and per address of the batch, never a read of every stored address. ROLE=api: the test runs the
 * correlate_changes job's work itself.
 */
import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { correlateChangeRange } from "../../src/modules/correlations/index.ts";
import { correlateBatch } from "../../src/modules/correlations/correlation-store.ts";
import { startTestApp, type TestApp } from "../support/app.ts";
import { loginAdmin, type TestUser } from "../support/fixtures.ts";
import { recordStatements } from "../support/statement-counter.ts";

let app: TestApp;
let admin: TestUser;
const q = (sql: string, params: unknown[] = []) => app.booted.ctx.db.pool.query(sql, params);

type Attr = { type: string; value: string; disable_correlation?: boolean };

/** Imports an event and correlates what it changed; returns its attributes' ids by value. */
async function importAndCorrelate(attributes: Attr[]): Promise<Map<string, number>> {
  const since = (await q("SELECT COALESCE(max(id), 0)::int AS id FROM change_records")).rows[0].id as number;
  const uuid = crypto.randomUUID();
  const Attribute = attributes.map((a) => ({ uuid: crypto.randomUUID(), category: "Network activity", ...a }));
  const res = await app.http.post("/events/import", { token: admin.token, json: { Event: { uuid, info: `cidr ${uuid}`, Attribute } } });
  expect(res.status, res.text).toBe(201);
  const last = (await q("SELECT max(id)::int AS id FROM change_records")).rows[0].id as number;
  await correlateChangeRange(app.booted.ctx.db.pool, since + 1, last);
  const { rows } = await q("SELECT a.id::int, a.value FROM attributes a JOIN events e ON e.id = a.event_id WHERE e.uuid = $1", [uuid]);
  return new Map(rows.map((r: { id: number; value: string }) => [r.value, r.id]));
}

/** The stored CIDR pairs among these attributes, as `network value ~ address value` (the pair's value is the network). */
async function cidrPairs(ids: number[]): Promise<string[]> {
  const { rows } = await q(
    `SELECT CASE WHEN strpos(s.value, '/') > 0 THEN s.value ELSE t.value END AS network,
            CASE WHEN strpos(s.value, '/') > 0 THEN t.value ELSE s.value END AS host, c.value
       FROM correlations c JOIN attributes s ON s.id = c.source_attribute_id JOIN attributes t ON t.id = c.target_attribute_id
      WHERE c.match_type = 'cidr' AND c.source_attribute_id = ANY($1::bigint[]) AND c.target_attribute_id = ANY($1::bigint[])`,
    [ids],
  );
  for (const r of rows) expect(r.value, `${r.network} ~ ${r.host}`).toBe(r.network.replace(/\|.*$/, ""));
  return rows.map((r: { network: string; host: string }) => `${r.network} ~ ${r.host}`).sort();
}

beforeAll(async () => {
  app = await startTestApp("correlations-cidr", { ROLE: "api" });
  admin = await loginAdmin(app);
}, 60_000);
afterAll(async () => {
  await app?.close();
});

describe("CIDR containment", () => {
  it("pairs each network with the addresses of other events strictly inside it, IPv4 and IPv6, both ways, and nothing else", async () => {
    // Documentation ranges, unique to this file: the other files' attributes are in other databases.
    const hostsFirst = await importAndCorrelate([
      { type: "ip-src", value: "198.51.100.7" },
      { type: "ip-dst", value: "198.51.100.0" }, // the network's own address is inside it
      { type: "ip-dst|port", value: "198.51.100.255|8080" }, // the last address, through ip|port's address
      { type: "domain|ip", value: "inside.example|198.51.100.9" }, // through domain|ip's address
      { type: "ip-src", value: "198.51.101.0" }, // one past the /24
      { type: "ip-dst", value: "198.51.99.255" }, // one before it
      { type: "ip-src", value: "203.0.113.77/32" }, // stored as the bare address: a host
      { type: "ip-dst", value: "2001:db8:100::1" },
      { type: "ip-src", value: "2001:db8:100:ffff::5/128" }, // a host too
      { type: "ip-dst", value: "2001:db8:101::1" }, // outside the /48
      { type: "ip-src", value: "::ffff:198.51.100.8" }, // v4-mapped: an IPv6 address, outside every IPv4 network
      { type: "ip-dst", value: "198.51.100.70", disable_correlation: true }, // inside, but never correlates
      { type: "ip-dst", value: "198.51.100.128/25" }, // a network inside the /24 and /25 below: networks never pair with networks
    ]);
    const networks = await importAndCorrelate([
      { type: "ip-dst", value: "198.51.100.0/24" },
      { type: "ip-src", value: "203.0.113.0/24" },
      { type: "ip-src", value: "2001:db8:100::/48" },
      { type: "ip-dst", value: "::ffff:198.51.100.0/120" },
      { type: "ip-dst", value: "192.0.2.5/24" }, // host bits kept as given: still the network 192.0.2.0/24
      { type: "ip-dst", value: "192.0.2.128/25", disable_correlation: true },
      { type: "ip-src", value: "198.51.100.50" }, // inside the /24 of its own event: no pair
    ]);
    const moreNetworks = await importAndCorrelate([{ type: "ip-dst", value: "198.51.100.0/25" }]);
    const hostsAfter = await importAndCorrelate([
      { type: "ip-dst", value: "192.0.2.200" },
      { type: "ip-src", value: "198.51.100.77" },
      { type: "ip-dst|port", value: "2001:db8:100::abcd|443" },
      { type: "domain|ip", value: "after.example|203.0.113.9" },
      { type: "ip-dst", value: "203.0.114.1" },
      { type: "ip-src", value: "198.51.100.78", disable_correlation: true },
    ]);
    const ids = [hostsFirst, networks, moreNetworks, hostsAfter].flatMap((m) => [...m.values()]);
    expect(ids).toHaveLength(13 + 7 + 1 + 6);
    expect(await cidrPairs(ids)).toEqual(
      [
        "198.51.100.0/24 ~ 198.51.100.7",
        "198.51.100.0/24 ~ 198.51.100.0",
        "198.51.100.0/24 ~ 198.51.100.255|8080",
        "198.51.100.0/24 ~ inside.example|198.51.100.9",
        "198.51.100.0/24 ~ 198.51.100.77",
        "198.51.100.0/25 ~ 198.51.100.7",
        "198.51.100.0/25 ~ 198.51.100.0",
        "198.51.100.0/25 ~ inside.example|198.51.100.9",
        "198.51.100.0/25 ~ 198.51.100.77",
        "198.51.100.0/25 ~ 198.51.100.50",
        "203.0.113.0/24 ~ 203.0.113.77",
        "203.0.113.0/24 ~ after.example|203.0.113.9",
        "2001:db8:100::/48 ~ 2001:db8:100::1",
        "2001:db8:100::/48 ~ 2001:db8:100:ffff::5",
        "2001:db8:100::/48 ~ 2001:db8:100::abcd|443",
        "::ffff:198.51.100.0/120 ~ ::ffff:198.51.100.8",
        "192.0.2.5/24 ~ 192.0.2.200",
      ].sort(),
    );
  }, 60_000);
});

/** Every plan node of an EXPLAIN (FORMAT JSON) answer. */
function nodesOf(plan: Record<string, unknown>): Record<string, unknown>[] {
  return [plan, ...((plan.Plans as Record<string, unknown>[] | undefined) ?? []).flatMap(nodesOf)];
}

describe("the CIDR statement's plan", () => {
  it("finds the addresses inside a network and the networks around an address through the SP-GiST index, with and without statistics", async () => {
    const STORED = 20_000;
    const client = await app.booted.ctx.db.pool.connect();
    try {
      await client.query("BEGIN");
      const event = await client.query("INSERT INTO events (uuid, info, date, timestamp, org_id, orgc_id) SELECT $1, 'plan', now(), 0, id, id FROM organisations LIMIT 1 RETURNING id", [crypto.randomUUID()]);
      const eventId = event.rows[0].id;
      // Stored addresses in 10.0.0.0/8 (every value unique) and a few networks, written directly: only their number matters here.
      await client.query(
        `INSERT INTO attributes (uuid, event_id, type, category, value, value1, timestamp)
         SELECT gen_random_uuid(), $1::int, CASE WHEN g % 2 = 0 THEN 'ip-dst' ELSE 'ip-src' END, 'Network activity', v, v, 0
           FROM generate_series(1, $2::int) g CROSS JOIN LATERAL (SELECT '10.' || (g >> 16 & 255) || '.' || (g >> 8 & 255) || '.' || (g & 255) AS v) x
         UNION ALL
         SELECT gen_random_uuid(), $1::int, 'ip-dst', 'Network activity', v, v, 0
           FROM generate_series(1, 50) g CROSS JOIN LATERAL (SELECT '172.' || (16 + g % 16) || '.' || g || '.0/24' AS v) x`,
        [eventId, STORED],
      );
      // A batch of another event: a network around 16 stored addresses and an address inside a stored network.
      const other = await client.query("INSERT INTO events (uuid, info, date, timestamp, org_id, orgc_id) SELECT $1, 'plan batch', now(), 0, org_id, orgc_id FROM events WHERE id = $2 RETURNING id", [crypto.randomUUID(), eventId]);
      const batch = await client.query(
        `INSERT INTO attributes (uuid, event_id, type, category, value, value1, timestamp)
         VALUES (gen_random_uuid(), $1, 'ip-dst', 'Network activity', '10.0.1.16/28', '10.0.1.16/28', 0),
                (gen_random_uuid(), $1, 'ip-src', 'Network activity', '172.17.1.9', '172.17.1.9', 0) RETURNING id`,
        [other.rows[0].id],
      );
      const ids = batch.rows.map((r: { id: string }) => Number(r.id));

      for (const statistics of [false, true]) {
        if (statistics) await client.query("ANALYZE attributes");
        // The statement as the correlator sends it, read on its way to the database.
        const { client: spy, sent } = recordStatements(client);
        await client.query("SAVEPOINT batch");
        const outcome = await correlateBatch(spy, ids, { maxEventsPerValue: 20, matchTypes: ["cidr"] });
        expect(outcome.created, `statistics: ${statistics}`).toHaveLength(16 + 1);
        await client.query("ROLLBACK TO SAVEPOINT batch");
        const cidr = sent.find((s) => s.text.includes(" << "));
        expect(cidr).toBeDefined();
        const { rows } = await client.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${cidr!.text}`, cidr!.values);
        const nodes = nodesOf(rows[0]["QUERY PLAN"][0].Plan);
        const onAttributes = nodes.filter((n) => n["Relation Name"] === "attributes");
        const plan = nodes.map((n) => `${n["Node Type"]} ${n["Relation Name"] ?? ""} ${n["Index Name"] ?? ""} rows=${n["Actual Rows"]} loops=${n["Actual Loops"]}`).join("\n");
        expect(onAttributes.filter((n) => n["Node Type"] === "Seq Scan"), plan).toEqual([]);
        // One lookup per arm: the network's addresses (<<) and the address's networks (>>), not
        // ANDed with another index of attributes (the type index holds every address).
        expect(nodes.filter((n) => n["Index Name"] === "attributes_address_spgist_idx"), plan).toHaveLength(2);
        expect(nodes.map((n) => n["Index Name"]).filter((i) => typeof i === "string" && i.startsWith("attributes_")).sort(), plan).toEqual(
          ["attributes_address_spgist_idx", "attributes_address_spgist_idx", "attributes_pkey"],
        );
        // Rows read from attributes: the batch's two by primary key and what the lookups found, not the stored 20,050.
        const read = onAttributes.reduce((sum, n) => sum + Number(n["Actual Rows"]) * Number(n["Actual Loops"]), 0);
        expect(read, plan).toBeLessThan(100);
      }
    } finally {
      await client.query("ROLLBACK");
      client.release();
    }
  }, 60_000);
});

describe("a network around more events than the cap", () => {
  it("stops reading its addresses once they span the cap's events; one below the cap with more addresses is read whole", async () => {
    const CAP = 20;
    const client = await app.booted.ctx.db.pool.connect();
    try {
      await client.query("BEGIN");
      const org = (await client.query("SELECT id FROM organisations LIMIT 1")).rows[0].id;
      const newEvent = async (info: string) =>
        Number((await client.query("INSERT INTO events (uuid, info, date, timestamp, org_id, orgc_id) VALUES ($1, $2, now(), 0, $3, $3) RETURNING id", [crypto.randomUUID(), info, org])).rows[0].id);
      const storeAddresses = (events: number[], prefix: string, n: number) =>
        client.query(
          `INSERT INTO attributes (uuid, event_id, type, category, value, value1, timestamp)
           SELECT gen_random_uuid(), ($1::int[])[1 + g % cardinality($1::int[])], 'ip-dst', 'Network activity', v, v, 0
             FROM generate_series(0, $3::int - 1) g CROSS JOIN LATERAL (SELECT $2 || (g >> 8) || '.' || (g & 255) AS v) x`,
          [events, prefix, n],
        );
      // 2,500 addresses in 10.200.0.0/16 spread over 25 events, and 1,800 in 10.201.0.0/16 over 3.
      const many = await Promise.all(Array.from({ length: 25 }, (_, i) => newEvent(`many ${i}`)));
      await storeAddresses(many, "10.200.", 2500);
      const few = await Promise.all(Array.from({ length: 3 }, (_, i) => newEvent(`few ${i}`)));
      await storeAddresses(few, "10.201.", 1800);
      const batchEvent = await newEvent("networks");
      const network = async (value: string) =>
        Number((await client.query("INSERT INTO attributes (uuid, event_id, type, category, value, value1, timestamp) VALUES (gen_random_uuid(), $1, 'ip-dst', 'Network activity', $2, $2, 0) RETURNING id", [batchEvent, value])).rows[0].id);
      const over = await network("10.200.0.0/16");
      const under = await network("10.201.0.0/16");

      const correlate = async (id: number) => {
        const { client: spy, sent } = recordStatements(client);
        await client.query("SAVEPOINT batch");
        const outcome = await correlateBatch(spy, [id], { maxEventsPerValue: CAP, matchTypes: ["cidr"] });
        await client.query("ROLLBACK TO SAVEPOINT batch");
        return { created: outcome.created.length, lookups: sent.filter((s) => s.text.includes(" << ")) };
      };

      // Over the cap: no pairs, and the lookup read about a thousand of the 2,500 addresses.
      const o = await correlate(over);
      expect(o.created).toBe(0);
      expect(o.lookups).toHaveLength(1);
      const { rows } = await client.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${o.lookups[0].text}`, o.lookups[0].values);
      const nodes = nodesOf(rows[0]["QUERY PLAN"][0].Plan);
      const plan = nodes.map((n) => `${n["Node Type"]} ${n["Relation Name"] ?? ""} ${n["Index Name"] ?? ""} rows=${n["Actual Rows"]} loops=${n["Actual Loops"]}`).join("\n");
      const found = nodes.filter((n) => n["Index Name"] === "attributes_address_spgist_idx").reduce((sum, n) => sum + Number(n["Actual Rows"]) * Number(n["Actual Loops"]), 0);
      expect(found, plan).toBeLessThanOrEqual(1001);

      // Below the cap with more addresses than a first read takes: every pair, read again whole.
      const u = await correlate(under);
      expect(u.created).toBe(1800);
      expect(u.lookups).toHaveLength(2);
    } finally {
      await client.query("ROLLBACK");
      client.release();
    }
  }, 60_000);
});
