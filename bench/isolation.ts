/**
 * Isolation benchmark (issue 20, finding 7): can one reader starve everyone? And is an idle service idle?
 *
 *   npx tsx bench/isolation.ts                          # PostgreSQL search backend, 100 000 attributes
 *   npx tsx bench/isolation.ts --backend opensearch     # OpenSearch (OPENSEARCH_URL, default http://127.0.0.1:9200)
 *   npx tsx bench/isolation.ts --attributes 50000 --duration 20 --search-concurrency 2
 *   npx tsx bench/isolation.ts idle-cpu                 # only the idle CPU of `npm start` (60 s)
 *
 * Load part: the service runs as a child process (`ROLE=api`, `DATABASE_URL` = a fresh database
 * cloned from the test template, `LOG_LEVEL=warn`), its search index filled with the synthetic
 * corpus of bench/search.ts (`./search-data.ts`, written with `bulkIndex` from this process). Two
 * organisations: user A (organisation 1, attributes:read) searches; user B (a second organisation)
 * owns 50 events. Phases of `--duration` seconds each (after a warm-up), B's `GET /events/` and
 * `GET /healthz` each timed by a sequential loop (one request, 20 ms pause, next) in all of them:
 *   1. idle: nothing else runs;
 *   2. rest: A runs 20 concurrent loops of `GET /attributes/search` with a 10 KB Lucene query of
 *      wildcards and regexes (a different one per request); a 429 is retried after 100 ms (a
 *      hostile client, not one that honours Retry-After);
 *   3. rest-polite: the same, a 429 retried after its Retry-After;
 *   4. graphql: A runs 2 concurrent loops of one GraphQL request with 12 aliased `searchAttributes`
 *      of such queries.
 * Reported per phase: p50 and p99 (nearest rank) of B's requests, their non-2xx answers, A's
 * answers by status, and the CPU the service process and the PostgreSQL backends of its database
 * used (% of one core). Goal: under load, B's p99 at most 2x the idle p99, no 503 from /healthz,
 * and A gets 429s (or GraphQL errors) instead of holding the database.
 *
 * Idle CPU part: `npm start` with a fresh DATA_DIR (embedded PostgreSQL) and nothing else; once
 * /healthz answers 200 and 10 s have passed, the CPU time (utime + stime, plus that of reaped
 * children) of every process of its process group (npm, node, postgres and its backends) over 60 s,
 * as % of one core. Goal: under 1 %.
 *
 * Prints one JSON document on stdout, progress on stderr.
 */
import crypto from "node:crypto";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { OpenSearchSearchIndex } from "../src/search/opensearch/index.ts";
import { PostgresSearchIndex } from "../src/search/postgres/index.ts";
import type { SearchIndex } from "../src/search/search-index.ts";
import setupTemplate from "../test/support/global-setup.ts";
import { createTestDatabase } from "../test/support/databases.ts";
import { HttpClient } from "../test/support/http.ts";
import { freePort, sleep, startService, type ServiceProcess } from "../test/support/process.ts";
import type { Doc } from "../test/support/search-fixtures.ts";
import { BENCH_ADMIN, benchServiceEnv, round } from "./lib.ts";
import { generateEvents, prng } from "./search-data.ts";

const SEARCHERS = 20;
const GRAPHQL_SEARCHERS = 2;
const ALIASES = 12;
const PROBE_PAUSE_MS = 20;
const RETRY_429_MS = 100;
const QUERY_CHARS = 10_000;
const IDLE_CPU_SECONDS = 60;
/**
 * How long a fresh `npm start` settles before the idle window: start-up work still running after
 * /healthz turns 200 (the first jobs and cron fills, the embedded database's first autovacuum and
 * checkpoint, V8 compiling and collecting start-up code) is not what an idle service costs.
 */
const IDLE_SETTLE_SECONDS = 60;

interface Options {
  part: "all" | "load" | "idle-cpu";
  backend: "postgres" | "opensearch";
  attributes: number;
  duration: number;
  seed: number;
  /** SEARCH_CONCURRENCY of the service (unset: its default). */
  searchConcurrency: number | null;
}

function parseArgs(argv: string[]): Options {
  const opts: Options = { part: "all", backend: "postgres", attributes: 100_000, duration: 30, seed: 20261125, searchConcurrency: null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const num = () => {
      const n = Number(argv[++i]);
      if (!Number.isInteger(n) || n <= 0) throw new Error(`${a} needs a positive integer`);
      return n;
    };
    if (a === "load" || a === "idle-cpu") opts.part = a;
    else if (a === "--backend") {
      const b = argv[++i];
      if (b !== "postgres" && b !== "opensearch") throw new Error("--backend is postgres or opensearch");
      opts.backend = b;
    } else if (a === "--attributes") opts.attributes = num();
    else if (a === "--duration") opts.duration = num();
    else if (a === "--seed") opts.seed = num();
    else if (a === "--search-concurrency") opts.searchConcurrency = num();
    else throw new Error(`unknown argument ${a}`);
  }
  return opts;
}

const log = (msg: string) => process.stderr.write(`[isolation] ${msg}\n`);

/** Nearest-rank percentile. */
function percentile(xs: number[], p: number): number | null {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  return round(s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!, 1);
}

/**
 * A 10 KB Lucene query of leading-wildcard infixes and regexes over `value`: every clause must be
 * matched against many distinct terms, so each search costs the backend hundreds of milliseconds or more.
 */
export function expensiveQuery(rng: () => number): string {
  const alnum = "abcdefghijklmnopqrstuvwxyz0123456789";
  const pick = () => alnum[Math.floor(rng() * alnum.length)]!;
  const clauses: string[] = [];
  let length = 0;
  for (let i = 0; ; i++) {
    const clause = i % 2 === 0 ? `value:*${pick()}${pick()}*${pick()}*` : `value:/.*${pick()}[0-9a-f]{2}${pick()}.*/`;
    if (length + clause.length + 4 > QUERY_CHARS) break;
    clauses.push(clause);
    length += clause.length + 4;
  }
  return clauses.join(" OR ");
}

interface Sample {
  ms: number;
  status: number;
}

/** Sequential requests until `until`: one at a time, a short pause between them. */
async function probe(until: number, request: () => Promise<number>): Promise<Sample[]> {
  const out: Sample[] = [];
  while (Date.now() < until) {
    const t0 = performance.now();
    const status = await request().catch(() => 0);
    out.push({ ms: performance.now() - t0, status });
    await sleep(PROBE_PAUSE_MS);
  }
  return out;
}

function summary(samples: Sample[]) {
  const ms = samples.map((s) => s.ms);
  return {
    requests: samples.length,
    p50_ms: percentile(ms, 50),
    p99_ms: percentile(ms, 99),
    max_ms: ms.length ? round(Math.max(...ms), 1) : null,
    non_2xx: samples.filter((s) => s.status < 200 || s.status >= 300).length,
  };
}

const byStatus = (statuses: (number | string)[]) => {
  const out: Record<string, number> = {};
  for (const s of statuses) out[String(s)] = (out[String(s)] ?? 0) + 1;
  return out;
};

async function fillIndex(index: SearchIndex, attributes: number, seed: number): Promise<number> {
  const t0 = performance.now();
  let batch: Doc[] = [];
  const events: Doc[] = [];
  for (const { event, attributes: attrs } of generateEvents({ events: Math.ceil(attributes / 100), attributesPerEvent: 100, seed })) {
    events.push(event);
    batch.push(...attrs);
    if (batch.length >= 5000) {
      await index.bulkIndex("svc-attributes", batch);
      batch = [];
    }
  }
  if (batch.length) await index.bulkIndex("svc-attributes", batch);
  await index.bulkIndex("svc-events", events);
  await index.refresh();
  return round((performance.now() - t0) / 1000, 1);
}

async function loadPart(opts: Options) {
  await setupTemplate();
  const db = await createTestDatabase("bench_isolation");
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "wb-bench-"));
  const prefix = `bench-isolation-${process.pid}-${crypto.randomBytes(3).toString("hex")}-`;
  const opensearchUrl = process.env.OPENSEARCH_URL ?? "http://127.0.0.1:9200";
  const port = await freePort();
  let service: ServiceProcess | null = null;
  let pool: pg.Pool | null = null;
  let index: SearchIndex | null = null;
  try {
    service = startService(
      {
        ...benchServiceEnv({ role: "api", port, databaseUrl: db.url, dataDir, opensearch: opts.backend === "opensearch" ? { url: opensearchUrl, prefix } : null }),
        ...(opts.searchConcurrency ? { SEARCH_CONCURRENCY: String(opts.searchConcurrency) } : {}),
      },
      { name: "api" },
    );
    await service.waitForHealthy(120_000);
    pool = new pg.Pool({ connectionString: db.url, max: 4 });
    index = opts.backend === "opensearch" ? new OpenSearchSearchIndex([opensearchUrl], { prefix }) : new PostgresSearchIndex(pool);
    log(`indexing ${opts.attributes} attributes into ${opts.backend}`);
    const indexSeconds = await fillIndex(index, opts.attributes, opts.seed);
    if (opts.backend === "postgres") await pool.query("VACUUM (ANALYZE) search_documents, search_postings, search_terms");
    log(`indexed in ${indexSeconds} s`);

    const http = new HttpClient(service.url, { checkContract: false });
    const admin = (await http.login(BENCH_ADMIN.email, BENCH_ADMIN.password)).access_token;
    const role = async (scopes: string[]) => {
      const res = await http.post("/roles/", { token: admin, json: { name: `bench-${crypto.randomBytes(4).toString("hex")}`, scopes } });
      if (res.status !== 201) throw new Error(`role: ${res.status} ${res.text}`);
      return res.body.id as number;
    };
    const user = async (roleId: number, orgId: number) => {
      const email = `bench-${crypto.randomBytes(5).toString("hex")}@example.test`;
      const password = `pw-${crypto.randomBytes(8).toString("hex")}`;
      const res = await http.post("/users/", { token: admin, json: { email, password, role_id: roleId, org_id: orgId } });
      if (res.status !== 201) throw new Error(`user: ${res.status} ${res.text}`);
      return (await http.login(email, password)).access_token;
    };
    const orgB = await http.post("/organisations/", { token: admin, json: { name: `bench-org-b-${crypto.randomBytes(3).toString("hex")}` } });
    if (orgB.status !== 201) throw new Error(`organisation: ${orgB.status} ${orgB.text}`);
    const searcher = await user(await role(["attributes:read", "events:read"]), 1);
    const reader = await user(await role(["events:read", "events:create"]), orgB.body.id as number);
    for (let i = 0; i < 50; i++) {
      const res = await http.post("/events/", { token: reader, json: { info: `bench event ${i} of organisation B`, distribution: 0 } });
      if (res.status !== 201) throw new Error(`event: ${res.status} ${res.text}`);
    }

    const rng = prng(opts.seed);
    const one = expensiveQuery(rng);
    const t0 = performance.now();
    const single = await http.get(`/attributes/search?size=10&query=${encodeURIComponent(one)}`, { token: searcher });
    const singleSearch = { query_chars: one.length, status: single.status, ms: round(performance.now() - t0), total: single.body?.total ?? null };
    log(`one expensive search alone: ${JSON.stringify(singleSearch)}`);

    const eventsOfB = () => fetch(`${service!.url}/events/?size=50`, { headers: { authorization: `Bearer ${reader}` } }).then(async (r) => (await r.arrayBuffer(), r.status));
    const healthz = () => fetch(`${service!.url}/healthz`).then(async (r) => (await r.arrayBuffer(), r.status));
    const searchOnce = () =>
      fetch(`${service!.url}/attributes/search?size=10&query=${encodeURIComponent(expensiveQuery(rng))}`, { headers: { authorization: `Bearer ${searcher}` } }).then(
        async (r) => (await r.arrayBuffer(), { status: r.status, retryAfter: r.headers.get("retry-after") }),
      );
    const graphqlOnce = async () => {
      const fields = Array.from({ length: ALIASES }, (_, i) => `s${i}: searchAttributes(query: $q${i}, size: 10) { total hits { id } }`).join(" ");
      const variables = Object.fromEntries(Array.from({ length: ALIASES }, (_, i) => [`q${i}`, expensiveQuery(rng)]));
      const decl = Array.from({ length: ALIASES }, (_, i) => `$q${i}: String!`).join(", ");
      const r = await fetch(`${service!.url}/graphql`, {
        method: "POST",
        headers: { authorization: `Bearer ${searcher}`, "content-type": "application/json" },
        body: JSON.stringify({ query: `query(${decl}) { ${fields} }`, variables }),
      });
      const body = (await r.json()) as { errors?: { extensions?: { code?: string } }[] };
      const codes = [...new Set((body.errors ?? []).map((e) => e.extensions?.code ?? "error"))];
      return codes.length ? `${r.status} ${codes.join("+")}` : String(r.status);
    };

    const hz = clockTicksPerSecond();
    /** CPU ticks of the service process and of each PostgreSQL backend serving its database (one that exits takes its ticks along). */
    const cpuTicks = async () => {
      const { rows } = await pool!.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()");
      return { service: processTicks(service!.pid), postgres: new Map(rows.map((r) => [r.pid, processTicks(r.pid)])) };
    };
    const backendTicks = (before: Map<number, number>, after: Map<number, number>) => [...after].reduce((n, [pid, t]) => n + t - (before.get(pid) ?? 0), 0);
    const phase = async (name: string, load: ((until: number) => Promise<(number | string)[]>) | null) => {
      log(`phase ${name}: ${opts.duration} s`);
      const until = Date.now() + opts.duration * 1000;
      const before = await cpuTicks();
      const started = performance.now();
      const [events, health, searches] = await Promise.all([probe(until, eventsOfB), probe(until, healthz), load ? load(until) : Promise.resolve([])]);
      const after = await cpuTicks();
      // A request in flight at the end lengthens the phase.
      const seconds = (performance.now() - started) / 1000;
      const percent = (ticks: number) => round((100 * ticks) / hz / seconds, 1);
      const result = {
        events_of_b: summary(events),
        healthz: summary(health),
        searcher_answers: byStatus(searches),
        seconds: round(seconds, 1),
        cpu_percent_of_one_core: { service: percent(after.service - before.service), postgres_backends: percent(backendTicks(before.postgres, after.postgres)) },
      };
      log(`${name}: ${JSON.stringify(result)}`);
      return result;
    };
    const retryAfter: string[] = [];
    /** `polite`: a 429 is retried after its Retry-After, as HTTP asks; otherwise after 100 ms. */
    const restLoad = (polite: boolean) => async (until: number) => {
      const statuses: number[] = [];
      await Promise.all(
        Array.from({ length: SEARCHERS }, async () => {
          while (Date.now() < until) {
            const r = await searchOnce().catch(() => ({ status: 0, retryAfter: null }));
            statuses.push(r.status);
            if (r.status === 429) {
              if (r.retryAfter !== null && retryAfter.length < 5) retryAfter.push(r.retryAfter);
              await sleep(polite && r.retryAfter ? Number(r.retryAfter) * 1000 : RETRY_429_MS);
            }
          }
        }),
      );
      return statuses;
    };
    const graphqlLoad = async (until: number) => {
      const answers: string[] = [];
      await Promise.all(
        Array.from({ length: GRAPHQL_SEARCHERS }, async () => {
          while (Date.now() < until) {
            const answer = await graphqlOnce().catch(() => "0");
            answers.push(answer);
            if (!answer.startsWith("200") || answer.includes(" ")) await sleep(RETRY_429_MS);
          }
        }),
      );
      return answers;
    };

    await phase("warm-up", null);
    const idle = await phase("idle", null);
    const rest = await phase("rest", restLoad(false));
    const polite = await phase("rest-polite", restLoad(true));
    const graphql = await phase("graphql", graphqlLoad);
    const ratio = (loaded: { p99_ms: number | null }, base: { p99_ms: number | null }) =>
      loaded.p99_ms !== null && base.p99_ms ? round(loaded.p99_ms / base.p99_ms, 2) : null;
    return {
      backend: opts.backend,
      search_concurrency: opts.searchConcurrency ?? "default",
      attributes: opts.attributes,
      index_seconds: indexSeconds,
      duration_seconds: opts.duration,
      single_search: singleSearch,
      idle,
      rest: { ...rest, retry_after_seen: retryAfter, p99_vs_idle: { events_of_b: ratio(rest.events_of_b, idle.events_of_b), healthz: ratio(rest.healthz, idle.healthz) } },
      rest_polite: { ...polite, p99_vs_idle: { events_of_b: ratio(polite.events_of_b, idle.events_of_b), healthz: ratio(polite.healthz, idle.healthz) } },
      graphql: { ...graphql, p99_vs_idle: { events_of_b: ratio(graphql.events_of_b, idle.events_of_b), healthz: ratio(graphql.healthz, idle.healthz) } },
    };
  } finally {
    await service?.stop(30_000).catch(() => service?.kill());
    if (opts.backend === "opensearch") await fetch(`${opensearchUrl}/${prefix}*`, { method: "DELETE" }).catch(() => undefined);
    await index?.close();
    await pool?.end();
    await db.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

function clockTicksPerSecond(): number {
  return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
}

/** utime + stime of one process, in clock ticks (0 once it is gone). */
function processTicks(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(f[11]) + Number(f[12]);
  } catch {
    return 0;
  }
}

/** utime + stime + cutime + cstime of the processes of a process group, in clock ticks, by command (postgres, node, npm...). */
function groupTicks(pgid: number): Record<string, number> {
  const ticks: Record<string, number> = {};
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue;
    }
    // Fields after the command (which may hold spaces): state ppid pgrp ... utime(14) stime cutime cstime.
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(f[2]) !== pgid) continue;
    const command = /postgres/.test(stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"))) ? "postgres" : stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
    ticks[command] = (ticks[command] ?? 0) + Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
  }
  return ticks;
}

async function idleCpuPart() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "wb-bench-"));
  fs.chmodSync(dataDir, 0o755); // embedded postgres runs as the `postgres` user when we are root
  const port = await freePort();
  const service = startService({ DATA_DIR: dataDir, PORT: String(port) }, { name: "npm start", command: ["npm", "start", "--silent"] });
  try {
    await service.waitForHealthy(180_000);
    await sleep(IDLE_SETTLE_SECONDS * 1000);
    const hz = clockTicksPerSecond();
    const before = groupTicks(service.pid);
    const t0 = performance.now();
    log(`idle CPU: measuring ${IDLE_CPU_SECONDS} s`);
    await sleep(IDLE_CPU_SECONDS * 1000);
    const seconds = (performance.now() - t0) / 1000;
    const after = groupTicks(service.pid);
    const byCommand = Object.fromEntries(Object.keys(after).map((c) => [c, round((after[c]! - (before[c] ?? 0)) / hz, 2)]));
    const used = Object.values(byCommand).reduce((a, b) => a + b, 0);
    const logBytes = service.stdout.length + service.stderr.length;
    const stop = await service.stop(30_000, { toService: true });
    return {
      command: "npm start (fresh DATA_DIR, embedded PostgreSQL, no other configuration)",
      seconds: round(seconds, 1),
      cpu_seconds: round(used, 2),
      cpu_seconds_by_command: byCommand,
      percent_of_one_core: round((100 * used) / seconds, 2),
      log_bytes_since_start: logBytes,
      exit: stop,
    };
  } finally {
    service.kill();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const out: Record<string, unknown> = { date: new Date().toISOString(), node: process.version, cpus: os.cpus().length, loadavg_start: os.loadavg().map((x) => round(x, 2)) };
  if (opts.part !== "idle-cpu") out.load = await loadPart(opts);
  if (opts.part !== "load") out.idle_cpu = await idleCpuPart();
  out.loadavg_end = os.loadavg().map((x) => round(x, 2));
  process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
