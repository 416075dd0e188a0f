/**
 * Feeds: three figures from service processes (`ROLE=all`, local storage), against baselines
 * measured in the same run.
 *
 * 1. Upload: a 1.5 GB csv streamed by curl to POST /feeds/upload; the service's peak RSS growth
 *    (VmRSS sampled every 50 ms) must stay under 150 MB. The figure is absolute, with the throughput.
 * 2. Ingest, per search backend (PostgreSQL, and OpenSearch when --opensearch or OPENSEARCH_URL is
 *    given), each on a fresh database and service: a MISP feed as a zip upload, a local feed (its
 *    creation queues the fetch), then the fetch run, indexing, correlation and notification settled
 *    and every event's attributes found by GET /attributes/search. Attributes per second end to end
 *    from the upload (and from the fetch request), for the Infoblox sample (16 events, 8,842
 *    attributes) and a synthetic feed (--feed 20x5000: 20 events of 5,000 distinct values, one in
 *    twenty shared by two events, so correlation finds pairs). Per-stage breakdown: the fetch run's
 *    own read/parse/store timings (its debug line "feed ingested"), then for each job kind
 *    (dispatch_changes, index_changes, correlate_changes, notify_changes) its busy seconds (the sum
 *    of its jobs' durations, from graphile-worker's success lines) and when its first job started and
 *    its last ended, counted from the fetch request; and the CPU seconds the run cost the service,
 *    its database's PostgreSQL backends and the OpenSearch node (`cpu_s`, steadier than wall times
 *    on a shared machine), with the load average at the end. Baseline: the sample's events through
 *    POST /events/import one by one (settled too).
 * 3. Freetext parsing: lines per second of `freetextRows` (refang + type detection) over 500 000
 *    lines built from the sample's values; baseline: splitting the same text into lines only.
 *
 *   npx tsx bench/feeds.ts                                   # everything (about 10 minutes)
 *   npx tsx bench/feeds.ts --only ingest --rounds 3 --backends postgres,opensearch --opensearch http://127.0.0.1:9200
 *   npx tsx bench/feeds.ts --only upload --upload-mb 200     # a smaller upload
 *   npx tsx bench/feeds.ts --help                            # the options
 */
import { execFile } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import pg from "pg";
import setupTemplate from "../test/support/global-setup.ts";
import { createTestDatabase } from "../test/support/databases.ts";
import { freePort, killAllServices, startService, type LogLine, type ServiceProcess } from "../test/support/process.ts";
import { SHARED_DATA } from "../test/support/shared-data.ts";
import { zip } from "../test/support/archives.ts";
import { freetextRows } from "../src/modules/feeds/ingest/indicators.ts";
import { readLines } from "../src/modules/feeds/ingest/lines.ts";
import { median, round } from "./lib.ts";
import { syntheticFeed, type MispDoc } from "./feed-data.ts";

const FEED_DIR = path.join(SHARED_DATA, "misp-feed-sample");

function rssOf(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

/** CPU seconds (user + system) a process has used, or null when it is gone. */
function cpuSeconds(pid: number): number | null {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    // utime and stime, in clock ticks (100 a second on Linux).
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

/**
 * CPU seconds a run cost, per process kind: the service (parse, store, jobs' JavaScript), the
 * PostgreSQL backends of its database (sampled every 200 ms, each backend's last reading counted,
 * so that a connection closed by its pool keeps what it used), and the OpenSearch node (its own
 * process counter, which other clients of the node add to). On a machine shared with other work,
 * these move less than wall times do.
 */
function cpuMeter(s: { service: ServiceProcess; pool: pg.Pool }, opensearch: string | null) {
  const servicePid = s.service.servicePid()!;
  const start = new Map<number, number>();
  const last = new Map<number, number>();
  const sample = async () => {
    const { rows } = await s.pool.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()");
    for (const { pid } of rows) {
      const c = cpuSeconds(pid);
      if (c === null) continue;
      if (!start.has(pid)) start.set(pid, started ? 0 : c);
      last.set(pid, c);
    }
  };
  const jvm = async () => {
    if (!opensearch) return 0;
    const r = (await (await fetch(new URL("/_nodes/_local/stats/process", opensearch))).json()) as { nodes: Record<string, { process: { cpu: { total_in_millis: number } } }> };
    return Object.values(r.nodes)[0].process.cpu.total_in_millis / 1000;
  };
  let started = false;
  let timer: NodeJS.Timeout | null = null;
  let service0 = 0;
  let jvm0 = 0;
  return {
    async start() {
      await sample();
      started = true;
      service0 = cpuSeconds(servicePid) ?? 0;
      jvm0 = await jvm();
      timer = setInterval(() => void sample().catch(() => undefined), 200);
    },
    async stop() {
      clearInterval(timer!);
      await sample();
      let postgres = 0;
      for (const [pid, c] of last) postgres += c - (start.get(pid) ?? 0);
      return { service_s: round((cpuSeconds(servicePid) ?? 0) - service0, 1), postgres_s: round(postgres, 1), opensearch_s: round((await jvm()) - jvm0, 1) };
    },
  };
}

async function settled(pool: pg.Pool): Promise<void> {
  for (;;) {
    const { rows } = await pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM graphile_worker._private_jobs j JOIN graphile_worker._private_tasks t ON t.id = j.task_id
        WHERE t.identifier IN ('dispatch_changes', 'index_changes', 'correlate_changes', 'notify_changes', 'run_task')`,
    );
    if (rows[0].n === 0) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function uploadFigure(service: ServiceProcess, token: string, megabytes: number) {
  const pid = service.servicePid()!;
  const base = rssOf(pid);
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, rssOf(pid) - base)), 50);
  const bytes = megabytes * 1024 * 1024;
  const head = `--B\\r\\nContent-Disposition: form-data; name="source_format"\\r\\n\\r\\ncsv\\r\\n--B\\r\\nContent-Disposition: form-data; name="file"; filename="big.csv"\\r\\n\\r\\n`;
  const script = `(printf -- '${head}'; yes 198.51.100.1 | head -c ${bytes}; printf -- '\\r\\n--B--\\r\\n') | curl -s -X POST -T - -o - -w '\\n%{http_code}' -H 'authorization: Bearer ${token}' -H 'content-type: multipart/form-data; boundary=B' ${service.url}/feeds/upload`;
  const started = Date.now();
  const out = await new Promise<string>((resolve) => execFile("bash", ["-c", script], { maxBuffer: 1 << 20 }, (_e, stdout) => resolve(stdout)));
  const seconds = (Date.now() - started) / 1000;
  clearInterval(sampler);
  if (!out.endsWith("200")) throw new Error(`upload failed: ${out.slice(0, 500)}`);
  return { megabytes, seconds: round(seconds, 1), mb_per_second: round(megabytes / seconds, 1), peak_rss_growth_mb: round(peak / 1024 / 1024, 1), goal_mb: 150 };
}

function sampleFeed(): MispDoc[] {
  return fs.readdirSync(FEED_DIR).filter((f) => /^[0-9a-f-]{36}\.json$/.test(f)).map((f) => JSON.parse(fs.readFileSync(path.join(FEED_DIR, f), "utf8")) as MispDoc);
}

function feedArchive(docs: MispDoc[]): Buffer {
  const manifest = Object.fromEntries(docs.map((d) => [d.Event.uuid, { timestamp: Number(d.Event.timestamp), info: d.Event.info }]));
  return zip([{ name: "manifest.json", data: JSON.stringify(manifest) }, ...docs.map((d) => ({ name: `${d.Event.uuid}.json`, data: JSON.stringify(d), deflate: true }))]);
}

/** A job's span from graphile-worker's success line (its end is the line's time). */
interface JobSpan {
  task: string;
  start: number;
  end: number;
}

function jobSpans(logs: LogLine[], from: number): JobSpan[] {
  const spans: JobSpan[] = [];
  for (const l of logs) {
    const job = l.job as { task_identifier?: string } | undefined;
    if (l.success !== true || typeof job?.task_identifier !== "string" || typeof l.duration !== "number" || typeof l.time !== "number") continue;
    if (l.time < from) continue;
    spans.push({ task: job.task_identifier, start: l.time - l.duration, end: l.time });
  }
  return spans;
}

/**
 * Per stage: busy seconds (the sum of its jobs' durations) and its span from the fetch request
 * (when its first job started and its last one ended). parse/store come from the fetch run's own
 * timings (its debug line), upload from the bench.
 */
function stageBreakdown(spans: JobSpan[], t0: number, run: LogLine | undefined) {
  const stage = (task: string) => {
    const mine = spans.filter((s) => s.task === task);
    if (mine.length === 0) return { jobs: 0, busy_s: 0, from_s: null, to_s: null };
    return {
      jobs: mine.length,
      busy_s: round(mine.reduce((n, s) => n + (s.end - s.start), 0) / 1000, 2),
      from_s: round((Math.min(...mine.map((s) => s.start)) - t0) / 1000, 2),
      to_s: round((Math.max(...mine.map((s) => s.end)) - t0) / 1000, 2),
    };
  };
  const ms = (k: string) => (typeof run?.[k] === "number" ? round((run[k] as number) / 1000, 2) : null);
  return {
    fetch_run: stage("run_task"),
    read_s: ms("read_ms"),
    parse_s: ms("parse_ms"),
    store_s: ms("store_ms"),
    dispatch: stage("dispatch_changes"),
    index: stage("index_changes"),
    correlate: stage("correlate_changes"),
    notify: stage("notify_changes"),
  };
}

interface IngestSetup {
  service: ServiceProcess;
  token: string;
  pool: pg.Pool;
  opensearch: string | null;
}

async function api(s: IngestSetup, method: string, route: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${s.service.url}${route}`, { method, headers: { authorization: `Bearer ${s.token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) }, body: body === undefined ? undefined : JSON.stringify(body) });
  if (res.status >= 300) throw new Error(`${method} ${route}: ${res.status} ${await res.text()}`);
  return res.json() as Promise<Record<string, unknown>>;
}

/** Every event's attributes found by the search API (totals are exact up to 10,000 per query). */
async function searchable(s: IngestSetup, docs: MispDoc[], expected: Map<string, number>): Promise<boolean> {
  for (const d of docs) {
    const r = await api(s, "GET", `/attributes/search?query=${encodeURIComponent(`event_uuid:"${d.Event.uuid}"`)}&size=1`);
    if (Number(r.total) !== expected.get(d.Event.uuid)) return false;
  }
  return true;
}

/**
 * One feed run end to end: upload, create the local feed (which queues its fetch), wait for the
 * run, indexing, correlation and notification to settle and every attribute to be found by search.
 */
async function feedRun(s: IngestSetup, docs: MispDoc[], label: string) {
  const cpu = cpuMeter(s, s.opensearch);
  const uuids = docs.map((d) => d.Event.uuid);
  await s.pool.query("DELETE FROM events WHERE uuid = ANY($1::uuid[])", [uuids]);
  await settled(s.pool);
  const archive = feedArchive(docs);
  await cpu.start();
  const t0 = Date.now();
  const form = new FormData();
  form.append("source_format", "sharing");
  form.append("file", new Blob([new Uint8Array(archive)]), "feed.zip");
  const up = (await (await fetch(`${s.service.url}/feeds/upload`, { method: "POST", headers: { authorization: `Bearer ${s.token}` }, body: form })).json()) as { key: string };
  const tFetch = Date.now();
  await api(s, "POST", "/feeds/", { name: label, provider: "bench", url: up.key, source_format: "misp", input_source: "local" });
  await settled(s.pool);
  const tSettled = Date.now();
  const { rows } = await s.pool.query<{ uuid: string; n: number }>(
    "SELECT e.uuid::text, count(a.id)::int AS n FROM events e LEFT JOIN attributes a ON a.event_id = e.id AND NOT a.deleted WHERE e.uuid = ANY($1::uuid[]) GROUP BY e.uuid",
    [uuids],
  );
  const expected = new Map(rows.map((r) => [r.uuid, r.n]));
  while (!(await searchable(s, docs, expected))) await new Promise((r) => setTimeout(r, 50));
  const tEnd = Date.now();
  const cpuUsed = await cpu.stop();
  const attributes = rows.reduce((n, r) => n + r.n, 0);
  const run = s.service.logs.find((l) => l.msg === "feed ingested" && typeof l.time === "number" && l.time >= tFetch);
  return {
    attributes,
    seconds: (tEnd - t0) / 1000,
    seconds_from_fetch: (tEnd - tFetch) / 1000,
    upload_s: round((tFetch - t0) / 1000, 2),
    settled_s: round((tSettled - tFetch) / 1000, 2),
    cpu_s: cpuUsed,
    load: os.loadavg().map((l) => round(l, 1)),
    stages: stageBreakdown(jobSpans(s.service.logs, tFetch), tFetch, run),
  };
}

async function ingestFigure(s: IngestSetup, opts: { rounds: number; events: number; perEvent: number }) {
  const feeds: [string, () => MispDoc[]][] = [
    ["sample", sampleFeed],
    [`synthetic_${opts.events * opts.perEvent}`, () => syntheticFeed(opts.events, opts.perEvent)],
  ];
  const out: Record<string, unknown> = {};
  for (const [name, make] of feeds) {
    const runs: Awaited<ReturnType<typeof feedRun>>[] = [];
    for (let i = 0; i < opts.rounds; i++) {
      runs.push(await feedRun(s, make(), `bench ${name} ${i}`));
      process.stderr.write(`  ${name} run ${i}: ${JSON.stringify(runs[i])}\n`);
    }
    const mid = [...runs].sort((a, b) => a.seconds - b.seconds)[Math.floor(runs.length / 2)];
    out[name] = {
      events: make === sampleFeed ? 16 : opts.events,
      attributes: mid.attributes,
      seconds: runs.map((r) => round(r.seconds, 2)),
      attributes_per_second: round(mid.attributes / median(runs.map((r) => r.seconds))),
      attributes_per_second_from_fetch: round(mid.attributes / median(runs.map((r) => r.seconds_from_fetch))),
      median_run: mid,
    };
  }
  // The baseline: the sample's events through POST /events/import, settled too.
  const docs = sampleFeed();
  const importRuns: number[] = [];
  for (let i = 0; i < opts.rounds; i++) {
    await s.pool.query("DELETE FROM events WHERE uuid = ANY($1::uuid[])", [docs.map((d) => d.Event.uuid)]);
    await settled(s.pool);
    const started = Date.now();
    for (const d of docs) await api(s, "POST", "/events/import?on_invalid=skip", d);
    await settled(s.pool);
    importRuns.push((Date.now() - started) / 1000);
  }
  out.sample_import_baseline = { seconds: importRuns.map((r) => round(r, 2)), attributes_per_second: round((out.sample as { attributes: number }).attributes / median(importRuns)) };
  return out;
}

async function freetextFigure() {
  const values: string[] = [];
  for (const f of fs.readdirSync(FEED_DIR).filter((n) => /^[0-9a-f-]{36}\.json$/.test(n))) {
    for (const a of (JSON.parse(fs.readFileSync(path.join(FEED_DIR, f), "utf8")).Event.Attribute ?? []) as { value: string }[]) {
      values.push(a.value, a.value.replace(/\./g, "[.]").replace(/^http/, "hxxp"));
    }
  }
  const lines = 500_000;
  const text = Array.from({ length: lines }, (_, i) => values[i % values.length]).join("\n");
  const runs = { parse: [] as number[], split: [] as number[] };
  for (let i = 0; i < 3; i++) {
    let started = performance.now();
    let n = 0;
    for await (const _ of readLines(Readable.from([Buffer.from(text)]))) n++;
    runs.split.push(n / ((performance.now() - started) / 1000));
    started = performance.now();
    n = 0;
    for await (const _ of freetextRows(Readable.from([Buffer.from(text)]), {})) n++;
    runs.parse.push(n / ((performance.now() - started) / 1000));
  }
  return {
    lines,
    parse_lines_per_second: round(median(runs.parse)),
    split_only_lines_per_second: round(median(runs.split)),
    parse_vs_split: round(median(runs.parse) / median(runs.split), 3),
  };
}

function option(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : fallback;
}

/** A service on a fresh database; OpenSearch under its own index prefix when given. */
async function startBenchService(label: string, opensearch: string | null, logLevel: string) {
  const db = await createTestDatabase(`bench_feeds_${label}`);
  const pool = new pg.Pool({ connectionString: db.url, max: 3 });
  const prefix = `bench-feeds-${process.pid}-${crypto.randomBytes(3).toString("hex")}-`;
  const service = startService(
    {
      ROLE: "all",
      PORT: String(await freePort()),
      DATABASE_URL: db.url,
      DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), "wb-bench-")),
      LOG_LEVEL: logLevel,
      JWT_SECRET: "bench-secret-bench-secret-bench-secret-0",
      ADMIN_EMAIL: "bench@example.test",
      ADMIN_PASSWORD: "bench-password-1",
      ...(opensearch ? { OPENSEARCH_URL: opensearch, OPENSEARCH_INDEX_PREFIX: prefix } : {}),
    },
    { name: `service-${label}` },
  );
  await service.waitForHealthy(60_000);
  const login = await fetch(`${service.url}/auth/token`, { method: "POST", body: new URLSearchParams({ username: "bench@example.test", password: "bench-password-1" }) });
  const { access_token: token } = (await login.json()) as { access_token: string };
  return {
    setup: { service, token, pool, opensearch } as IngestSetup,
    async stop() {
      await service.stop();
      await pool.end();
      await db.drop();
      // The service's index templates too: a node keeps collecting them run after run otherwise.
      for (const p of [`/${prefix}*`, `/_index_template/${prefix}*`]) if (opensearch) await fetch(new URL(p, opensearch), { method: "DELETE" }).catch(() => undefined);
    },
  };
}

const USAGE = `npx tsx bench/feeds.ts [options]
  --only all|upload|ingest|freetext   which figures (default all)
  --upload-mb N                       size of the upload figure's csv (default 1536)
  --rounds N                          runs per feed (default 3)
  --feed EVENTSxPER_EVENT             the synthetic feed (default 20x5000: 100,000 attributes)
  --backends postgres,opensearch      search backends for the ingest figure (default both)
  --opensearch URL                    OpenSearch node (default OPENSEARCH_URL; none: PostgreSQL only)
Prints one JSON document on stdout; each run's stage breakdown on stderr as it ends.`;

async function main() {
  if (process.argv.includes("--help") || process.argv.includes("-h")) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const megabytes = Number(option("--upload-mb", "1536"));
  const only = option("--only", "all");
  const rounds = Number(option("--rounds", "3"));
  const [events, perEvent] = option("--feed", "20x5000").split("x").map(Number);
  const opensearch = option("--opensearch", process.env.OPENSEARCH_URL ?? "");
  const wanted = option("--backends", "postgres,opensearch").split(",");
  await setupTemplate();
  const result: Record<string, unknown> = {};
  try {
    if (only === "all" || only === "upload") {
      const svc = await startBenchService("upload", null, "info");
      result.upload = await uploadFigure(svc.setup.service, svc.setup.token, megabytes);
      process.stderr.write(`upload ${JSON.stringify(result.upload)}\n`);
      await svc.stop();
    }
    if (only === "all" || only === "ingest") {
      const backends = ([["postgres", null], ["opensearch", opensearch || null]] as [string, string | null][]).filter(([b, url]) => wanted.includes(b) && (b === "postgres" || url));
      const ingest: Record<string, unknown> = {};
      for (const [backend, url] of backends) {
        process.stderr.write(`ingest on ${backend}\n`);
        const svc = await startBenchService(backend, url, "debug");
        ingest[backend] = await ingestFigure(svc.setup, { rounds, events, perEvent });
        process.stderr.write(`ingest ${backend} ${JSON.stringify(ingest[backend])}\n`);
        await svc.stop();
      }
      result.ingest = ingest;
    }
    if (only === "all" || only === "freetext") {
      result.freetext = await freetextFigure();
      process.stderr.write(`freetext ${JSON.stringify(result.freetext)}\n`);
    }
    process.stdout.write(`${JSON.stringify({ date: new Date().toISOString(), machine: { cpus: os.cpus().length, node: process.version, loadavg: os.loadavg().map((l) => round(l, 1)) }, ...result }, null, 2)}\n`);
  } finally {
    killAllServices();
  }
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  killAllServices();
  process.exit(1);
});
