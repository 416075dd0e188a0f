/**
 * Feeds: three figures from one service process (`ROLE=all`, local storage), against baselines
 * measured in the same run.
 *
 * 1. Upload: a 1.5 GB csv streamed by curl to POST /feeds/upload; the service's peak RSS growth
 *    (VmRSS sampled every 50 ms) must stay under 150 MB. Baseline: the same bytes through curl to
 *    GET /healthz-sized work is meaningless, so the figure is absolute, with the throughput.
 * 2. Ingest: the whole Infoblox MISP feed sample (../shared/data/misp-feed-sample) as a zip upload,
 *    a local feed, its fetch_feed run, then indexing and correlation settled: attributes per second
 *    end to end. Baseline: the same events imported one by one through POST /events/import (settled too).
 * 3. Freetext parsing: lines per second of `freetextRows` (refang + type detection) over 500 000
 *    lines built from the sample's values; baseline: splitting the same text into lines only.
 *
 *   npx tsx bench/feeds.ts                 # all three (about 3 minutes)
 *   npx tsx bench/feeds.ts --upload-mb 200 # a smaller upload
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import pg from "pg";
import setupTemplate from "../test/support/global-setup.ts";
import { createTestDatabase } from "../test/support/databases.ts";
import { freePort, killAllServices, startService, type ServiceProcess } from "../test/support/process.ts";
import { SHARED_DATA } from "../test/support/shared-data.ts";
import { zip } from "../test/support/archives.ts";
import { freetextRows } from "../src/modules/feeds/ingest/indicators.ts";
import { readLines } from "../src/modules/feeds/ingest/lines.ts";
import { median, round } from "./lib.ts";

const FEED_DIR = path.join(SHARED_DATA, "misp-feed-sample");

function rssOf(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

async function settled(pool: pg.Pool): Promise<void> {
  for (;;) {
    const { rows } = await pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM graphile_worker._private_jobs j JOIN graphile_worker._private_tasks t ON t.id = j.task_id
        WHERE t.identifier IN ('dispatch_changes', 'index_changes', 'correlate_changes', 'run_task')`,
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

async function ingestFigure(service: ServiceProcess, token: string, pool: pg.Pool) {
  const call = async (method: string, route: string, body?: unknown) => {
    const res = await fetch(`${service.url}${route}`, { method, headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) }, body: body === undefined ? undefined : JSON.stringify(body) });
    if (res.status >= 300) throw new Error(`${method} ${route}: ${res.status} ${await res.text()}`);
    return res.json() as Promise<Record<string, unknown>>;
  };
  const files = fs.readdirSync(FEED_DIR).filter((f) => /^[0-9a-f-]{36}\.json$/.test(f));
  const docs = files.map((f) => JSON.parse(fs.readFileSync(path.join(FEED_DIR, f), "utf8")) as { Event: Record<string, unknown> & { uuid: string; timestamp: string } });
  const manifest = Object.fromEntries(docs.map((d) => [d.Event.uuid, { timestamp: Number(d.Event.timestamp), info: d.Event.info }]));
  const wipe = async () => {
    await pool.query("DELETE FROM events WHERE uuid = ANY($1::uuid[])", [docs.map((d) => d.Event.uuid)]);
    await settled(pool);
  };
  const counted = async () => (await pool.query<{ n: number }>("SELECT count(*)::int AS n FROM attributes a JOIN events e ON e.id = a.event_id WHERE e.uuid = ANY($1::uuid[])", [docs.map((d) => d.Event.uuid)])).rows[0].n;

  const feedRuns: number[] = [];
  const importRuns: number[] = [];
  let attributes = 0;
  for (let round_ = 0; round_ < 3; round_++) {
    // The feed path: upload the archive, create the feed, wait for ingestion, indexing and correlation.
    await wipe();
    let started = Date.now();
    const form = new FormData();
    form.append("source_format", "sharing");
    form.append("file", new Blob([new Uint8Array(zip([{ name: "manifest.json", data: JSON.stringify(manifest) }, ...docs.map((d) => ({ name: `${d.Event.uuid}.json`, data: JSON.stringify(d), deflate: true }))]))]), "sample.zip");
    const up = (await (await fetch(`${service.url}/feeds/upload`, { method: "POST", headers: { authorization: `Bearer ${token}` }, body: form })).json()) as { key: string };
    await call("POST", "/feeds/", { name: `bench ${round_}`, provider: "bench", url: up.key, source_format: "misp", input_source: "local" });
    await settled(pool);
    feedRuns.push((Date.now() - started) / 1000);
    attributes = await counted();
    // The baseline: the same events through POST /events/import.
    await wipe();
    started = Date.now();
    for (const d of docs) await call("POST", "/events/import?on_invalid=skip", d);
    await settled(pool);
    importRuns.push((Date.now() - started) / 1000);
  }
  const feedSeconds = median(feedRuns);
  const importSeconds = median(importRuns);
  return {
    events: docs.length,
    attributes,
    feed_seconds: feedRuns.map((s) => round(s, 2)),
    import_seconds: importRuns.map((s) => round(s, 2)),
    feed_attributes_per_second: round(attributes / feedSeconds),
    import_attributes_per_second: round(attributes / importSeconds),
    feed_vs_import: round(importSeconds / feedSeconds, 2),
  };
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

async function main() {
  const mbArg = process.argv.indexOf("--upload-mb");
  const megabytes = mbArg > 0 ? Number(process.argv[mbArg + 1]) : 1536;
  await setupTemplate();
  const db = await createTestDatabase("bench_feeds");
  const pool = new pg.Pool({ connectionString: db.url, max: 2 });
  const service = startService(
    {
      ROLE: "all",
      PORT: String(await freePort()),
      DATABASE_URL: db.url,
      DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), "wb-bench-")),
      LOG_LEVEL: "info",
      JWT_SECRET: "bench-secret-bench-secret-bench-secret-0",
      ADMIN_EMAIL: "bench@example.test",
      ADMIN_PASSWORD: "bench-password-1",
    },
    { name: "service" },
  );
  try {
    await service.waitForHealthy(60_000);
    const login = await fetch(`${service.url}/auth/token`, { method: "POST", body: new URLSearchParams({ username: "bench@example.test", password: "bench-password-1" }) });
    const { access_token: token } = (await login.json()) as { access_token: string };
    const upload = await uploadFigure(service, token, megabytes);
    process.stderr.write(`upload ${JSON.stringify(upload)}\n`);
    const ingest = await ingestFigure(service, token, pool);
    process.stderr.write(`ingest ${JSON.stringify(ingest)}\n`);
    const freetext = await freetextFigure();
    process.stderr.write(`freetext ${JSON.stringify(freetext)}\n`);
    process.stdout.write(
      `${JSON.stringify({ date: new Date().toISOString(), machine: { cpus: os.cpus().length, node: process.version, loadavg: os.loadavg().map((l) => round(l, 1)) }, upload, ingest, freetext }, null, 2)}\n`,
    );
    await service.stop();
  } finally {
    killAllServices();
    await pool.end();
    await db.drop();
  }
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  killAllServices();
  process.exit(1);
});
