/**
 * CIDR correlation at scale, in process (no HTTP, no worker), on a scratch database cloned from the
 * test template (TEST_DATABASE_URL), dropped at the end:
 *
 * 1. base: `--addresses N` stored addresses (default 100,000) in events of 1,000, written through
 *    `writeEventDraft` (the attributes' indexes included: the store's share of the cost), not
 *    correlated (their values are unique);
 * 2. networks: one event of `--networks M` networks (default 5,000; half inside the stored range,
 *    /28s with a /24 in ten, IPv6 /120s in ten; the other half outside it), correlated by
 *    `correlateChangeRange`: each network finds the stored addresses inside it;
 * 3. hosts: one event of `--hosts K` addresses (default 5,000; half inside the networks), correlated
 *    the same way: each address finds the stored networks around it;
 * 4. wide (`--wide W`, default 0): one event of W /16 networks over the stored range (10.0.0.0/16,
 *    10.1.0.0/16, ...: about 21,800 stored addresses each), around more events than the cap: they pair
 *    with nothing, and what they cost is reading their addresses. With `--spread` the k-th stored
 *    address is in event k mod E (E events of 1,000) instead of event k / 1,000, so that any thousand
 *    addresses of a range span many events (the networks of stage 2 are then over the cap too).
 *
 * Every uuid is derived from the seed, so two trees (before and after a change) store the same rows
 * and `pairs_digest` (a hash of every stored pair: both uuids, match type, value) says whether
 * they found the same pairs.
 *
 *   npx tsx bench/cidr-correlate.ts --addresses 100000 --networks 5000 --hosts 5000 --runs 1
 *   options: --keep (keep the database, for EXPLAIN: its URL is printed), --wide W, --spread
 *
 * Prints one JSON line per run on stdout.
 */
import crypto from "node:crypto";
import os from "node:os";
import pg from "pg";
import setupTemplate from "../test/support/global-setup.ts";
import { createTestDatabase } from "../test/support/databases.ts";
import { systemPrincipal } from "../src/auth/principal.ts";
import { parseMispEvent } from "../src/modules/events/misp-parse.ts";
import { writeEventDraft } from "../src/modules/events/event-writer.ts";
import { WarninglistBuilder } from "../src/modules/warninglists/index.ts";
import { correlateChangeRange } from "../src/modules/correlations/index.ts";
import { withTransaction } from "../src/platform/db/transaction.ts";
// Its bigint parser, as in the service.
import "../src/platform/db/index.ts";
import { NO_SHARING_GROUPS } from "./no-sharing-groups.ts";
import { round } from "./lib.ts";

const NO_LISTS = new WarninglistBuilder().build();
const PER_EVENT = 1000;

function option(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : fallback;
}

/** A uuid from the seed and a label: the same rows in every tree. */
function uuidOf(label: string): string {
  const h = crypto.createHash("sha256").update(`cidr-bench|${label}`).digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** The k-th stored address: IPv4 three apart in 10.0.0.0/8 (an event spans about twelve /24s), one in ten IPv6. */
const v4 = (n: number) => `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
const v6 = (n: number) => `2001:db8:0:${(n >> 16).toString(16)}::${(n & 0xffff).toString(16)}`;
const storedAddress = (k: number) => (k % 10 === 9 ? v6(k * 3) : v4(k * 3));
const ADDRESS_TYPES = ["ip-dst", "ip-src", "ip-dst|port", "domain|ip"];
function addressAttribute(label: string, k: number, address: string) {
  const type = ADDRESS_TYPES[k % ADDRESS_TYPES.length];
  const value = type === "ip-dst|port" ? `${address}|443` : type === "domain|ip" ? `h${k}.example|${address}` : address;
  return { uuid: uuidOf(`${label}-${k}`), type, category: "Network activity", value, to_ids: true };
}

/** The i-th network: even ones over the stored addresses, odd ones outside them (192.0.2.0/8's neighbours in 100.64.0.0/10). */
function network(i: number, addresses: number): string {
  if (i % 2 === 1) return `100.${64 + ((i >> 16) & 63)}.${(i >> 8) & 255}.${i & 240}/28`;
  const k = Math.floor(((i / 2) * 7919) % addresses) * 3;
  if (i % 10 === 4) return `2001:db8:0:${(k >> 16).toString(16)}::${(k & 0xff00).toString(16)}/120`;
  return i % 10 === 0 ? `${v4(k & ~255)}/24` : `${v4(k & ~15)}/28`;
}

async function run(opts: { addresses: number; networks: number; hosts: number; wide: number; spread: boolean }) {
  const db = await createTestDatabase("bench_cidr");
  const pool = new pg.Pool({ connectionString: db.url, max: 4, idleTimeoutMillis: 0 });
  const out: Record<string, unknown> = { ...opts, load: os.loadavg().map((l) => round(l, 1)) };
  try {
    const org = await pool.query<{ id: number }>("INSERT INTO organisations (uuid, name, local) VALUES ($1, 'bench', true) RETURNING id", [uuidOf("org")]);
    const actor = { ...systemPrincipal(), orgId: org.rows[0].id };
    const store = async (label: string, Attribute: object[]) => {
      const draft = parseMispEvent({ Event: { uuid: uuidOf(`event-${label}`), info: label, timestamp: "1795000000", Attribute } }).draft;
      await withTransaction(pool, (client) => writeEventDraft(client, actor, draft, { ownerOrgId: actor.orgId, assertCanUpdate: () => undefined, matcher: NO_LISTS, sharingGroups: NO_SHARING_GROUPS }));
    };
    const lastChange = async () => Number((await pool.query("SELECT COALESCE(max(id), 0) AS id FROM change_records")).rows[0].id);
    const correlateSince = async (since: number) => {
      const t = performance.now();
      const counts = await correlateChangeRange(pool, since + 1, await lastChange());
      return { s: round((performance.now() - t) / 1000, 2), created: counts.created };
    };

    let t = performance.now();
    const events = Math.ceil(opts.addresses / PER_EVENT);
    for (let e = 0; e < events; e++) {
      const ks = Array.from({ length: PER_EVENT }, (_, i) => (opts.spread ? i * events + e : e * PER_EVENT + i)).filter((k) => k < opts.addresses);
      await store(`base ${e}`, ks.map((k) => addressAttribute("base", k, storedAddress(k))));
    }
    out.store_base_s = round((performance.now() - t) / 1000, 2);

    let since = await lastChange();
    t = performance.now();
    await store("networks", Array.from({ length: opts.networks }, (_, i) => ({ uuid: uuidOf(`net-${i}`), type: i % 3 ? "ip-dst" : "ip-src", category: "Network activity", value: network(i, opts.addresses), to_ids: true })));
    out.store_networks_s = round((performance.now() - t) / 1000, 2);
    out.correlate_networks = await correlateSince(since);

    since = await lastChange();
    // Half inside the stored networks (next to the stored addresses there), half in 198.18.0.0/15.
    const host = (i: number) => {
      if (i % 2) return `198.${18 + ((i >> 16) & 1)}.${(i >> 8) & 255}.${i & 255}`;
      const [base] = network(i, opts.addresses).split("/");
      if (base.includes(":")) return base.replace(/[0-9a-f]+$/, (g) => (parseInt(g, 16) + (i % 13) + 1).toString(16));
      return base.replace(/\d+$/, (d) => String(Number(d) + (i % 13) + 1));
    };
    await store("hosts", Array.from({ length: opts.hosts }, (_, i) => addressAttribute("host", i, host(i))));
    out.correlate_hosts = await correlateSince(since);

    if (opts.wide > 0) {
      since = await lastChange();
      await store("wide", Array.from({ length: opts.wide }, (_, i) => ({ uuid: uuidOf(`wide-${i}`), type: "ip-dst", category: "Network activity", value: `10.${i}.0.0/16`, to_ids: true })));
      out.correlate_wide = await correlateSince(since);
    }

    const pairs = await pool.query<{ n: string; digest: string }>(
      `SELECT count(*) AS n, md5(string_agg(k, ',' ORDER BY k)) AS digest FROM (
         SELECT least(s.uuid::text, t.uuid::text) || '|' || greatest(s.uuid::text, t.uuid::text) || '|' || c.match_type || '|' || c.value AS k
           FROM correlations c JOIN attributes s ON s.id = c.source_attribute_id JOIN attributes t ON t.id = c.target_attribute_id) p`,
    );
    out.pairs = Number(pairs.rows[0].n);
    out.pairs_digest = pairs.rows[0].digest;
  } finally {
    await pool.end();
    if (process.argv.includes("--keep")) out.kept = db.url;
    else await db.drop();
  }
  out.load_after = os.loadavg().map((l) => round(l, 1));
  return out;
}

async function main() {
  const opts = { addresses: Number(option("--addresses", "100000")), networks: Number(option("--networks", "5000")), hosts: Number(option("--hosts", "5000")), wide: Number(option("--wide", "0")), spread: process.argv.includes("--spread") };
  await setupTemplate();
  for (let i = 0; i < Number(option("--runs", "1")); i++) process.stdout.write(`${JSON.stringify(await run(opts))}\n`);
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
