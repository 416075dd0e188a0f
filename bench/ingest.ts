/**
 * Ingest benchmark: MISP events through `POST /events/import?on_invalid=skip`.
 *
 * 1. Feed sample: 3 runs, each on a fresh database and a fresh service (`node --import tsx src/main.ts` as a child
 *    process), importing every event of ../shared/data/misp-feed-sample one request after the other.
 *    Figure: total attributes / wall time of all requests. Peak RSS: VmHWM of the service's node
 *    process (/proc/<pid>/status), read after the feed and again after the synthetic events.
 * 2. Write path through the API, in the same runs: one synthetic event of 43 000 attributes (the size
 *    of the MISP figure of ~340 attributes/s) and one of 100 000, each in one request.
 * 3. Write path in process, without HTTP: for the same synthetic events, the time of JSON.parse, of
 *    parseMispEvent (validation and normalisation) and of writeEventDraft (the SQL, one transaction),
 *    3 times each on a fresh database, so that "the write path alone" is measured without the rest.
 *
 *   npx tsx bench/ingest.ts          # everything, a few minutes
 *   npx tsx bench/ingest.ts inprocess   # part 3 only
 *
 * Needs the test PostgreSQL (TEST_DATABASE_URL, default postgresql://postgres@127.0.0.1:5432/postgres).
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import pg from "pg";
import setupTemplate from "../test/support/global-setup.ts";
import { createTestDatabase } from "../test/support/databases.ts";
import { freePort, killAllServices, startService, type ServiceProcess } from "../test/support/process.ts";
import { SHARED_DATA } from "../test/support/shared-data.ts";
import { systemPrincipal } from "../src/auth/principal.ts";
import { parseMispEvent } from "../src/modules/events/misp-parse.ts";
import { writeEventDraft } from "../src/modules/events/event-writer.ts";
import { NO_SHARING_GROUPS } from "./no-sharing-groups.ts";
import { WarninglistBuilder } from "../src/modules/warninglists/index.ts";
import { withTransaction } from "../src/platform/db/transaction.ts";
import { median, round } from "./lib.ts";

/** The write path without warninglists (bench/warninglists.ts compares with them). */
const NO_LISTS = new WarninglistBuilder().build();

const RUNS = 3;
const FEED_DIR = path.join(SHARED_DATA, "misp-feed-sample");
const ADMIN = { email: "bench@example.test", password: "bench-password-1" };

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

// ---------------------------------------------------------------- synthetic events

/** Real-looking, distinct indicator values of the common types; the last 10% in file objects. */
export function syntheticEvent(n: number): Json {
  const words = ["update", "cdn", "login", "secure", "mail", "files", "api", "portal", "cloud", "static", "auth", "docs"];
  const tlds = ["com", "net", "org", "info", "io", "ru", "xyz", "top"];
  const rnd = crypto.randomBytes(n * 4);
  const salt = crypto.randomBytes(4).toString("hex");
  const hex = (len: number, i: number) => crypto.createHash("sha512").update(`${salt}${i}`).digest("hex").repeat(2).slice(0, len);
  const ts = String(Math.floor(Date.now() / 1000) - 3600);
  const attribute = (i: number): Json => {
    const b = rnd.readUInt32BE((i % n) * 4);
    const word = `${words[b % words.length]}${i}`;
    const tld = tlds[(b >>> 8) % tlds.length];
    const base = { uuid: crypto.randomUUID(), timestamp: ts, to_ids: i % 3 !== 0, comment: i % 50 === 0 ? `batch ${i}` : "", ...(i % 1000 === 0 ? { Tag: [{ name: "tlp:green" }] } : {}) };
    switch (i % 8) {
      case 0: return { ...base, type: "ip-dst", category: "Network activity", value: `${11 + (b % 200)}.${(b >>> 8) & 255}.${(b >>> 16) & 255}.${i % 250}` };
      case 1: return { ...base, type: "domain", category: "Network activity", value: `${word}.example-${(b >>> 4) % 997}.${tld}` };
      case 2: return { ...base, type: "url", category: "Network activity", value: `https://${word}.${tld}/${hex(12, i)}/index.php?id=${b}` };
      case 3: return { ...base, type: "md5", category: "Payload delivery", value: hex(32, i).toUpperCase() };
      case 4: return { ...base, type: "sha256", category: "Payload delivery", value: hex(64, i) };
      case 5: return { ...base, type: "email-src", category: "Payload delivery", value: `${word}@mail-${(b >>> 3) % 991}.${tld}` };
      case 6: return { ...base, type: "filename", category: "Payload delivery", value: `${word}_${hex(6, i)}.exe` };
      default: return { ...base, type: "hostname", category: "Network activity", value: `srv-${i}.${word}.${tld}` };
    }
  };
  const inObjects = Math.floor(n / 10 / 5) * 5;
  const standalone = Array.from({ length: n - inObjects }, (_, i) => attribute(i));
  const objects: Json[] = [];
  for (let i = n - inObjects, k = 0; i < n; i += 5, k++) {
    const rel = (type: string, relation: string, value: string, category = "Payload delivery") => ({ uuid: crypto.randomUUID(), type, category, object_relation: relation, value, timestamp: ts });
    objects.push({
      uuid: crypto.randomUUID(),
      name: "file",
      "meta-category": "file",
      timestamp: ts,
      Attribute: [
        rel("filename", "filename", `dropper_${salt}_${k}.dll`),
        rel("md5", "md5", hex(32, i + 1e7)),
        rel("sha1", "sha1", hex(40, i + 2e7)),
        rel("sha256", "sha256", hex(64, i + 3e7)),
        rel("size-in-bytes", "size-in-bytes", String(1000 + k), "Other"),
      ],
    });
  }
  return {
    Event: { uuid: crypto.randomUUID(), info: `synthetic ${n} attributes`, date: "2024-06-01", timestamp: ts, threat_level_id: "3", analysis: "2", Tag: [{ name: "tlp:green" }], Attribute: standalone, Object: objects },
  };
}

const attributeCount = (doc: Json) => {
  const e = doc.Event ?? doc;
  return (e.Attribute ?? []).length + (e.Object ?? []).reduce((n: number, o: Json) => n + (o.Attribute ?? []).length, 0);
};

// ---------------------------------------------------------------- service runs

/** The node process that runs src/main.ts: tsx starts it as its child. */
function serviceProcessPid(service: ServiceProcess): number {
  const children = (pid: number): number[] => {
    try {
      return fs
        .readdirSync(`/proc/${pid}/task`)
        .flatMap((t) => fs.readFileSync(`/proc/${pid}/task/${t}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number));
    } catch {
      return [];
    }
  };
  const all: number[] = [];
  const queue = [service.pid];
  while (queue.length) {
    const p = queue.shift()!;
    all.push(p);
    queue.push(...children(p));
  }
  const node = all.find((p) => p !== service.pid && fs.readFileSync(`/proc/${p}/cmdline`, "utf8").includes("src/main.ts"));
  return node ?? service.pid;
}

function vmHwmMiB(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? round(Number(m[1]) / 1024, 1) : NaN;
}

async function importDoc(url: string, token: string, body: string): Promise<{ ms: number; json: Json }> {
  const started = process.hrtime.bigint();
  const res = await fetch(`${url}/events/import?on_invalid=skip`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body });
  const json = (await res.json()) as Json;
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (res.status !== 201 && res.status !== 200) throw new Error(`import: ${res.status} ${JSON.stringify(json).slice(0, 500)}`);
  return { ms, json };
}

interface RunResult {
  feed: { events: number; attributes: number; stored: number; skipped: number; seconds: number; attributes_per_second: number };
  api_43k: { seconds: number; attributes_per_second: number };
  api_100k: { seconds: number; attributes_per_second: number };
  peak_rss_mib_after_feed: number;
  peak_rss_mib_after_all: number;
}

async function serviceRun(i: number, feed: { file: string; body: string; attributes: number }[]): Promise<RunResult> {
  const db = await createTestDatabase(`bench_ingest_${i}`);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "wb-bench-ingest-"));
  const port = await freePort();
  const service = startService(
    { PORT: String(port), DATABASE_URL: db.url, DATA_DIR: dataDir, LOG_LEVEL: "warn", JWT_SECRET: "bench-secret-bench-secret-bench-secret-0", ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password },
    { name: `api-${i}` },
  );
  try {
    await service.waitForHealthy(120_000);
    const pid = serviceProcessPid(service);
    const login = await fetch(`${service.url}/auth/token`, { method: "POST", body: new URLSearchParams({ username: ADMIN.email, password: ADMIN.password }) });
    const { access_token: token } = (await login.json()) as { access_token: string };
    await importDoc(service.url, token, JSON.stringify(syntheticEvent(200))); // warm-up, not counted

    let stored = 0;
    let skipped = 0;
    const started = process.hrtime.bigint();
    for (const f of feed) {
      const { json } = await importDoc(service.url, token, f.body);
      stored += json.import.attributes.created + json.import.attributes.updated + json.import.attributes.unchanged;
      skipped += json.import.skipped.length;
    }
    const feedSeconds = Number(process.hrtime.bigint() - started) / 1e9;
    const total = feed.reduce((n, f) => n + f.attributes, 0);
    const rssFeed = vmHwmMiB(pid);

    const timed = async (n: number) => {
      const body = JSON.stringify(syntheticEvent(n));
      const { ms, json } = await importDoc(service.url, token, body);
      if (json.import.attributes.created !== n) throw new Error(`synthetic ${n}: ${JSON.stringify(json.import.attributes)}`);
      return { seconds: round(ms / 1000, 2), attributes_per_second: Math.round(n / (ms / 1000)) };
    };
    const api43 = await timed(43_000);
    const api100 = await timed(100_000);
    const result: RunResult = {
      feed: { events: feed.length, attributes: total, stored, skipped, seconds: round(feedSeconds, 2), attributes_per_second: Math.round(total / feedSeconds) },
      api_43k: api43,
      api_100k: api100,
      peak_rss_mib_after_feed: rssFeed,
      peak_rss_mib_after_all: vmHwmMiB(pid),
    };
    await service.stop(30_000);
    return result;
  } finally {
    service.kill();
    await db.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------- in process

interface Phases {
  json_parse_ms: number;
  validate_ms: number;
  write_ms: number;
  write_attributes_per_second: number;
  total_attributes_per_second: number;
}

async function inProcess(sizes: number[]): Promise<Record<string, { runs: Phases[]; median: Phases }>> {
  const db = await createTestDatabase("bench_ingest_inproc");
  const pool = new pg.Pool({ connectionString: db.url, max: 2 });
  try {
    const org = await pool.query<{ id: number }>("INSERT INTO organisations (uuid, name, local) VALUES ($1, 'bench', true) RETURNING id", [crypto.randomUUID()]);
    const actor = { ...systemPrincipal(), orgId: org.rows[0].id };
    const once = async (n: number): Promise<Phases> => {
      const text = JSON.stringify(syntheticEvent(n));
      const t0 = performance.now();
      const body = JSON.parse(text);
      const t1 = performance.now();
      const { draft } = parseMispEvent(body);
      const t2 = performance.now();
      await withTransaction(pool, (client) => writeEventDraft(client, actor, draft, { ownerOrgId: actor.orgId, assertCanUpdate: () => undefined, matcher: NO_LISTS, sharingGroups: NO_SHARING_GROUPS }));
      const t3 = performance.now();
      return {
        json_parse_ms: Math.round(t1 - t0),
        validate_ms: Math.round(t2 - t1),
        write_ms: Math.round(t3 - t2),
        write_attributes_per_second: Math.round(n / ((t3 - t2) / 1000)),
        total_attributes_per_second: Math.round(n / ((t3 - t0) / 1000)),
      };
    };
    await once(200); // warm-up
    const out: Record<string, { runs: Phases[]; median: Phases }> = {};
    for (const n of sizes) {
      const runs: Phases[] = [];
      for (let i = 0; i < RUNS; i++) runs.push(await once(n));
      const med = Object.fromEntries(Object.keys(runs[0]).map((k) => [k, median(runs.map((r) => r[k as keyof Phases]))])) as unknown as Phases;
      out[`${n}`] = { runs, median: med };
    }
    return out;
  } finally {
    await pool.end();
    await db.drop();
  }
}

// ---------------------------------------------------------------- main

async function main() {
  const only = process.argv[2];
  await setupTemplate();
  const feed = fs
    .readdirSync(FEED_DIR)
    .filter((f) => f.endsWith(".json") && f !== "manifest.json")
    .sort()
    .map((file) => {
      const body = fs.readFileSync(path.join(FEED_DIR, file), "utf8");
      return { file, body, attributes: attributeCount(JSON.parse(body)) };
    });

  const runs: RunResult[] = [];
  if (only !== "inprocess") for (let i = 0; i < RUNS; i++) runs.push(await serviceRun(i, feed));
  const inproc = await inProcess([43_000, 100_000]);

  const med = (f: (r: RunResult) => number) => (runs.length ? median(runs.map(f)) : null);
  process.stdout.write(
    `${JSON.stringify(
      {
        date: new Date().toISOString(),
        machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, node: process.version, loadavg: os.loadavg().map((l) => round(l, 1)) },
        command: "npx tsx bench/ingest.ts (service: node --import tsx src/main.ts, ROLE=all, LOG_LEVEL=warn, fresh database per run)",
        feed_sample: {
          events: feed.length,
          attributes: feed.reduce((n, f) => n + f.attributes, 0),
          attributes_per_second: runs.map((r) => r.feed.attributes_per_second),
          median_attributes_per_second: med((r) => r.feed.attributes_per_second),
          seconds: runs.map((r) => r.feed.seconds),
          skipped_invalid: runs.map((r) => r.feed.skipped),
        },
        api_write_path: {
          "43000": { attributes_per_second: runs.map((r) => r.api_43k.attributes_per_second), median: med((r) => r.api_43k.attributes_per_second), seconds: runs.map((r) => r.api_43k.seconds) },
          "100000": { attributes_per_second: runs.map((r) => r.api_100k.attributes_per_second), median: med((r) => r.api_100k.attributes_per_second), seconds: runs.map((r) => r.api_100k.seconds) },
        },
        peak_rss_mib: {
          after_feed: runs.map((r) => r.peak_rss_mib_after_feed),
          median_after_feed: med((r) => r.peak_rss_mib_after_feed),
          after_synthetic_100k: runs.map((r) => r.peak_rss_mib_after_all),
          median_after_synthetic_100k: med((r) => r.peak_rss_mib_after_all),
        },
        in_process_write_path: inproc,
      },
      null,
      2,
    )}\n`,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  main().catch((err) => {
    console.error(err);
    killAllServices();
    process.exit(1);
  });
}
