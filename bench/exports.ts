/**
 * Exports benchmark (issue 21): 1,000,000 attributes exported through the API, on each search
 * backend, with the throughput and the memory of the service process.
 *
 *   npx tsx bench/exports.ts                                  # both backends, 1 000 000 attributes (~1 h: ~30 min of PostgreSQL indexing)
 *   npx tsx bench/exports.ts --attributes 100000              # quick run (~5 min)
 *   options: --runs 3  --no-json (skip the json comparison)  --seed 20261123
 *     --keep (leave the database and the OpenSearch indices)  --reuse <db> <prefix> (skip indexing: what --keep left)
 *     --cpu-prof (the service runs with node --cpu-prof; the hottest functions of each backend are printed)
 *     --phases ndjson,json,stix,breakdown (a subset, e.g. with --cpu-prof)
 *     --node-flags "--trace-gc --max-semi-space-size=64" (V8/Node flags of the service process; its
 *       trace-gc lines are summarised per phase)  --service-log <file> (the service's output, written at the end)
 *
 * Setup: a database cloned from the test template (the test PostgreSQL, TEST_DATABASE_URL), the
 * synthetic corpus of `./search-data.ts` (`--attributes` attributes, 100 per event) written with
 * `bulkIndex` from this process into the PostgreSQL backend's tables of that database (two batches
 * of 5 000 in flight; then VACUUM (ANALYZE)) and into OpenSearch at OPENSEARCH_URL (default
 * http://127.0.0.1:9200) under an index prefix of this run's, removed at the end. The attributes
 * live only in the search index (no events in PostgreSQL: the STIX writer's event lookup finds
 * nothing, so reports have no creator, which is what such an export gives).
 *
 * Then, per backend, the service as a child process (`node --import tsx src/main.ts`, ROLE=all so
 * it also runs the worker, LOG_LEVEL=warn, a temporary DATA_DIR with local storage), the
 * administrator logged in (the export is of everything: no access filter), a wait until the
 * worker's start-up jobs have left the database (reindex_stale_access scans the whole PostgreSQL
 * index: ~2.5 s at 1M), a warm-up export of a query with fewer than 10 000 hits whose line count
 * must equal the search route's exact total; then `--runs` times each (interleaved per run):
 *
 * 1. ndjson: `GET /attributes/export?query=&format=ndjson` (match all), read by node:http and
 *    counted (bytes, lines); time from the request to the last byte; records/s = lines / time.
 * 2. json (comparison): the same with format=json (records = lines - 2). Both must list every
 *    attribute indexed (the search route's totals stop being exact at 10 000).
 * 3. STIX: `POST /exports/ {name, query: "", index_target: "attributes", format: "stix"}`, `GET /exports/{id}` polled every 200 ms
 *    until `completed`; time from the POST to the poll that saw it (and the service's own
 *    started_at -> finished_at), records/s = record_count / time, file size. Then
 *    `GET /exports/{id}/download` read and counted (MB/s). The first run's file is parsed from
 *    storage as a stream (the bundle's envelope and every object, JSON.parse each): objects by
 *    type; indicator + observed-data + note must equal record_count, reports the events.
 *    The export is deleted after each run (its file is ~0.6 GB at 1M).
 *
 * 4. breakdown (once per backend, after its service has stopped): the export's walk in this process,
 *    without HTTP: `SearchIndex.scan` with the request `openExport` builds (match all, administrator,
 *    `deleted: false`, pages of 1 000), then the same pages through `encodeExport` (ndjson, the
 *    routes' `searchHitOut`): time waiting for pages (SQL or OpenSearch, transfer, JSON parsing of
 *    the sources) against time encoding, so the HTTP figure can be split.
 *
 * During every phase the service process's VmRSS is sampled every 100 ms from /proc/<pid>/status
 * (its VmHWM reset through /proc/<pid>/clear_refs before the phase, read after it), with the CPU
 * the service, its database's PostgreSQL backends, OpenSearch and the whole machine used.
 * Baseline: the idle service after indexing and the warm-up. Goal: >= 20 000 records/s for
 * ndjson, RSS growth < 100 MB.
 *
 * Prints one JSON document on stdout, progress and a summary table on stderr.
 */
import crypto from "node:crypto";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { OpenSearchSearchIndex } from "../src/search/opensearch/index.ts";
import { PostgresSearchIndex } from "../src/search/postgres/index.ts";
import type { SearchIndex } from "../src/search/search-index.ts";
import { INDEX_FIELDS } from "../src/search/fields.ts";
import { EXPORT_PAGE_SIZE } from "../src/modules/search/explore-export.ts";
import { encodeExport } from "../src/modules/search/export-formats.ts";
import { parseUserQuery } from "../src/modules/search/search.service.ts";
import { searchHitOut } from "../rest-shim/serializers/search.ts";
import { createTestDatabase, databaseUrl } from "../test/support/databases.ts";
import setupTemplate from "../test/support/global-setup.ts";
import { HttpClient } from "../test/support/http.ts";
import { freePort, sleep, startService, type ServiceProcess } from "../test/support/process.ts";
import type { Doc } from "../test/support/search-fixtures.ts";
import { BENCH_ADMIN, benchServiceEnv, median, round } from "./lib.ts";
import { generateEvents } from "./search-data.ts";

type Backend = "postgres" | "opensearch";
type Phase = "ndjson" | "json" | "stix" | "breakdown";

const ATTRIBUTES_PER_EVENT = 100;
const BATCH = 5_000;
const SAMPLE_MS = 100;
const POLL_MS = 200;
/** A query of fewer than 10 000 hits at every scale (the search route's totals are exact up to 10 000). */
const CHECK_QUERY = "value:*.top";
const GOAL_RECORDS_PER_SECOND = 20_000;
const GOAL_RSS_GROWTH_MB = 100;

interface Options {
  backends: Backend[];
  attributes: number;
  runs: number;
  seed: number;
  json: boolean;
  keep: boolean;
  reuse: { db: string; prefix: string } | null;
  cpuProf: boolean;
  phases: Phase[];
  nodeFlags: string[];
  serviceLog: string | null;
}

function parseArgs(argv: string[]): Options {
  const opts: Options = { backends: ["postgres", "opensearch"], attributes: 1_000_000, runs: 3, seed: 20261123, json: true, keep: false, reuse: null, cpuProf: false, phases: ["ndjson", "json", "stix", "breakdown"], nodeFlags: [], serviceLog: null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const num = () => {
      const n = Number(argv[++i]);
      if (!Number.isInteger(n) || n <= 0) throw new Error(`${a} needs a positive integer`);
      return n;
    };
    if (a === "--backend") {
      const b = argv[++i];
      if (b === "both") opts.backends = ["postgres", "opensearch"];
      else if (b === "postgres" || b === "opensearch") opts.backends = [b];
      else throw new Error("--backend is postgres, opensearch or both");
    } else if (a === "--attributes") opts.attributes = num();
    else if (a === "--runs") opts.runs = num();
    else if (a === "--seed") opts.seed = num();
    else if (a === "--no-json") opts.json = false;
    else if (a === "--keep") opts.keep = true;
    else if (a === "--cpu-prof") opts.cpuProf = true;
    else if (a === "--node-flags") opts.nodeFlags = (argv[++i] ?? "").split(/\s+/).filter(Boolean);
    else if (a === "--service-log") opts.serviceLog = argv[++i] ?? null;
    else if (a === "--phases") {
      const list = (argv[++i] ?? "").split(",").filter(Boolean);
      if (!list.length || list.some((p) => !["ndjson", "json", "stix", "breakdown"].includes(p))) throw new Error("--phases is a comma-separated list of ndjson, json, stix, breakdown");
      opts.phases = list as Phase[];
    } else if (a === "--reuse") {
      const [db, prefix] = [argv[++i], argv[++i]];
      if (!db || !/^wb_test_bench_exports_[0-9a-f]+$/.test(db) || !prefix?.startsWith("bench-exports-")) throw new Error("--reuse needs the database and the index prefix that --keep left");
      opts.reuse = { db, prefix };
      opts.keep = true;
    } else throw new Error(`unknown argument ${a}`);
  }
  if (!opts.json) opts.phases = opts.phases.filter((p) => p !== "json");
  return opts;
}

const log = (msg: string) => process.stderr.write(`[${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
const loadavg = () => os.loadavg().map((l) => round(l, 2));
const MB = 1024 * 1024;

// ---------------------------------------------------------------- /proc

/** VmRSS and VmHWM of a process, in bytes (null once it is gone). */
function memoryOf(pid: number): { rss: number; hwm: number } | null {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN) * 1024;
    return { rss: kb("VmRSS"), hwm: kb("VmHWM") };
  } catch {
    return null;
  }
}

/** Resets VmHWM to the current RSS (`5` to clear_refs, Linux 4.0+); false when not allowed. */
function resetPeak(pid: number): boolean {
  try {
    fs.writeFileSync(`/proc/${pid}/clear_refs`, "5");
    return true;
  } catch {
    return false;
  }
}

const CLK_TCK = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** utime + stime of one process, in seconds (0 once it is gone). */
function cpuSeconds(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(f[11]) + Number(f[12])) / CLK_TCK;
  } catch {
    return 0;
  }
}

/** Busy and total jiffies of the whole machine. */
function machineTicks(): { busy: number; total: number } {
  const cpu = fs.readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = cpu.reduce((a, b) => a + b, 0);
  const idle = cpu[3]! + (cpu[4] ?? 0);
  return { busy: total - idle, total };
}

/** The OpenSearch node's JVM on this machine, if there is one (for its CPU). */
function opensearchPid(): number | null {
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (fs.readFileSync(`/proc/${entry}/cmdline`, "utf8").includes("org.opensearch.bootstrap.OpenSearch")) return Number(entry);
    } catch {
      /* gone */
    }
  }
  return null;
}

// ---------------------------------------------------------------- phase meter

interface PhaseResources {
  rss_before_mb: number;
  rss_peak_mb: number;
  /** VmHWM after the phase (reset before it): the peak between samples too. */
  hwm_mb: number | null;
  rss_after_mb: number;
  rss_growth_mb: number;
  /** Peak against the idle baseline of the backend's service (taken once, after indexing and the warm-up). */
  rss_growth_vs_idle_mb: number;
  samples: number;
  cpu_percent_of_one_core: { service: number; postgres_backends: number; opensearch: number | null; bench_client: number };
  machine_busy_percent: number;
}

/** Samples the service's RSS every 100 ms and counts CPU from start() to stop(). */
class PhaseMeter {
  private timer: NodeJS.Timeout | null = null;
  private peak = 0;
  private samples = 0;
  private before = 0;
  private hwmReset = false;
  private started = 0;
  private cpu0 = { service: 0, pg: new Map<number, number>(), os: 0, client: process.cpuUsage(), machine: machineTicks() };

  constructor(
    private readonly pid: number,
    private readonly pool: pg.Pool,
    private readonly osPid: number | null,
    private readonly idleBaseline: number,
  ) {}

  private async pgBackends(): Promise<Map<number, number>> {
    const { rows } = await this.pool.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()");
    return new Map(rows.map((r) => [r.pid, cpuSeconds(r.pid)]));
  }

  async start(): Promise<void> {
    this.hwmReset = resetPeak(this.pid);
    const m = memoryOf(this.pid)!;
    this.before = m.rss;
    this.peak = m.rss;
    this.samples = 1;
    this.cpu0 = { service: cpuSeconds(this.pid), pg: await this.pgBackends(), os: this.osPid ? cpuSeconds(this.osPid) : 0, client: process.cpuUsage(), machine: machineTicks() };
    this.started = performance.now();
    this.timer = setInterval(() => {
      const s = memoryOf(this.pid);
      if (!s) return;
      this.samples++;
      if (s.rss > this.peak) this.peak = s.rss;
    }, SAMPLE_MS);
  }

  async stop(): Promise<PhaseResources> {
    clearInterval(this.timer!);
    const seconds = (performance.now() - this.started) / 1000;
    const m = memoryOf(this.pid)!;
    if (m.rss > this.peak) this.peak = m.rss;
    // Backends that exited during the phase took their CPU along; the search pool's stay open.
    const pgNow = await this.pgBackends();
    let pgCpu = 0;
    for (const [pid, s] of pgNow) pgCpu += s - (this.cpu0.pg.get(pid) ?? 0);
    const client = process.cpuUsage(this.cpu0.client);
    const machine = machineTicks();
    const pct = (cpu: number) => round((100 * cpu) / seconds, 1);
    const peak = Math.max(this.peak, this.hwmReset ? m.hwm : 0);
    return {
      rss_before_mb: round(this.before / MB, 1),
      rss_peak_mb: round(this.peak / MB, 1),
      hwm_mb: this.hwmReset ? round(m.hwm / MB, 1) : null,
      rss_after_mb: round(m.rss / MB, 1),
      rss_growth_mb: round((peak - this.before) / MB, 1),
      rss_growth_vs_idle_mb: round((peak - this.idleBaseline) / MB, 1),
      samples: this.samples,
      cpu_percent_of_one_core: {
        service: pct(cpuSeconds(this.pid) - this.cpu0.service),
        postgres_backends: pct(pgCpu),
        opensearch: this.osPid ? pct(cpuSeconds(this.osPid) - this.cpu0.os) : null,
        bench_client: pct((client.user + client.system) / 1e6),
      },
      machine_busy_percent: round((100 * (machine.busy - this.cpu0.machine.busy)) / Math.max(1, machine.total - this.cpu0.machine.total), 1),
    };
  }
}

// ---------------------------------------------------------------- GC trace

interface GcSummary {
  scavenges: number;
  mark_compacts: number;
  /** Largest V8 heap in use before a collection, and committed (the figure in parentheses), MB. */
  max_heap_used_mb: number;
  max_heap_committed_mb: number;
  /** Heap in use after each mark-compact (the live heap then), MB. */
  after_mark_compact_mb: number[];
  /** Sum of (before - after) over the collections: about what the phase allocated, MB. */
  collected_mb: number;
  gc_pause_ms: number;
}

/** `--trace-gc` lines of the service's output: `... ms: Mark-Compact 310.2 (335.1) -> 120.4 (200.3) MB, 12.1 / 0.0 ms ...`. */
function gcSummary(text: string): GcSummary | null {
  const re = /ms: (Scavenge|Mark-Compact|Mark-Compact \(reduce\)|Minor Mark-Compact)[^\d]*([\d.]+) \(([\d.]+)\) -> ([\d.]+) \(([\d.]+)\) MB, (?:pooled: [\d.]+ MB, )?([\d.]+) \/ ([\d.]+) ms/g;
  const out: GcSummary = { scavenges: 0, mark_compacts: 0, max_heap_used_mb: 0, max_heap_committed_mb: 0, after_mark_compact_mb: [], collected_mb: 0, gc_pause_ms: 0 };
  let any = false;
  for (const m of text.matchAll(re)) {
    any = true;
    if (m[1] === "Scavenge") out.scavenges++;
    else {
      out.mark_compacts++;
      out.after_mark_compact_mb.push(Number(m[4]));
    }
    out.max_heap_used_mb = Math.max(out.max_heap_used_mb, Number(m[2]));
    out.max_heap_committed_mb = Math.max(out.max_heap_committed_mb, Number(m[3]), Number(m[5]));
    out.collected_mb += Math.max(0, Number(m[2]) - Number(m[4]));
    out.gc_pause_ms += Number(m[6]);
  }
  out.collected_mb = round(out.collected_mb);
  out.gc_pause_ms = round(out.gc_pause_ms);
  return any ? out : null;
}

/** Waits until no statement of another session runs on the database for 3 s in a row (at most 5 min); returns the seconds waited. */
async function waitQuiet(pool: pg.Pool): Promise<number> {
  const t0 = performance.now();
  let quietSince = performance.now();
  while (performance.now() - t0 < 300_000) {
    const { rows } = await pool.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND state = 'active' AND backend_type = 'client backend' AND query NOT ILIKE '%LISTEN%'",
    );
    if (rows[0]!.n > 0) quietSince = performance.now();
    else if (performance.now() - quietSince >= 3_000) break;
    await sleep(250);
  }
  return round((performance.now() - t0) / 1000, 1);
}

// ---------------------------------------------------------------- HTTP streaming

interface Streamed {
  status: number;
  ttfb_ms: number;
  ms: number;
  bytes: number;
  newlines: number;
  head: string;
  tail: string;
}

/** GET, the body read as it comes (bytes and newlines counted; first and last 64 KB kept); rejects on a cut body. */
function streamGet(url: string, token: string): Promise<Streamed> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = http.get(url, { headers: { authorization: `Bearer ${token}` }, agent: false }, (res) => {
      const ttfb = performance.now() - t0;
      let bytes = 0;
      let newlines = 0;
      let head: Buffer = Buffer.alloc(0);
      // The last chunks (references only), enough for the last 64 KB.
      let last: Buffer[] = [];
      let lastBytes = 0;
      res.on("data", (chunk: Buffer) => {
        bytes += chunk.length;
        for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) newlines++;
        if (head.length < 65_536) head = Buffer.concat([head, chunk.subarray(0, 65_536 - head.length)]);
        last.push(chunk);
        lastBytes += chunk.length;
        while (last.length > 1 && lastBytes - last[0]!.length >= 65_536) lastBytes -= last.shift()!.length;
      });
      res.on("end", () => {
        if (!res.complete) return reject(new Error(`${url}: the body was cut after ${bytes} bytes`));
        const tail = Buffer.concat(last).subarray(-65_536).toString("utf8");
        last = [];
        resolve({ status: res.statusCode ?? 0, ttfb_ms: round(ttfb, 1), ms: performance.now() - t0, bytes, newlines, head: head.toString("utf8"), tail });
      });
      res.on("error", reject);
    });
    req.on("error", reject);
  });
}

// ---------------------------------------------------------------- STIX bundle check

interface StixCheck {
  bytes: number;
  envelope_ok: boolean;
  objects: number;
  by_type: Record<string, number>;
  primary_objects: number;
  parse_seconds: number;
}

/**
 * Parses a STIX bundle file as a stream: bytes outside the objects array's elements form the
 * envelope (each element replaced by `0`, then JSON.parse), each element is JSON.parse'd alone.
 * Memory: one object at a time plus the envelope (2 bytes per object).
 */
async function checkStixFile(file: string): Promise<StixCheck> {
  const t0 = performance.now();
  const byType: Record<string, number> = {};
  const envelope: string[] = [];
  let depth = 0;
  let inString = false;
  let escaped = false;
  let pieces: Buffer[] = [];
  let objects = 0;
  let bytes = 0;
  const stream = fs.createReadStream(file, { highWaterMark: 1 << 20 });
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    bytes += chunk.length;
    // Start of the current element in this chunk (-1: none open, or it began in an earlier chunk).
    let start = depth >= 3 ? 0 : -1;
    let outside = depth < 3 ? 0 : -1;
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk[i]!;
      if (inString) {
        if (escaped) escaped = false;
        else if (c === 0x5c) escaped = true;
        else if (c === 0x22) inString = false;
        continue;
      }
      if (c === 0x22) inString = true;
      else if (c === 0x7b || c === 0x5b) {
        depth++;
        if (depth === 3) {
          if (c !== 0x7b) throw new Error(`${file}: an element of the objects array is not an object (byte ${bytes - chunk.length + i})`);
          if (outside >= 0) envelope.push(chunk.toString("utf8", outside, i));
          outside = -1;
          start = i;
        }
      } else if (c === 0x7d || c === 0x5d) {
        depth--;
        if (depth === 2 && start >= 0) {
          pieces.push(chunk.subarray(start, i + 1));
          const o = JSON.parse(Buffer.concat(pieces).toString("utf8")) as { type?: unknown; id?: unknown };
          if (typeof o.type !== "string" || typeof o.id !== "string" || !o.id.startsWith(`${o.type}--`)) throw new Error(`${file}: object ${objects} has no STIX type and id`);
          byType[o.type] = (byType[o.type] ?? 0) + 1;
          objects++;
          pieces = [];
          start = -1;
          envelope.push("0");
          outside = i + 1;
        }
      }
    }
    if (start >= 0) pieces.push(Buffer.from(chunk.subarray(start)));
    if (outside >= 0 && outside < chunk.length) envelope.push(chunk.toString("utf8", outside));
  }
  let envelopeOk = false;
  try {
    const b = JSON.parse(envelope.join("")) as { type?: unknown; id?: unknown; objects?: unknown[] };
    envelopeOk = b.type === "bundle" && typeof b.id === "string" && b.id.startsWith("bundle--") && Array.isArray(b.objects) && b.objects.length === objects;
  } catch {
    envelopeOk = false;
  }
  const primary = (byType.indicator ?? 0) + (byType["observed-data"] ?? 0) + (byType.note ?? 0);
  return { bytes, envelope_ok: envelopeOk, objects, by_type: byType, primary_objects: primary, parse_seconds: round((performance.now() - t0) / 1000, 1) };
}

// ---------------------------------------------------------------- indexing

interface Corpus {
  attributes: number;
  events: number;
  /** Attributes an export of everything lists (not deleted). */
  exportable: number;
  /** Events with at least one exportable attribute (one STIX report each). */
  eventsWithAttributes: number;
}

/** The corpus's figures (generating it again takes ~6 s per million attributes). */
function corpusFigures(attributes: number, seed: number): Corpus {
  const events = Math.ceil(attributes / ATTRIBUTES_PER_EVENT);
  let n = 0;
  let exportable = 0;
  let withAttributes = 0;
  for (const { attributes: attrs } of generateEvents({ events, attributesPerEvent: ATTRIBUTES_PER_EVENT, seed })) {
    const live = attrs.filter((a) => a.source.deleted !== true).length;
    n += attrs.length;
    exportable += live;
    if (live) withAttributes++;
  }
  return { attributes: n, events, exportable, eventsWithAttributes: withAttributes };
}

/** bulkIndex of the corpus, two batches in flight (generation overlaps the writes). */
async function fillIndex(index: SearchIndex, attributes: number, seed: number): Promise<{ documents: number; seconds: number; docs_per_second: number }> {
  const t0 = performance.now();
  const inFlight = new Set<Promise<void>>();
  let batch: Doc[] = [];
  let events: Doc[] = [];
  let documents = 0;
  let nextReport = Date.now() + 60_000;
  const send = async () => {
    const [a, e] = [batch, events];
    batch = [];
    events = [];
    documents += a.length + e.length;
    const p = (async () => {
      if (a.length) await index.bulkIndex("svc-attributes", a);
      if (e.length) await index.bulkIndex("svc-events", e);
    })();
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p)).catch(() => undefined);
    if (inFlight.size >= 2) await Promise.race(inFlight);
    if (Date.now() > nextReport) {
      nextReport = Date.now() + 60_000;
      log(`${index.backend}: ${documents} documents sent, ${round(documents / ((performance.now() - t0) / 1000))} docs/s, load ${loadavg().join(" ")}`);
    }
  };
  for (const { event, attributes: attrs } of generateEvents({ events: Math.ceil(attributes / ATTRIBUTES_PER_EVENT), attributesPerEvent: ATTRIBUTES_PER_EVENT, seed })) {
    events.push(event);
    batch.push(...attrs);
    if (batch.length >= BATCH) await send();
  }
  if (batch.length || events.length) await send();
  await Promise.all(inFlight);
  await index.refresh();
  const seconds = (performance.now() - t0) / 1000;
  return { documents, seconds: round(seconds, 1), docs_per_second: round(documents / seconds) };
}

// ---------------------------------------------------------------- in-process breakdown

interface Breakdown {
  pages: number;
  records: number;
  seconds: number;
  /** Waiting for the scan's next page: the backend's statement or request, transfer, parsing the sources. */
  page_read_seconds: number;
  page_read_ms_per_page: number;
  /** encodeExport's ndjson of those pages (JSON.stringify of each hit). */
  encode_seconds: number;
  encode_ms_per_page: number;
  encoded_mb: number;
  records_per_second: number;
}

/** The Explore export's walk and encoding in this process (see the module comment, part 4). */
async function breakdown(index: SearchIndex): Promise<Breakdown> {
  const scan = index.scan({
    index: "svc-attributes",
    query: parseUserQuery(""),
    defaultFields: INDEX_FIELDS["svc-attributes"].defaultFields,
    access: { admin: true, orgId: null },
    filters: { deleted: false },
    pageSize: EXPORT_PAGE_SIZE,
    timeoutMs: 10_000,
  })[Symbol.asyncIterator]();
  let read = 0;
  let encode = 0;
  let pages = 0;
  let records = 0;
  let bytes = 0;
  const t0 = performance.now();
  for (;;) {
    const r0 = performance.now();
    const next = await scan.next();
    read += performance.now() - r0;
    if (next.done) break;
    pages++;
    records += next.value.length;
    const e0 = performance.now();
    const page = next.value;
    const one = (async function* () {
      yield page;
    })();
    for await (const chunk of encodeExport("ndjson", "attributes", one, (h) => searchHitOut(h, "@timestamp"))) bytes += Buffer.byteLength(chunk);
    encode += performance.now() - e0;
  }
  const seconds = (performance.now() - t0) / 1000;
  return {
    pages,
    records,
    seconds: round(seconds, 2),
    page_read_seconds: round(read / 1000, 2),
    page_read_ms_per_page: round(read / pages, 2),
    encode_seconds: round(encode / 1000, 2),
    encode_ms_per_page: round(encode / pages, 2),
    encoded_mb: round(bytes / MB, 1),
    records_per_second: round(records / seconds),
  };
}

// ---------------------------------------------------------------- one backend

interface ExploreRun {
  run: number;
  seconds: number;
  ttfb_ms: number;
  records: number;
  records_per_second: number;
  bytes: number;
  mb_per_second: number;
  resources: PhaseResources;
  gc?: GcSummary;
  loadavg: number[];
}

interface StixRun {
  run: number;
  seconds: number;
  service_seconds: number | null;
  queue_wait_seconds: number | null;
  record_count: number;
  records_per_second: number;
  file_size: number;
  resources: PhaseResources;
  download: { seconds: number; bytes: number; mb_per_second: number; resources: PhaseResources };
  check?: StixCheck;
  gc?: GcSummary;
  loadavg: number[];
}

async function benchBackend(backend: Backend, opts: Options, db: { url: string }, prefix: string, opensearchUrl: string, corpus: Corpus, pool: pg.Pool) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "wb-bench-exports-"));
  const profDir = path.join(dataDir, "cpu-prof");
  const port = await freePort();
  const flags = [...(opts.cpuProf ? ["--cpu-prof", "--cpu-prof-dir", profDir] : []), ...opts.nodeFlags];
  const command: [string, ...string[]] | undefined = flags.length ? [process.execPath, ...flags, "--import", "tsx", "src/main.ts"] : undefined;
  let service: ServiceProcess | null = null;
  try {
    service = startService(
      benchServiceEnv({ role: "all", port, databaseUrl: db.url, dataDir, opensearch: backend === "opensearch" ? { url: opensearchUrl, prefix } : null }),
      { name: `service (${backend})`, command },
    );
    await service.waitForHealthy(180_000);
    const pid = service.pid;
    const rssAfterStart = memoryOf(pid)!.rss;
    const api = new HttpClient(service.url, { checkContract: false });
    const token = (await api.login(BENCH_ADMIN.email, BENCH_ADMIN.password)).access_token;
    const osPid = backend === "opensearch" ? opensearchPid() : null;
    // The worker's start-up jobs (reindex_stale_access scans the whole PostgreSQL index for documents
    // without an audience: seconds at 1M) must not share the first measurements.
    const quiet = await waitQuiet(pool);
    log(`${backend}: the database was quiet after ${quiet} s`);

    // Warm-up and a count check the API can confirm: a query under the 10 000 bound of exact totals.
    const search = await api.get(`/attributes/search?size=1&query=${encodeURIComponent(CHECK_QUERY)}`, { token });
    if (search.status !== 200) throw new Error(`search: ${search.status} ${search.text}`);
    const checkTotal = Number(search.body.total);
    const checkExact = search.body.total_relation === "eq" || search.body.total_relation === undefined;
    const warm = await streamGet(`${service.url}/attributes/export?format=ndjson&query=${encodeURIComponent(CHECK_QUERY)}`, token);
    if (warm.status !== 200) throw new Error(`${backend}: the export of ${CHECK_QUERY} answered ${warm.status}: ${warm.head.slice(0, 500)}`);
    const check = { query: CHECK_QUERY, search_total: checkTotal, total_relation: search.body.total_relation ?? null, ndjson_lines: warm.newlines, agrees: checkExact && warm.newlines === checkTotal };
    log(`${backend}: check ${JSON.stringify(check)}`);
    if (!check.agrees) throw new Error(`${backend}: the export of ${CHECK_QUERY} has ${warm.newlines} lines, search says ${checkTotal} (${String(search.body.total_relation)})`);

    // Idle baseline: 3 s of samples after the warm-up.
    await sleep(1_000);
    const idle: number[] = [];
    for (let i = 0; i < 30; i++) {
      idle.push(memoryOf(pid)!.rss);
      await sleep(SAMPLE_MS);
    }
    const idleBaseline = median(idle);
    log(`${backend}: service pid ${pid}, RSS after start ${round(rssAfterStart / MB, 1)} MB, idle after warm-up ${round(idleBaseline / MB, 1)} MB`);

    const explore = async (format: "ndjson" | "json", run: number): Promise<ExploreRun> => {
      const meter = new PhaseMeter(pid, pool, osPid, idleBaseline);
      const load = loadavg();
      const logFrom = service!.stdout.length;
      await meter.start();
      const r = await streamGet(`${service!.url}/attributes/export?format=${format}&query=`, token);
      const resources = await meter.stop();
      const gc = gcSummary(service!.stdout.slice(logFrom));
      if (r.status !== 200) throw new Error(`${format} export: ${r.status} ${r.head.slice(0, 500)}`);
      const records = format === "ndjson" ? r.newlines : r.newlines - 2;
      const firstLine = r.head.slice(format === "ndjson" ? 0 : 2).split("\n")[0]!.replace(/,$/, "");
      const first = JSON.parse(firstLine) as { _index?: string; _id?: string; _source?: Record<string, unknown> };
      if (typeof first._id !== "string" || !first._source) throw new Error(`${format}: the first record is not a hit: ${firstLine.slice(0, 300)}`);
      if (format === "ndjson") JSON.parse(r.tail.slice(r.tail.lastIndexOf("\n", r.tail.length - 2) + 1));
      else if (!r.tail.endsWith("\n]\n")) throw new Error(`json: the array is not closed: ${r.tail.slice(-200)}`);
      if (records !== corpus.exportable) throw new Error(`${format} export: ${records} records, expected ${corpus.exportable}`);
      const seconds = r.ms / 1000;
      const out: ExploreRun = {
        run,
        seconds: round(seconds, 2),
        ttfb_ms: r.ttfb_ms,
        records,
        records_per_second: round(records / seconds),
        bytes: r.bytes,
        mb_per_second: round(r.bytes / MB / seconds, 1),
        resources,
        ...(gc ? { gc } : {}),
        loadavg: load,
      };
      log(`${backend} ${format} #${run}: ${out.records_per_second} records/s, ${out.seconds} s, ${round(r.bytes / MB)} MB, RSS ${resources.rss_before_mb} -> peak ${resources.rss_peak_mb} MB (+${resources.rss_growth_mb}), CPU ${JSON.stringify(resources.cpu_percent_of_one_core)}${gc ? `, GC ${JSON.stringify(gc)}` : ""}`);
      return out;
    };

    const stix = async (run: number): Promise<StixRun> => {
      const meter = new PhaseMeter(pid, pool, osPid, idleBaseline);
      const load = loadavg();
      const logFrom = service!.stdout.length;
      await meter.start();
      const t0 = performance.now();
      const created = await api.post("/exports/", { token, json: { name: `bench stix ${run}`, query: "", index_target: "attributes", format: "stix" } });
      if (created.status !== 201) throw new Error(`POST /exports/: ${created.status} ${created.text}`);
      const id = created.body.id as number;
      let e = created.body;
      while (e.status !== "completed") {
        if (e.status === "failed") throw new Error(`export ${id} failed: ${e.error}`);
        await sleep(POLL_MS);
        const res = await api.get(`/exports/${id}`, { token });
        if (res.status !== 200) throw new Error(`GET /exports/${id}: ${res.status} ${res.text}`);
        e = res.body;
      }
      const seconds = (performance.now() - t0) / 1000;
      const resources = await meter.stop();
      const gc = gcSummary(service!.stdout.slice(logFrom));
      const recordCount = Number(e.record_count);
      if (recordCount !== corpus.exportable) throw new Error(`stix export: record_count ${recordCount}, expected ${corpus.exportable}`);
      const ms = (a: unknown, b: unknown) => (typeof a === "string" && typeof b === "string" ? round((Date.parse(b) - Date.parse(a)) / 1000, 2) : null);

      const dMeter = new PhaseMeter(pid, pool, osPid, idleBaseline);
      await dMeter.start();
      const d = await streamGet(`${service!.url}/exports/${id}/download`, token);
      const dResources = await dMeter.stop();
      if (d.status !== 200 || d.bytes !== Number(e.file_size)) throw new Error(`download: ${d.status}, ${d.bytes} bytes of ${e.file_size}`);
      const out: StixRun = {
        run,
        seconds: round(seconds, 2),
        service_seconds: ms(e.started_at, e.finished_at),
        queue_wait_seconds: ms(e.created_at, e.started_at),
        record_count: recordCount,
        records_per_second: round(recordCount / seconds),
        file_size: Number(e.file_size),
        resources,
        download: { seconds: round(d.ms / 1000, 2), bytes: d.bytes, mb_per_second: round(d.bytes / MB / (d.ms / 1000), 1), resources: dResources },
        ...(gc ? { gc } : {}),
        loadavg: load,
      };
      log(
        `${backend} stix #${run}: ${out.records_per_second} records/s, ${out.seconds} s (service ${out.service_seconds} s), ${round(out.file_size / MB)} MB, RSS ${resources.rss_before_mb} -> peak ${resources.rss_peak_mb} MB (+${resources.rss_growth_mb}), CPU ${JSON.stringify(resources.cpu_percent_of_one_core)}; download ${out.download.mb_per_second} MB/s${gc ? `; GC ${JSON.stringify(gc)}` : ""}`,
      );
      if (run === 1) {
        const file = path.join(dataDir, "storage", ...String(e.storage_key).split("/"));
        const c = await checkStixFile(file);
        const ok = c.envelope_ok && c.primary_objects === recordCount && (c.by_type.report ?? 0) === corpus.eventsWithAttributes;
        log(`${backend} stix bundle: ${JSON.stringify(c)}${ok ? "" : " MISMATCH"}`);
        if (!ok) throw new Error(`the STIX bundle does not hold what it should (primary objects ${c.primary_objects} of ${recordCount}, reports ${c.by_type.report} of ${corpus.eventsWithAttributes})`);
        out.check = c;
      }
      const del = await api.delete(`/exports/${id}`, { token });
      if (del.status !== 204 && del.status !== 200) throw new Error(`DELETE /exports/${id}: ${del.status} ${del.text}`);
      return out;
    };

    const runs: { ndjson: ExploreRun[]; json: ExploreRun[]; stix: StixRun[] } = { ndjson: [], json: [], stix: [] };
    for (let run = 1; run <= opts.runs; run++) {
      if (opts.phases.includes("ndjson")) runs.ndjson.push(await explore("ndjson", run));
      if (opts.phases.includes("json")) runs.json.push(await explore("json", run));
      if (opts.phases.includes("stix")) runs.stix.push(await stix(run));
    }
    const rssEnd = memoryOf(pid)!.rss;
    const hwmLifetime = memoryOf(pid)!.hwm;
    await service.stop(60_000);
    let inProcess: Breakdown | null = null;
    if (opts.phases.includes("breakdown")) {
      const index = backend === "opensearch" ? new OpenSearchSearchIndex([opensearchUrl], { prefix }) : new PostgresSearchIndex(pool);
      try {
        inProcess = await breakdown(index);
      } finally {
        if (backend === "opensearch") await index.close();
      }
      log(`${backend} breakdown (in process, no HTTP): ${JSON.stringify(inProcess)}`);
    }
    const profile = opts.cpuProf ? summarizeProfiles(profDir) : undefined;
    return {
      backend,
      service_pid: pid,
      check,
      rss: { after_start_mb: round(rssAfterStart / MB, 1), idle_baseline_mb: round(idleBaseline / MB, 1), at_end_mb: round(rssEnd / MB, 1), vmhwm_at_end_mb: round(hwmLifetime / MB, 1) },
      summary: {
        ndjson: summarizeExplore(runs.ndjson),
        json: summarizeExplore(runs.json),
        stix: runs.stix.length
          ? {
              seconds: round(median(runs.stix.map((r) => r.seconds)), 2),
              records_per_second: round(median(runs.stix.map((r) => r.records_per_second))),
              file_mb: round(median(runs.stix.map((r) => r.file_size)) / MB, 1),
              rss_growth_mb: round(median(runs.stix.map((r) => r.resources.rss_growth_mb)), 1),
              rss_growth_vs_idle_mb: round(median(runs.stix.map((r) => r.resources.rss_growth_vs_idle_mb)), 1),
              max_rss_growth_vs_idle_mb: Math.max(...runs.stix.map((r) => r.resources.rss_growth_vs_idle_mb)),
              service_cpu_percent: round(median(runs.stix.map((r) => r.resources.cpu_percent_of_one_core.service)), 1),
              download_mb_per_second: round(median(runs.stix.map((r) => r.download.mb_per_second)), 1),
              download_rss_growth_mb: round(median(runs.stix.map((r) => r.download.resources.rss_growth_mb)), 1),
            }
          : null,
      },
      runs,
      breakdown: inProcess,
      goals: {
        ndjson_records_per_second: runs.ndjson.length ? median(runs.ndjson.map((r) => r.records_per_second)) >= GOAL_RECORDS_PER_SECOND : null,
        rss_growth_vs_idle_under_mb: [...runs.ndjson, ...runs.json, ...runs.stix].length
          ? Math.max(...[...runs.ndjson, ...runs.json, ...runs.stix].map((r) => r.resources.rss_growth_vs_idle_mb)) < GOAL_RSS_GROWTH_MB
          : null,
      },
      ...(profile ? { cpu_profile: profile } : {}),
    };
  } finally {
    if (service && !service.exit) await service.stop(60_000).catch(() => service?.kill());
    if (service && opts.serviceLog) fs.writeFileSync(opts.serviceLog.replace(/(\.\w+)?$/, `-${backend}$1`), service.output());
    if (opts.cpuProf && fs.existsSync(profDir)) {
      const keep = path.join(os.tmpdir(), `bench-exports-cpu-prof-${backend}-${process.pid}`);
      fs.cpSync(profDir, keep, { recursive: true });
      log(`${backend}: CPU profile(s) copied to ${keep}`);
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

function summarizeExplore(runs: ExploreRun[]) {
  if (!runs.length) return null;
  return {
    seconds: round(median(runs.map((r) => r.seconds)), 2),
    records_per_second: round(median(runs.map((r) => r.records_per_second))),
    mb: round(median(runs.map((r) => r.bytes)) / MB, 1),
    mb_per_second: round(median(runs.map((r) => r.mb_per_second)), 1),
    ttfb_ms: round(median(runs.map((r) => r.ttfb_ms)), 1),
    rss_growth_mb: round(median(runs.map((r) => r.resources.rss_growth_mb)), 1),
    rss_growth_vs_idle_mb: round(median(runs.map((r) => r.resources.rss_growth_vs_idle_mb)), 1),
    max_rss_growth_vs_idle_mb: Math.max(...runs.map((r) => r.resources.rss_growth_vs_idle_mb)),
    service_cpu_percent: round(median(runs.map((r) => r.resources.cpu_percent_of_one_core.service)), 1),
    postgres_cpu_percent: round(median(runs.map((r) => r.resources.cpu_percent_of_one_core.postgres_backends)), 1),
  };
}

// ---------------------------------------------------------------- CPU profiles

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

/** Self time by function over the service's whole life (start-up included), the top 25. */
function summarizeProfiles(dir: string) {
  if (!fs.existsSync(dir)) return null;
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith(".cpuprofile"))
    .map((f) => {
      const p = JSON.parse(fs.readFileSync(path.join(dir, f), "utf8")) as { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };
      const byId = new Map(p.nodes.map((n) => [n.id, n]));
      const self = new Map<string, number>();
      let total = 0;
      for (let i = 0; i < p.samples.length; i++) {
        const n = byId.get(p.samples[i]!)!;
        const dt = p.timeDeltas[i] ?? 0;
        total += dt;
        const url = n.callFrame.url.replace(/^file:\/\//, "").replace(process.cwd() + "/", "");
        const key = `${n.callFrame.functionName || "(anonymous)"} ${url}:${n.callFrame.lineNumber + 1}`;
        self.set(key, (self.get(key) ?? 0) + dt);
      }
      const top = [...self].sort((a, b) => b[1] - a[1]).slice(0, 25).map(([fn, us]) => ({ fn, self_ms: round(us / 1000), percent: round((100 * us) / total, 1) }));
      return { file: f, total_ms: round(total / 1000), top };
    });
}

// ---------------------------------------------------------------- main

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const opensearchUrl = (process.env.OPENSEARCH_URL ?? "http://127.0.0.1:9200").split(",")[0]!.trim();
  const started = new Date().toISOString();
  const loadStart = loadavg();
  const commit = (() => {
    try {
      return execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim();
    } catch {
      return null;
    }
  })();
  await setupTemplate();
  const db = opts.reuse ? { name: opts.reuse.db, url: databaseUrl(opts.reuse.db), drop: async () => undefined } : await createTestDatabase("bench_exports");
  const prefix = opts.reuse?.prefix ?? `bench-exports-${process.pid}-${crypto.randomBytes(3).toString("hex")}-`;
  const pool = new pg.Pool({ connectionString: db.url, max: 4 });
  pool.on("error", () => undefined);
  let osIndex: OpenSearchSearchIndex | null = null;
  let cleaned = false;
  const cleanup = async () => {
    if (cleaned) return;
    cleaned = true;
    await osIndex?.close().catch(() => undefined);
    await pool.end().catch(() => undefined);
    if (opts.keep) {
      log(`--keep: database ${db.name} and OpenSearch indices ${prefix}* are left; rerun with --reuse ${db.name} ${prefix}`);
      return;
    }
    await fetch(`${opensearchUrl}/${prefix}*`, { method: "DELETE" }).catch((err) => log(`delete indices: ${err}`));
    await fetch(`${opensearchUrl}/_index_template/${prefix}*`, { method: "DELETE" }).catch(() => undefined);
    await db.drop().catch((err) => log(`drop database: ${err}`));
    log(`removed database ${db.name} and indices ${prefix}*`);
  };
  for (const sig of ["SIGINT", "SIGTERM"] as const) {
    process.once(sig, () => {
      log(`${sig}: cleaning up`);
      void cleanup().finally(() => process.exit(130));
    });
  }
  try {
    log(`database ${db.name}, OpenSearch ${opensearchUrl} prefix ${prefix}; ${opts.attributes} attributes; backends ${opts.backends.join(", ")}`);
    const corpus = corpusFigures(opts.attributes, opts.seed);
    log(`corpus: ${JSON.stringify(corpus)}`);
    const indexing: Record<string, unknown> = {};
    if (opts.backends.includes("postgres")) {
      const index = new PostgresSearchIndex(pool);
      await index.ensureIndices();
      if (!opts.reuse) {
        log("indexing into the PostgreSQL backend");
        indexing.postgres = await fillIndex(index, opts.attributes, opts.seed);
        const t0 = performance.now();
        await pool.query("VACUUM (ANALYZE) search_documents, search_postings, search_terms");
        indexing.postgres = { ...(indexing.postgres as object), vacuum_analyze_seconds: round((performance.now() - t0) / 1000, 1) };
        log(`postgres indexed: ${JSON.stringify(indexing.postgres)}`);
      }
    }
    if (opts.backends.includes("opensearch")) {
      osIndex = new OpenSearchSearchIndex([opensearchUrl], { prefix });
      await osIndex.ensureIndices();
      if (!opts.reuse) {
        log("indexing into OpenSearch");
        indexing.opensearch = await fillIndex(osIndex, opts.attributes, opts.seed);
        log(`opensearch indexed: ${JSON.stringify(indexing.opensearch)}`);
      }
      const count = (await osIndex.client.count({ index: osIndex.indexName("svc-attributes") })).body.count as number;
      if (count !== corpus.attributes) throw new Error(`OpenSearch holds ${count} attributes, expected ${corpus.attributes}`);
    }
    const results = [];
    for (const backend of opts.backends) results.push(await benchBackend(backend, opts, db, prefix, opensearchUrl, corpus, pool));
    const out = {
      date: started,
      commit,
      command: `npx tsx bench/exports.ts ${process.argv.slice(2).join(" ")}`.trim(),
      machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, node: process.version, loadavg_start: loadStart, loadavg_end: loadavg() },
      corpus,
      goal: { ndjson_records_per_second: GOAL_RECORDS_PER_SECOND, rss_growth_mb: GOAL_RSS_GROWTH_MB },
      indexing,
      backends: results,
    };
    process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
    process.stderr.write(`\n${table(results)}\n`);
  } finally {
    await cleanup();
  }
}

function table(results: Awaited<ReturnType<typeof benchBackend>>[]): string {
  const rows = [["backend", "phase", "records/s", "seconds", "MB", "RSS growth MB (vs idle)", "service CPU %"]];
  for (const r of results) {
    for (const phase of ["ndjson", "json"] as const) {
      const s = r.summary[phase];
      if (s) rows.push([r.backend, phase, String(s.records_per_second), String(s.seconds), String(s.mb), `${s.rss_growth_mb} (${s.rss_growth_vs_idle_mb})`, String(s.service_cpu_percent)]);
    }
    const s = r.summary.stix;
    if (s) {
      rows.push([r.backend, "stix", String(s.records_per_second), String(s.seconds), String(s.file_mb), `${s.rss_growth_mb} (${s.rss_growth_vs_idle_mb})`, String(s.service_cpu_percent)]);
      rows.push([r.backend, "stix download", `${s.download_mb_per_second} MB/s`, "", "", String(s.download_rss_growth_mb), ""]);
    }
    const b = r.breakdown;
    if (b) rows.push([r.backend, "in process, no HTTP", String(b.records_per_second), String(b.seconds), `read ${b.page_read_ms_per_page} + encode ${b.encode_ms_per_page} ms/page`, "", ""]);
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  return rows.map((row) => row.map((cell, i) => (i < 2 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join("  ")).join("\n");
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
