/**
 * Explore's bulk lookup (lookupIndicators' statement, src/modules/search/lookup-store.ts), in
 * process against PostgreSQL:
 *
 * Base: N attributes (default 1 000 000) in N / 20 events of organisation A, half of the events
 * distribution 0 (A only), half 3 (everyone); values `d<event>-<k>.example`, the last of each event
 * a `filename|sha256` composite (value2 set; NULL elsewhere, as the attribute writer stores it), then ANALYZE. The
 * caller is a user of organisation B (the distribution rule applies). The list: 1 000 values, 250
 * in A's shared events (found), 250 in A's private ones (absent for B), 500 nowhere.
 *
 * Figures (medians): the whole list in one statement (what the API runs), against a baseline in the
 * same run: the same values one statement each (what an N+1 lookup would cost), and the plan of the
 * statement (which indexes it reads).
 *
 *   npx tsx bench/explore-lookup.ts                         # 1 000 000 attributes
 *   npx tsx bench/explore-lookup.ts --attributes 200000     # quick run
 *
 * Needs the test PostgreSQL (TEST_DATABASE_URL, default postgresql://postgres@127.0.0.1:5432/postgres).
 */
import pg from "pg";
import setupTemplate from "../test/support/global-setup.ts";
import { createTestDatabase } from "../test/support/databases.ts";
import type { Principal } from "../src/auth/principal.ts";
import { findValues } from "../src/modules/search/lookup-store.ts";
import { median, round } from "./lib.ts";

const PER_EVENT = 20;
const RUNS = 10;
const BASELINE_RUNS = 3;
const TIMEOUT_MS = 60_000;

function attributesArg(): number {
  const i = process.argv.indexOf("--attributes");
  const n = i < 0 ? 1_000_000 : Number(String(process.argv[i + 1]).replace(/_/g, ""));
  if (!Number.isInteger(n) || n < 20_000) throw new Error("--attributes needs an integer of at least 20000");
  return n;
}

async function seed(pool: pg.Pool, attributes: number): Promise<{ a: number; b: number; events: number }> {
  const org = async (name: string) => (await pool.query<{ id: number }>("INSERT INTO organisations (uuid, name) VALUES (gen_random_uuid(), $1) RETURNING id", [name])).rows[0]!.id;
  const [a, b] = [await org("Bench A"), await org("Bench B")];
  const events = attributes / PER_EVENT;
  await pool.query(
    `INSERT INTO events (id, uuid, info, date, timestamp, org_id, orgc_id, distribution)
     SELECT g, gen_random_uuid(), 'bench event ' || g, '2024-01-01', 1704067200 + g, $2, $2, CASE WHEN g % 2 = 0 THEN 0 ELSE 3 END
       FROM generate_series(1, $1::int) g`,
    [events, a],
  );
  await pool.query(
    `INSERT INTO attributes (uuid, event_id, type, category, value, value1, value2, timestamp, distribution, to_ids, comment, deleted, disable_correlation)
     SELECT gen_random_uuid(), e, CASE WHEN k = $2 THEN 'filename|sha256' ELSE 'domain' END, 'Network activity', v, v, CASE WHEN k = $2 THEN md5(v) END,
            1704067200 + e, 5, true, '', false, false
       FROM generate_series(1, $1::int) e, generate_series(1, $2::int) k, LATERAL (SELECT 'd' || e || '-' || k || '.example' AS v) x`,
    [events, PER_EVENT],
  );
  await pool.query("ANALYZE");
  return { a, b, events };
}

function reader(orgId: number): Principal {
  return {
    actorType: "user", userId: 2, email: "b@example.test", orgId, roleId: 3, credentialId: null, tokenId: null, tokenExpiresAt: null,
    grantSets: [["events:read", "attributes:read"]], sharingGroupIds: [], ip: null, userAgent: null,
  };
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

/** The statement's plan: the lookup run on a connection whose query is EXPLAINed instead (its rows are not a lookup's: the call then fails, as expected). */
async function plan(pool: pg.Pool, p: Principal, values: string[]): Promise<string[]> {
  const lines: string[] = [];
  const explaining = {
    connect: async () => {
      const client = await pool.connect();
      return new Proxy(client, {
        get(target, key) {
          if (key !== "query") return Reflect.get(target, key);
          return async (text: string, params?: unknown[]) => {
            if (!text.startsWith("WITH wanted")) return target.query(text, params);
            const { rows } = await target.query<{ "QUERY PLAN": string }>(`EXPLAIN (ANALYZE, BUFFERS) ${text}`, params);
            lines.push(...rows.map((r) => r["QUERY PLAN"]));
            return { rows: [{ found: [] }] };
          };
        },
      });
    },
  } as unknown as pg.Pool;
  await findValues(explaining, TIMEOUT_MS, p, values);
  return lines;
}

async function main() {
  const attributes = attributesArg();
  await setupTemplate();
  const db = await createTestDatabase("bench_lookup");
  const pool = new pg.Pool({ connectionString: db.url, max: 2 });
  try {
    const started = performance.now();
    const { b, events } = await seed(pool, attributes);
    const seeded = performance.now() - started;
    const value = (event: number) => `d${event}-${1 + (event % PER_EVENT)}.example`;
    const values = [
      ...Array.from({ length: 250 }, (_, i) => value(1 + 2 * ((i * 7919) % (events / 2)))), // odd events: distribution 3
      ...Array.from({ length: 250 }, (_, i) => value(2 + 2 * ((i * 7919) % (events / 2 - 1)))), // even events: A only
      ...Array.from({ length: 500 }, (_, i) => `absent-${i}.example`),
    ];
    const p = reader(b);
    const found = await findValues(pool, TIMEOUT_MS, p, values);
    if (found.size !== 250) throw new Error(`expected 250 values found for B, got ${found.size}`);
    const oneStatement: number[] = [];
    for (let i = 0; i < RUNS; i++) oneStatement.push(await timed(() => findValues(pool, TIMEOUT_MS, p, values)));
    const perValue: number[] = [];
    for (let i = 0; i < BASELINE_RUNS; i++) perValue.push(await timed(async () => {
      for (const v of values) await findValues(pool, TIMEOUT_MS, p, [v]);
    }));
    const lines = await plan(pool, p, values);
    const result = {
      attributes,
      events,
      seedSeconds: round(seeded / 1000, 1),
      values: values.length,
      oneStatementMs: round(median(oneStatement), 1),
      perValueStatementsMs: round(median(perValue), 1),
      ratio: round(median(perValue) / median(oneStatement), 1),
      hashIndexes: [...new Set(lines.join("\n").match(/attributes_value[12]_hash_idx/g) ?? [])],
    };
    console.log(JSON.stringify(result, null, 2));
    console.error(lines.join("\n"));
  } finally {
    await pool.end();
    await db.drop();
  }
}

await main();
