/**
 * Retention enforcement: purge N events (default 50 000) holding M attributes (default 1 000 000),
 * with a sighting on every 20th attribute and a correlation chaining each event to the next, while
 * an API process serves reads. Two service processes as deployed: ROLE=api and ROLE=worker (the
 * run goes through POST /tasks/scheduled/{id}/run like any other).
 *
 * Figures: events (and attributes) purged per second, from the run's own started/finished times;
 * the p50/p99 latency of GET /events/{uuid} (a surviving event, 10 connections, 100 requests/s)
 * measured for the same duration before the purge (baseline) and during it, and their ratio.
 *
 *   npx tsx bench/retention.ts                      # 50 000 events, 1 000 000 attributes
 *   npx tsx bench/retention.ts --events 5000        # quick run (20 attributes per event)
 *
 * Prints one JSON document on stdout and a compact table on stderr. Needs the test PostgreSQL
 * (TEST_DATABASE_URL, default postgresql://postgres@127.0.0.1:5432/postgres).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import pg from "pg";
import setupTemplate from "../test/support/global-setup.ts";
import { createTestDatabase } from "../test/support/databases.ts";
import { freePort, killAllServices, startService } from "../test/support/process.ts";
import { autocannon, round, CONNECTIONS } from "./lib.ts";

const ATTRIBUTES_PER_EVENT = 20;
const SURVIVORS = 1000;
const READ_SECONDS = 15;
/** Reads at a steady rate an analyst team might cause, not a saturating flood (the machine has 2 cores for API, worker and PostgreSQL). */
const READS_PER_SECOND = 100;
const OLD = 1_546_300_800; // 2019-01-01

interface TaskRun {
  status: string;
  started_at: string;
  finished_at: string;
  last_error: string | null;
  progress: { purged: number } | null;
  result: { purged: number; attributes: number };
}

function parseArgs(argv: string[]): { events: number } {
  const opts = { events: 50_000 };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--events") opts.events = Number(argv[++i]);
    else throw new Error(`unknown argument ${argv[i]}`);
  }
  if (!Number.isInteger(opts.events) || opts.events < 100) throw new Error("--events needs an integer of at least 100");
  return opts;
}

export async function seed(pool: pg.Pool, orgId: number, events: number): Promise<void> {
  const now = Math.floor(Date.now() / 1000);
  await pool.query(
    `INSERT INTO events (uuid, info, date, timestamp, org_id, orgc_id, distribution)
     SELECT gen_random_uuid(), CASE WHEN g <= $3 THEN 'old ' ELSE 'recent ' END || g, '2019-01-01',
            CASE WHEN g <= $3 THEN $1::bigint + g ELSE $2::bigint END, $4, $4, 1
       FROM generate_series(1, $3::int + $5::int) g`,
    [OLD, now, events, orgId, SURVIVORS],
  );
  // Attribute k = 1 of every event shares its value with the next event's: one correlation per event.
  await pool.query(
    `INSERT INTO attributes (uuid, event_id, type, category, value, value1, value2, timestamp, distribution, to_ids, comment, deleted, disable_correlation)
     SELECT gen_random_uuid(), e.id, 'domain', 'Network activity', v, v, '', e.timestamp, 5, true, '', false, false
       FROM events e, generate_series(1, $1) k,
            LATERAL (SELECT CASE WHEN k = 1 THEN 'shared-' || (e.id / 2) || '.example' ELSE 'd' || e.id || '-' || k || '.example' END AS v) x`,
    [ATTRIBUTES_PER_EVENT],
  );
  await pool.query(
    `INSERT INTO correlations (source_attribute_id, target_attribute_id, source_event_id, target_event_id, match_type, value)
     SELECT min(a.id), max(a.id), min(a.event_id), max(a.event_id), 'term', a.value
       FROM attributes a WHERE a.value LIKE 'shared-%' GROUP BY a.value HAVING count(*) = 2`,
  );
  await pool.query(
    `INSERT INTO sightings (uuid, attribute_id, event_id, org_id, type, source, date_sighting)
     SELECT gen_random_uuid(), a.id, a.event_id, $1, 0, 'bench', extract(epoch FROM now())::bigint FROM attributes a WHERE a.id % 20 = 0`,
    [orgId],
  );
  await pool.query("ANALYZE");
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  await setupTemplate();
  const db = await createTestDatabase("bench_retention");
  const pool = new pg.Pool({ connectionString: db.url, max: 2 });
  const env = (role: string) => ({
    ROLE: role,
    DATABASE_URL: db.url,
    DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), "wb-bench-")),
    LOG_LEVEL: "warn",
    JWT_SECRET: "bench-secret-bench-secret-bench-secret-0",
    ADMIN_EMAIL: "bench@example.test",
    ADMIN_PASSWORD: "bench-password-1",
  });
  const port = await freePort();
  const api = startService({ ...env("api"), PORT: String(port) }, { name: "api" });
  try {
    await api.waitForHealthy(60_000);
    const login = await fetch(`${api.url}/auth/token`, { method: "POST", body: new URLSearchParams({ username: "bench@example.test", password: "bench-password-1" }) });
    const { access_token: jwt } = (await login.json()) as { access_token: string };
    const call = async (method: string, route: string, body?: unknown) => {
      const res = await fetch(`${api.url}${route}`, { method, headers: { authorization: `Bearer ${jwt}`, ...(body === undefined ? {} : { "content-type": "application/json" }) }, body: body === undefined ? undefined : JSON.stringify(body) });
      if (res.status >= 300) throw new Error(`${method} ${route}: ${res.status} ${await res.text()}`);
      return res.json() as Promise<Record<string, unknown>>;
    };
    const orgId = (await call("GET", "/users/me")).org_id as number;
    const runOf = async (id: unknown) => (await call("GET", `/tasks/${String(id)}`)) as unknown as TaskRun;
    const seedStarted = Date.now();
    await seed(pool, orgId, opts.events);
    const seeded = (await pool.query("SELECT (SELECT count(*) FROM events)::int AS e, (SELECT count(*) FROM attributes)::int AS a, (SELECT count(*) FROM sightings)::int AS s, (SELECT count(*) FROM correlations)::int AS c")).rows[0];
    process.stderr.write(`seeded ${JSON.stringify(seeded)} in ${round((Date.now() - seedStarted) / 1000, 1)} s\n`);

    const worker = startService(env("worker"), { name: "worker" });
    // Ready once its worker pool is registered (LOG_LEVEL=warn hides the ready line).
    for (let i = 0; (await pool.query("SELECT 1 FROM worker_processes")).rowCount === 0; i++) {
      if (i > 600 || worker.exit) throw new Error(`the worker did not start: ${worker.stderr.slice(-2000)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const survivor = (await pool.query("SELECT uuid::text FROM events WHERE info LIKE 'recent %' LIMIT 1")).rows[0].uuid as string;
    const target = `${api.url}/events/${survivor}`;
    const headers = { authorization: `Bearer ${jwt}` };
    await autocannon(target, 3, headers); // warm-up
    const baseline = await autocannon(target, READ_SECONDS, headers, READS_PER_SECOND);

    await call("POST", "/settings/runtime/retention", { enabled: true, period_days: 365, warning_days: 30, exempt_tags: ["retention:exempt"] });
    const preview = await call("GET", "/events/retention/preview?period_days=365");
    const schedule = await call("POST", "/tasks/schedule", { name: "bench", task: "enforce_retention", schedule_type: "crontab", crontab: { minute: "0", hour: "2" } });
    const queued = await call("POST", `/tasks/scheduled/${String(schedule.id)}/run`);
    const during = await autocannon(target, READ_SECONDS, headers, READS_PER_SECOND);
    const afterReads = await runOf(queued.task_id);
    let run: TaskRun;
    for (;;) {
      run = await runOf(queued.task_id);
      if (run.status === "succeeded" || run.status === "failed") break;
      await new Promise((r) => setTimeout(r, 500));
    }
    if (run.status !== "succeeded") throw new Error(`run failed: ${run.last_error}`);
    const seconds = (Date.parse(run.finished_at) - Date.parse(run.started_at)) / 1000;
    const left = (await pool.query("SELECT count(*)::int AS n FROM events")).rows[0].n as number;
    const out = {
      date: new Date().toISOString(),
      machine: { cpus: os.cpus().length, node: process.version, loadavg: os.loadavg().map((l) => round(l, 1)) },
      command: `npx tsx bench/retention.ts --events ${opts.events}`,
      seeded,
      preview_count: preview.count,
      purged: run.result,
      events_left: left,
      seconds: round(seconds, 1),
      events_per_second: round(run.result.purged / seconds),
      attributes_per_second: round(run.result.attributes / seconds),
      reads: {
        request: "GET /events/{uuid}",
        connections: CONNECTIONS,
        requests_per_second_cap: READS_PER_SECOND,
        seconds: READ_SECONDS,
        baseline: { rps: round(baseline.rps), p50_ms: baseline.p50, p99_ms: baseline.p99, errors: baseline.errors + baseline.non2xx },
        during_purge: { rps: round(during.rps), p50_ms: during.p50, p99_ms: during.p99, errors: during.errors + during.non2xx },
        p99_ratio: round(during.p99 / Math.max(1, baseline.p99), 2),
        purge_still_running_when_reads_ended: afterReads.status === "running",
        purged_when_reads_ended: afterReads.progress?.purged ?? 0,
      },
    };
    process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
    process.stderr.write(
      `purged ${run.result.purged} events / ${run.result.attributes} attributes in ${out.seconds} s: ${out.events_per_second} events/s, ${out.attributes_per_second} attributes/s\n` +
        `reads p50/p99 ms: baseline ${baseline.p50}/${baseline.p99}, during ${during.p50}/${during.p99} (p99 x${out.reads.p99_ratio}; purge still running when reads ended: ${out.reads.purge_still_running_when_reads_ended})\n`,
    );
    await worker.stop();
  } finally {
    await api.stop().catch(() => undefined);
    killAllServices();
    await pool.end();
    await db.drop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  killAllServices();
  process.exit(1);
});
