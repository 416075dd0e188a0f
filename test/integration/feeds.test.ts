/**
 * Feeds end to end (ROLE=all): uploads streamed to local storage, the real Infoblox MISP feed sample
 * as a zip and as a tar.gz (built here), a CSV and a freetext file built from its values, ingestion
 * through the normal write path (indexed and searchable), fetches that do not re-ingest, and the
 * hostile uploads and contents of the issue.
 */
import { execFile } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { tarGz, zip } from "../support/archives.ts";
import { createUser, loginAdmin, type TestUser } from "../support/fixtures.ts";
import { eventually } from "../support/process.ts";
import { settled } from "../support/settled.ts";
import { sharedPath } from "../support/shared-data.ts";
import { storedFiles } from "../support/storage.ts";

const SAMPLE = ["0dbb179a-1c8c-4e7c-a264-2440414dbac8", "24e799ca-aad8-4244-8005-90b3ceb44540", "dad88707-beb8-4a14-94e2-5ffecf5a5f85", "aacc7574"];

let app: TestApp;
let admin: TestUser;
let reader: TestUser; // role 3: feeds:read only

const q = (sql: string, params: unknown[] = []) => app.booted.ctx.db.pool.query(sql, params);

function sampleFiles(): { uuid: string; json: string; event: Record<string, any> }[] {
  const dir = sharedPath("misp-feed-sample");
  return SAMPLE.map((prefix) => {
    const name = fs.readdirSync(dir).find((f) => f.startsWith(prefix))!;
    const json = fs.readFileSync(path.join(dir, name), "utf8");
    const event = JSON.parse(json).Event;
    return { uuid: event.uuid, json, event };
  });
}

function manifestOf(files: ReturnType<typeof sampleFiles>): string {
  return JSON.stringify(
    Object.fromEntries(files.map((f) => [f.uuid, { info: f.event.info, Orgc: f.event.Orgc, Tag: f.event.Tag, date: f.event.date, analysis: f.event.analysis, threat_level_id: f.event.threat_level_id, timestamp: Number(f.event.timestamp) }])),
  );
}

async function upload(filename: string, content: Buffer | string, format?: string, token = admin.token): Promise<{ status: number; body: any }> {
  const form = new FormData();
  if (format !== undefined) form.append("source_format", format);
  form.append("file", new Blob([typeof content === "string" ? content : new Uint8Array(content)]), filename);
  const res = await fetch(`${app.url}/feeds/upload`, { method: "POST", headers: { authorization: `Bearer ${token}` }, body: form });
  return { status: res.status, body: await res.json() };
}

async function createFeed(body: Record<string, unknown>): Promise<Record<string, any>> {
  const res = await app.http.post("/feeds/", { token: admin.token, json: { provider: "test", input_source: "local", ...body } });
  if (res.status !== 201) throw new Error(`${res.status} ${res.text}`);
  return res.body;
}

async function finished(runId: string): Promise<Record<string, any>> {
  return eventually(async () => {
    const r = await app.http.get(`/tasks/${runId}`, { token: admin.token });
    return ["succeeded", "failed"].includes(r.body.status) ? r.body : undefined;
  }, `run ${runId}`, 60_000, 100);
}

async function searchHits(query: string): Promise<number> {
  const res = await app.http.get(`/attributes/search?query=${encodeURIComponent(query)}&size=1`, { token: admin.token });
  if (res.status !== 200) throw new Error(res.text);
  return res.body.total;
}

const storageFiles = () => storedFiles(app.dataDir);

beforeAll(async () => {
  app = await startTestApp("feeds", { ROLE: "all" });
  admin = await loginAdmin(app);
  reader = await createUser(app, admin, 3);
}, 60_000);
afterAll(async () => {
  await app?.close();
});

describe("MISP feed archives", () => {
  it("a zip of the real feed sample is stored member by member, ingested once on creation, searchable, and not re-ingested by a fetch", async () => {
    const files = sampleFiles();
    const archive = zip([
      { name: "manifest.json", data: manifestOf(files), deflate: true },
      ...files.map((f) => ({ name: `${f.uuid}.json`, data: f.json, deflate: true })),
      { name: "hashes.csv", data: "abc,def\n" },
      { name: "README.txt", data: "ignored" },
      { name: "nested.zip", data: zip([{ name: "x.json", data: "{}" }]) },
    ]);
    const up = await upload("infoblox.zip", archive, "sharing");
    expect(up.status, JSON.stringify(up.body)).toBe(200);
    expect(up.body).toMatchObject({ filename: "infoblox.zip", size: archive.length, source_format: "sharing", members: { events: files.length, hashes: true, unsafe_entries: [] } });
    expect(up.body.key).toMatch(/^feed-uploads\/[0-9a-f-]{36}$/);
    expect(storageFiles().filter((f) => f.startsWith(up.body.key)).sort()).toEqual(
      [`${up.body.key}/hashes.csv`, `${up.body.key}/manifest.json`, ...files.map((f) => `${up.body.key}/${f.uuid}.json`)].sort(),
    );

    const feed = await createFeed({ name: "Infoblox sample", url: up.body.key, source_format: "sharing", tags: ["feed:infoblox-sample"] });
    expect(feed).toMatchObject({ source_format: "sharing", settings: { localFile: { filename: "infoblox.zip", size: archive.length } } });
    expect(feed.ingestion).toMatchObject({ task: "fetch_feed", status: "queued", trigger: "manual" });
    const run = await finished(feed.ingestion.id);
    expect(run.status, run.last_error).toBe("succeeded");
    expect(run.result).toMatchObject({ feed_id: feed.id, events_created: files.length, rows: files.length });
    const expectedAttributes = files.reduce((n, f) => n + (f.event.Attribute ?? []).length, 0);
    expect(run.result.attributes_created + run.result.rejected).toBe(expectedAttributes);
    // Nothing recurring was scheduled.
    expect((await q("SELECT count(*)::int AS n FROM scheduled_tasks WHERE kwargs->>'feed_id' = $1", [String(feed.id)])).rows[0].n).toBe(0);

    const stored = await q("SELECT uuid::text FROM events WHERE uuid = ANY($1::uuid[]) ORDER BY 1", [files.map((f) => f.uuid)]);
    expect(stored.rows.map((r) => r.uuid)).toEqual(files.map((f) => f.uuid).sort());
    const tagged = await app.http.get(`/events/${files[0].uuid}`, { token: admin.token });
    expect(tagged.body.tags.map((t: { name: string }) => t.name)).toContain("feed:infoblox-sample");
    await settled(app, 60_000);
    const someValue = files[0].event.Attribute[0].value as string;
    expect(await searchHits(`value:"${someValue}"`)).toBeGreaterThan(0);

    const again = await app.http.post(`/feeds/${feed.id}/fetch`, { token: admin.token });
    expect(again.status).toBe(200);
    expect(again.body.task).toMatchObject({ name: "fetch_feed", status: "queued" });
    const second = await finished(again.body.task.id);
    expect(second.result).toMatchObject({ events_created: 0, events_updated: 0, events_unchanged: files.length, attributes_created: 0 });
  });

  it("a tar.gz of the same sample is accepted the same way", async () => {
    const files = sampleFiles().slice(0, 2);
    const archive = tarGz([{ name: "manifest.json", data: manifestOf(files) }, ...files.map((f) => ({ name: `./${f.uuid}.json`, data: f.json }))]);
    const up = await upload("infoblox.tar.gz", archive, "sharing");
    expect(up.status, JSON.stringify(up.body)).toBe(200);
    expect(up.body.members).toMatchObject({ events: 2, hashes: false });
  });

  const hostile: [string, string, Buffer, number, RegExp][] = [
    ["a zip symlink", "a.zip", zip([{ name: "manifest.json", data: "{}" }, { name: "link.json", data: "/etc/passwd", mode: 0o120777 }]), 400, /Links are not allowed/],
    ["a tar symlink", "a.tar.gz", tarGz([{ name: "manifest.json", data: "{}" }, { name: "link.json", type: "2", linkname: "/etc/passwd" }]), 400, /Links are not allowed/],
    ["a tar hard link", "a.tar.gz", tarGz([{ name: "manifest.json", data: "{}" }, { name: "hard.json", type: "1", linkname: "manifest.json" }]), 400, /Links are not allowed/],
    ["a zip whose size headers lie", "a.zip", zip([{ name: "manifest.json", data: "x".repeat(5000), declaredSize: 10 }]), 400, /Invalid zip archive/],
    ["a deflated zip whose size headers lie", "a.zip", zip([{ name: "manifest.json", data: "{}".repeat(50_000), declaredSize: 100, deflate: true }]), 400, /Invalid zip archive/],
    ["no manifest at the root", "a.zip", zip([{ name: "feed/manifest.json", data: "{}" }]), 400, /manifest\.json/],
    ["a corrupt zip", "a.zip", Buffer.from("PK\u0003\u0004 this is not a zip at all"), 400, /Invalid zip archive/],
    ["a corrupt tar.gz", "a.tar.gz", Buffer.concat([Buffer.from([0x1f, 0x8b, 8, 0]), crypto.randomBytes(2000)]), 400, /Invalid tar archive/],
    ["an empty archive file", "a.zip", Buffer.alloc(0), 400, /empty/],
    ["a csv named as an archive", "a.csv", Buffer.from("1.2.3.4\n"), 400, /\.zip/],
  ];
  it.each(hostile)("%s: a clear 4xx, nothing stored", async (_what, name, content, status, message) => {
    const before = storageFiles();
    const res = await upload(name, content, "sharing");
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    expect(res.body.detail).toMatch(message);
    expect(storageFiles()).toEqual(before);
  });

  it("zip slip entries (../, absolute, backslashes, drive letters) are dropped and nothing leaves the storage prefix", async () => {
    const archive = zip([
      { name: "manifest.json", data: "{}" },
      { name: "../../escaped.json", data: "{}" },
      { name: "/tmp/absolute.json", data: "{}" },
      { name: "..\\..\\windows.json", data: "{}" },
      { name: "C:/drive.json", data: "{}" },
      { name: "a/../../up.json", data: "{}" },
    ]);
    const res = await upload("slip.zip", archive, "sharing");
    expect(res.status).toBe(200);
    expect(res.body.members.unsafe_entries).toHaveLength(5);
    expect(storageFiles().filter((f) => f.startsWith(res.body.key))).toEqual([`${res.body.key}/manifest.json`]);
    expect(storageFiles().every((f) => f.startsWith("feed-uploads/"))).toBe(true);
    for (const f of ["escaped.json", "absolute.json", "windows.json", "drive.json", "up.json"]) {
      expect(fs.existsSync(path.join(app.dataDir, f))).toBe(false);
      expect(fs.existsSync(path.join(app.dataDir, "storage", f))).toBe(false);
    }
    expect(fs.existsSync("/tmp/absolute.json")).toBe(false);
  });
});

describe("csv, freetext and json feeds", () => {
  it("a CSV built from the sample's values: ingested into the feed's event, searchable; a replaced file adds only its new values", async () => {
    const values = sampleFiles()[0].event.Attribute.filter((a: { type: string }) => a.type === "domain").map((a: { value: string }) => a.value) as string[];
    expect(values.length).toBeGreaterThan(10);
    const csv = ["# exported indicators", "first_seen,indicator,kind", ...values.slice(0, 10).map((v, i) => `2024-01-0${(i % 9) + 1},${v},domain`)].join("\n");
    const up = await upload("indicators.csv", csv, "csv");
    expect(up.status, JSON.stringify(up.body)).toBe(200);
    const feed = await createFeed({
      name: "csv sample",
      url: up.body.key,
      source_format: "csv",
      fixed_event: true,
      settings: { csvConfig: { delimiter: ",", header: true, attribute: { value_column: 1, type: { strategy: "column", column: 2 } } } },
    });
    const run = await finished(feed.ingestion.id);
    expect(run.status, run.last_error).toBe("succeeded");
    expect(run.result).toMatchObject({ rows: 10, attributes_created: 10, rejected: 0, events_created: 1 });
    const event = await q("SELECT e.uuid::text, e.info, count(a.id)::int AS n FROM events e JOIN attributes a ON a.event_id = e.id WHERE e.info = 'CSV Feed Import: csv sample' GROUP BY e.uuid, e.info");
    expect(event.rows).toEqual([{ uuid: expect.any(String), info: "CSV Feed Import: csv sample", n: 10 }]);
    await settled(app, 60_000);
    expect(await searchHits(`value:"${values[0]}" AND event_uuid:"${event.rows[0].uuid}"`)).toBe(1);

    // A replaced file: five old values and five new ones; only the new ones are written.
    const replaced = ["first_seen,indicator,kind", ...values.slice(5, 15).map((v) => `2024-02-01,${v},domain`)].join("\n");
    const up2 = await upload("indicators-v2.csv", replaced, "csv");
    const patched = await app.http.patch(`/feeds/${feed.id}`, { token: admin.token, json: { url: up2.body.key, settings: { csvConfig: { delimiter: ",", header: true, attribute: { value_column: 1, type: { strategy: "column", column: 2 } } } } } });
    expect(patched.status, patched.text).toBe(200);
    // The server knows the new file's name and size.
    expect(patched.body.settings.localFile).toEqual({ filename: "indicators-v2.csv", size: up2.body.size });
    const fetch = await app.http.post(`/feeds/${feed.id}/fetch`, { token: admin.token });
    const second = await finished(fetch.body.task.id);
    expect(second.result).toMatchObject({ rows: 10, attributes_created: 5, attributes_unchanged: 5 });
    expect((await q("SELECT count(*)::int AS n FROM attributes a JOIN events e ON e.id = a.event_id WHERE e.uuid = $1", [event.rows[0].uuid])).rows[0].n).toBe(15);
  });

  it("freetext: refanged, typed MISP-style, comments skipped, garbage rejected with the line", async () => {
    const text = [
      "# IOCs from a report",
      "hxxp://evil[.]example[.]com/gate.php",
      "198.51.100.7",
      "198.51.100.8:8443",
      "203.0.113.0/24",
      "d41d8cd98f00b204e9800998ecf8427e",
      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
      "www.gugehotel[.]cn",
      "gugehotel[dot]cn",
      "phish[at]gugehotel.cn",
      "CVE-2024-3400",
      "just some words",
      "",
      "not_a_domain.invalidtld",
    ].join("\r\n");
    const up = await upload("report.txt", text, "freetext");
    const feed = await createFeed({ name: "freetext sample", url: up.body.key, source_format: "freetext" });
    const run = await finished(feed.ingestion.id);
    expect(run.status, run.last_error).toBe("succeeded");
    expect(run.result).toMatchObject({ rows: 12, attributes_created: 10, rejected: 2 });
    expect(run.result.rejections.map((r: { where: string }) => r.where)).toEqual(["line 12", "line 14"]);
    const { rows } = await q("SELECT a.type, a.value FROM attributes a JOIN events e ON e.id = a.event_id WHERE e.info = 'FREETEXT Feed Import: freetext sample' ORDER BY 1, 2");
    expect(rows).toEqual(
      [
        { type: "url", value: "http://evil.example.com/gate.php" },
        { type: "ip-dst", value: "198.51.100.7" },
        { type: "ip-dst|port", value: "198.51.100.8|8443" },
        { type: "ip-dst", value: "203.0.113.0/24" },
        { type: "md5", value: "d41d8cd98f00b204e9800998ecf8427e" },
        { type: "sha256", value: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
        { type: "hostname", value: "www.gugehotel.cn" },
        { type: "domain", value: "gugehotel.cn" },
        { type: "email-src", value: "phish@gugehotel.cn" },
        { type: "vulnerability", value: "CVE-2024-3400" },
      ].sort((a, b) => (a.type === b.type ? a.value.localeCompare(b.value) : a.type.localeCompare(b.type))),
    );
  });

  it("json arrays (with items_path) and NDJSON", async () => {
    const doc = JSON.stringify({ data: { items: [{ ioc: "198.51.100.20", kind: "ip-src" }, { ioc: "bad.example.org" }, { nothing: true }] } });
    const up = await upload("iocs.json", doc, "json");
    const feed = await createFeed({ name: "json sample", url: up.body.key, source_format: "json", settings: { jsonConfig: { items_path: "data.items", attribute: { value: "ioc" } } } });
    const run = await finished(feed.ingestion.id);
    expect(run.result).toMatchObject({ rows: 3, attributes_created: 2, rejected: 1 });
    const nd = await upload("iocs.ndjson", '{"value":"198.51.100.30"}\n"198.51.100.31"\n{broken\n', "json");
    const ndFeed = await createFeed({ name: "ndjson sample", url: nd.body.key, source_format: "json", settings: { jsonConfig: { format: "ndjson" } } });
    expect((await finished(ndFeed.ingestion.id)).result).toMatchObject({ rows: 3, attributes_created: 2, rejected: 1, rejections: [{ where: "line 3", reason: "not JSON" }] });
  });

  it("content problems found during ingestion fail the run with the reason, or reject just the row; no partial event", async () => {
    const broken = await upload("broken.json", '[{"value": "1.2.3.4"', "json");
    expect(broken.status).toBe(200);
    const feed = await createFeed({ name: "broken json", url: broken.body.key, source_format: "json" });
    const run = await finished(feed.ingestion.id);
    expect(run).toMatchObject({ status: "failed", attempts: 1 });
    expect(run.last_error).toMatch(/JSON/);
    expect((await q("SELECT count(*)::int AS n FROM events WHERE info = 'JSON Feed Import: broken json'")).rows[0].n).toBe(0);

    const longLine = `198.51.100.40\n${"a".repeat(10 * 1024 * 1024)}\n198.51.100.41\n`;
    const up = await upload("long.csv", longLine, "csv");
    const csvFeed = await createFeed({ name: "long lines", url: up.body.key, source_format: "csv" });
    const longRun = await finished(csvFeed.ingestion.id);
    expect(longRun.result).toMatchObject({ rows: 3, attributes_created: 2, rejected: 1, rejections: [{ where: "line 2", reason: "line too long" }] });
  });
});

describe("bad uploads", () => {
  const cases: [string, () => Promise<{ status: number; body: any }>, number][] = [
    ["an empty file", () => upload("empty.csv", "", "csv"), 400],
    ["an .exe as csv", () => upload("tool.exe", Buffer.from("MZ\u0090\u0000"), "csv"), 400],
    ["binary garbage as freetext", () => upload("garbage.txt", Buffer.concat([crypto.randomBytes(100), Buffer.from([0, 0, 0])]), "freetext"), 400],
    ["an unknown source_format", () => upload("a.csv", "1.2.3.4", "xml"), 422],
    ["no source_format", () => upload("a.csv", "1.2.3.4"), 422],
    ["no file", async () => {
      const form = new FormData();
      form.append("source_format", "csv");
      const res = await fetch(`${app.url}/feeds/upload`, { method: "POST", headers: { authorization: `Bearer ${admin.token}` }, body: form });
      return { status: res.status, body: await res.json() };
    }, 422],
    ["two files", async () => {
      const form = new FormData();
      form.append("source_format", "csv");
      form.append("file", new Blob(["1.2.3.4"]), "a.csv");
      form.append("file", new Blob(["1.2.3.5"]), "b.csv");
      const res = await fetch(`${app.url}/feeds/upload`, { method: "POST", headers: { authorization: `Bearer ${admin.token}` }, body: form });
      return { status: res.status, body: await res.json() };
    }, 400],
    ["a JSON body", async () => {
      const res = await app.http.post("/feeds/upload", { token: admin.token, json: { file: "x" } });
      return { status: res.status, body: res.body };
    }, 415],
    ["a truncated multipart body", async () => {
      const res = await fetch(`${app.url}/feeds/upload`, {
        method: "POST",
        headers: { authorization: `Bearer ${admin.token}`, "content-type": "multipart/form-data; boundary=XYZ" },
        body: '--XYZ\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\n\r\n1.2.3.4',
      });
      return { status: res.status, body: await res.json() };
    }, 400],
    ["an anonymous caller", () => upload("a.csv", "1.2.3.4", "csv", ""), 401],
    ["a caller without feeds:create", () => upload("a.csv", "1.2.3.4", "csv", reader.token), 403],
  ];
  /** The temporary folder holds nothing (a refused upload's file may still be closing on a loaded machine). */
  const tmpEmptied = () =>
    eventually(() => (fs.readdirSync(path.join(app.dataDir, "tmp")).filter((f) => !f.startsWith(".")).length === 0 ? true : undefined), "the temporary folder emptied", 10_000, 50);
  it.each(cases)("%s: a clear 4xx with a JSON error, nothing stored", async (_what, run, status) => {
    const before = storageFiles();
    const res = await run();
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    expect(typeof res.body.code).toBe("string");
    expect(storageFiles()).toEqual(before);
    await tmpEmptied();
  });

  it("2 GB + 1 byte, streamed by a separate client (curl): 413 once the limit is crossed, nothing stored, the server's memory flat", async () => {
    const limit = 2 * 1024 ** 3;
    const head = `--B\\r\\nContent-Disposition: form-data; name="source_format"\\r\\n\\r\\ncsv\\r\\n--B\\r\\nContent-Disposition: form-data; name="file"; filename="big.csv"\\r\\n\\r\\n`;
    const script = `(printf -- '${head}'; head -c ${limit + 1} /dev/zero | tr '\\0' 'A'; printf -- '\\r\\n--B--\\r\\n') | curl -s -X POST -T - -o - -w '\\n%{http_code}' -H 'authorization: Bearer ${admin.token}' -H 'content-type: multipart/form-data; boundary=B' ${app.url}/feeds/upload`;
    let peak = 0;
    const base = process.memoryUsage().rss;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss - base)), 50);
    const out = await new Promise<string>((resolve) => execFile("bash", ["-c", script], { maxBuffer: 1 << 20 }, (_err, stdout) => resolve(stdout)));
    clearInterval(sampler);
    const [body, status] = [out.slice(0, out.lastIndexOf("\n")), out.slice(out.lastIndexOf("\n") + 1)];
    expect(status, body).toBe("413");
    expect(JSON.parse(body)).toMatchObject({ code: "payload_too_large" });
    expect(storageFiles().some((f) => f.includes("big"))).toBe(false);
    await tmpEmptied();
    // Streamed to disk, never held: the service grew by far less than the 2 GB it received.
    expect(peak).toBeLessThan(150 * 1024 * 1024);
  }, 300_000);
});

describe("feed records", () => {
  it("CRUD with validation: a local feed needs an existing upload key of the right kind; others' feeds are read-only", async () => {
    const bad: [Record<string, unknown>, (string | number)[]][] = [
      [{ name: "x", url: "feed-uploads/../../etc/passwd", source_format: "csv" }, ["body", "url"]],
      [{ name: "x", url: "file:///etc/passwd", source_format: "csv", input_source: "network" }, ["body", "url"]],
      [{ name: "x", url: "https://example.org/feed", source_format: "xml", input_source: "network" }, ["body", "source_format"]],
      [{ name: "x", url: "https://example.org/feed", source_format: "csv", input_source: "network", distribution: 9 }, ["body", "distribution"]],
      [{ name: "x", url: "https://example.org/feed", source_format: "csv", input_source: "network", settings: { csvConfig: { delimiter: "" } } }, ["body", "settings", "csvConfig", "delimiter"]],
    ];
    for (const [body, loc] of bad) {
      const res = await app.http.post("/feeds/", { token: admin.token, json: { provider: "p", input_source: "local", ...body } });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.detail.map((d: { loc: unknown }) => d.loc)).toContainEqual(loc);
    }
    // A well-formed key of no upload is 404, as another organisation's.
    const unknown = await app.http.post("/feeds/", { token: admin.token, json: { name: "x", provider: "p", input_source: "local", url: `feed-uploads/${crypto.randomUUID()}`, source_format: "csv" } });
    expect(unknown.status).toBe(404);
    const csv = await upload("a.csv", "198.51.100.50\n", "csv");
    const asMisp = await app.http.post("/feeds/", { token: admin.token, json: { name: "x", provider: "p", input_source: "local", url: csv.body.key, source_format: "misp" } });
    expect(asMisp.status).toBe(422);

    const network = await app.http.post("/feeds/", { token: admin.token, json: { name: "remote", provider: "p", input_source: "network", url: "https://feeds.example.org/misp", source_format: "misp", enabled: true } });
    expect(network.status).toBe(201);
    expect(network.body.ingestion).toBeNull();
    expect((await app.http.get(`/feeds/${network.body.id}`, { token: reader.token })).body.name).toBe("remote");
    expect((await app.http.get("/feeds/?limit=1000", { token: reader.token })).body.map((f: { id: number }) => f.id)).toContain(network.body.id);
    expect((await app.http.patch(`/feeds/${network.body.id}`, { token: reader.token, json: { name: "mine" } })).status).toBe(403);
    expect((await app.http.post(`/feeds/${network.body.id}/fetch`, { token: reader.token })).status).toBe(403);
    const renamed = await app.http.patch(`/feeds/${network.body.id}`, { token: admin.token, json: { name: "renamed", enabled: false } });
    expect(renamed.body).toMatchObject({ name: "renamed", enabled: false, url: "https://feeds.example.org/misp" });
    // The host cannot be resolved here: the run fails with the reason.
    const fetched = await app.http.post(`/feeds/${network.body.id}/fetch`, { token: admin.token });
    expect(await finished(fetched.body.task.id)).toMatchObject({ status: "failed", last_error: expect.stringContaining("feeds.example.org") });
    expect((await app.http.delete(`/feeds/${network.body.id}`, { token: admin.token })).status).toBe(204);
    expect((await app.http.get(`/feeds/${network.body.id}`, { token: admin.token })).status).toBe(404);
  });
});

describe("network feeds", () => {
  let server: http.Server;
  let base: string;
  const hits: { path: string; conditional: boolean }[] = [];
  let csvBody = "198.51.100.60\n198.51.100.61\n";
  const files = sampleFiles().slice(0, 2);

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const url = req.url ?? "/";
      const conditional = Boolean(req.headers["if-none-match"]);
      hits.push({ path: url, conditional });
      const send = (body: string, etag: string) => {
        if (req.headers["if-none-match"] === etag) return res.writeHead(304).end();
        res.writeHead(200, { etag, "content-type": "application/json" }).end(body);
      };
      if (url === "/misp/manifest.json") return send(manifestOf(files), '"m1"');
      const event = files.find((f) => url === `/misp/${f.uuid}.json`);
      if (event) return send(event.json, `"${event.uuid}"`);
      if (url === "/list.csv") return send(csvBody, `"${crypto.createHash("sha1").update(csvBody).digest("hex")}"`);
      if (url === "/big.csv") return res.writeHead(200).end("1.2.3.4\n".repeat(1000));
      if (url === "/to-metadata") return res.writeHead(302, { location: "http://169.254.169.254/latest/meta-data/" }).end();
      if (url === "/silent") return; // never answers
      res.writeHead(404).end();
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    await q("DELETE FROM runtime_settings WHERE namespace = 'feeds'");
  });

  const feeds = (value: Record<string, unknown>) => app.http.post("/settings/runtime/feeds", { token: admin.token, json: { allowed_private_networks: [], fetch_timeout_seconds: 60, max_download_bytes: 536870912, ...value } });
  const networkFeed = async (url: string, format = "misp") => {
    const res = await app.http.post("/feeds/", { token: admin.token, json: { name: `net-${crypto.randomBytes(3).toString("hex")}`, provider: "local server", url, source_format: format, input_source: "network" } });
    expect(res.status, res.text).toBe(201);
    return res.body.id as number;
  };
  const fetchNow = async (id: number) => finished((await app.http.post(`/feeds/${id}/fetch`, { token: admin.token })).body.task.id);

  it("loopback and private addresses are refused unless an administrator allows them", async () => {
    await feeds({});
    const byIp = await networkFeed(`${base}/misp`);
    expect(await fetchNow(byIp)).toMatchObject({ status: "failed", last_error: expect.stringContaining("loopback, private or reserved") });
    const byName = await networkFeed(`${base.replace("127.0.0.1", "localhost")}/misp`);
    expect(await fetchNow(byName)).toMatchObject({ status: "failed", last_error: expect.stringContaining("loopback, private or reserved") });
    expect(hits).toEqual([]);
  });

  it("a MISP feed over HTTP: events by manifest, then a conditional request that changes nothing", async () => {
    await feeds({ allowed_private_networks: ["127.0.0.1/32"] });
    await q("DELETE FROM events WHERE uuid = ANY($1::uuid[])", [files.map((f) => f.uuid)]);
    const id = await networkFeed(`${base}/misp/`);
    const first = await fetchNow(id);
    expect(first.status, first.last_error).toBe("succeeded");
    expect(first.result).toMatchObject({ events_created: 2, not_modified: false });
    expect((await app.http.get(`/feeds/${id}`, { token: admin.token })).body.last_fetched_at).not.toBeNull();
    const second = await fetchNow(id);
    expect(second.result).toMatchObject({ not_modified: true, events_created: 0, rows: 0 });
    expect(hits.filter((h) => h.path === "/misp/manifest.json").map((h) => h.conditional)).toEqual([false, true]);
  });

  it("a csv feed over HTTP picks up new values when the file changes", async () => {
    const id = await networkFeed(`${base}/list.csv`, "csv");
    expect((await fetchNow(id)).result).toMatchObject({ attributes_created: 2 });
    expect((await fetchNow(id)).result).toMatchObject({ not_modified: true });
    csvBody += "198.51.100.62\n";
    expect((await fetchNow(id)).result).toMatchObject({ attributes_created: 1, attributes_unchanged: 2 });
  });

  it("a feed whose event was soft-deleted fills a new event, not the hidden one", async () => {
    const id = await networkFeed(`${base}/list.csv`, "csv");
    const first = (await fetchNow(id)).result;
    expect(first.attributes_created).toBeGreaterThan(0);
    expect((await app.http.delete(`/events/${first.event_uuid}`, { token: admin.token })).status).toBe(204);
    csvBody += "198.51.100.63\n";
    const second = (await fetchNow(id)).result;
    expect(second.event_uuid).not.toBe(first.event_uuid);
    expect(second.attributes_created).toBe(first.attributes_created + 1);
    expect(second.notes.join(" ")).toContain("was deleted");
    expect((await app.http.get(`/events/${first.event_uuid}`, { token: admin.token })).body.deleted).toBe(true);
  });

  it("a redirect to an internal address, an oversized answer and a silent server fail the run with the reason", async () => {
    await feeds({ allowed_private_networks: ["127.0.0.1/32"], max_download_bytes: 1024, fetch_timeout_seconds: 1 });
    expect(await fetchNow(await networkFeed(`${base}/to-metadata`, "csv"))).toMatchObject({ status: "failed", last_error: expect.stringContaining("169.254.169.254") });
    expect(await fetchNow(await networkFeed(`${base}/big.csv`, "csv"))).toMatchObject({ status: "failed", last_error: expect.stringContaining("1024 bytes") });
    expect(await fetchNow(await networkFeed(`${base}/silent`, "csv"))).toMatchObject({ status: "failed", last_error: expect.stringContaining("1000 ms") });
    expect(await fetchNow(await networkFeed(`${base}/missing.csv`, "csv"))).toMatchObject({ status: "failed", last_error: expect.stringContaining("HTTP 404") });
  });
});

describe("previews", () => {
  it("csv, json and freetext previews read an upload as ingestion would, and write nothing", async () => {
    const before = (await q("SELECT count(*)::int AS n FROM attributes")).rows[0].n;
    const csv = await upload("p.csv", "ioc;kind\n198.51.100.70;ip-src\nnot-an-ioc;\n", "csv");
    const res = await app.http.post("/feeds/csv/preview", {
      token: admin.token,
      json: { input_source: "local", url: csv.body.key, settings: { csvConfig: { delimiter: ";", header: true } } },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ result: "success", preview: [{ where: "line 2", value: "198.51.100.70", type: "ip-dst" }, { where: "line 3", error: "no indicator recognised" }] });
    const text = await upload("p.txt", Array.from({ length: 30 }, (_, i) => `198.51.100.${i}`).join("\n"), "freetext");
    const free = await app.http.post("/feeds/freetext/preview", { token: admin.token, json: { input_source: "local", url: text.body.key } });
    expect(free.body.preview).toHaveLength(10);
    const three = await app.http.post("/feeds/freetext/preview?limit=3", { token: admin.token, json: { input_source: "local", url: text.body.key } });
    expect(three.body.preview).toHaveLength(3);
    const bad = await upload("b.json", "{nope", "json");
    const broken = await app.http.post("/feeds/json/preview", { token: admin.token, json: { input_source: "local", url: bad.body.key } });
    expect(broken.status).toBe(400);
    expect(broken.body.detail).toMatch(/cannot be read/);
    expect((await app.http.post("/feeds/csv/preview", { token: admin.token, json: { input_source: "local", url: "feed-uploads/../../etc/passwd" } })).status).toBe(422);
    expect((await app.http.post("/feeds/csv/preview", { token: reader.token, json: { input_source: "local", url: csv.body.key } })).status).toBe(403);
    const gql = await app.http.post("/graphql", {
      token: admin.token,
      json: { query: `query($u: String!, $s: JSON) { feedPreview(format: CSV, inputSource: LOCAL, url: $u, settings: $s) { where value type error } }`, variables: { u: csv.body.key, s: { csvConfig: { delimiter: ";", header: true } } } },
    });
    expect(gql.body.data.feedPreview).toEqual([{ where: "line 2", value: "198.51.100.70", type: "ip-dst", error: null }, { where: "line 3", value: null, type: null, error: "no indicator recognised" }]);
    const denied = await app.http.post("/graphql", { token: reader.token, json: { query: `{ feedPreview(format: CSV, inputSource: LOCAL, url: "${csv.body.key}") { where } }` } });
    expect(denied.body.errors[0].extensions.status).toBe(403);
    expect((await q("SELECT count(*)::int AS n FROM attributes")).rows[0].n).toBe(before);
  });

  it("explore lists a MISP feed's manifest page by page; other formats get 400", async () => {
    const files = sampleFiles();
    const up = await upload("explore.zip", zip([{ name: "manifest.json", data: manifestOf(files) }, ...files.map((f) => ({ name: `${f.uuid}.json`, data: f.json }))]), "sharing");
    const feed = await createFeed({ name: "explore", url: up.body.key, source_format: "misp" });
    const page = await app.http.get(`/feeds/${feed.id}/explore?page=1&limit=3`, { token: reader.token });
    expect(page.status, page.text).toBe(200);
    expect(page.body).toMatchObject({ total: files.length, page: 1, limit: 3 });
    expect(page.body.events.map((e: { uuid: string }) => e.uuid)).toEqual(files.slice(3).map((f) => f.uuid));
    expect(page.body.events[0]).toMatchObject({ info: files[3].event.info });
    const gql = await app.http.post("/graphql", { token: reader.token, json: { query: `{ feedExplore(id: ${feed.id}, page: 2, size: 3) { total page size pages items { uuid entry } } }` } });
    expect(gql.body.data.feedExplore).toMatchObject({ total: files.length, page: 2, size: 3, pages: Math.ceil(files.length / 3) });
    expect(gql.body.data.feedExplore.items.map((i: { entry: unknown }) => i.entry)).toEqual(page.body.events);
    expect(gql.body.data.feedExplore.items.map((i: { uuid: string }) => i.uuid)).toEqual(page.body.events.map((e: { uuid: string }) => e.uuid));
    const csv = await upload("x.csv", "198.51.100.80\n", "csv");
    const csvFeed = await createFeed({ name: "explore csv", url: csv.body.key, source_format: "csv" });
    expect((await app.http.get(`/feeds/${csvFeed.id}/explore`, { token: admin.token })).status).toBe(400);
  });
});

describe("GraphQL upload", () => {
  const gqlUpload = async (token: string, filename: string, content: string, sourceFormat: string) => {
    const form = new FormData();
    form.append("operations", JSON.stringify({ query: "mutation($f: Upload!, $s: String!) { uploadFeedFile(file: $f, sourceFormat: $s) { key filename size sourceFormat } }", variables: { f: null, s: sourceFormat } }));
    form.append("map", JSON.stringify({ "0": ["variables.f"] }));
    form.append("0", new Blob([content]), filename);
    const res = await fetch(`${app.url}/graphql`, { method: "POST", headers: { authorization: `Bearer ${token}` }, body: form });
    return { status: res.status, body: (await res.json()) as any };
  };

  it("uploadFeedFile streams like POST /feeds/upload, with the same checks; createFeed ingests it", async () => {
    const ok = await gqlUpload(admin.token, "gql.csv", "198.51.100.90\n198.51.100.91\n", "csv");
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.errors, JSON.stringify(ok.body.errors)).toBeUndefined();
    expect(ok.body.data.uploadFeedFile).toMatchObject({ filename: "gql.csv", size: 28, sourceFormat: "csv" });
    const key = ok.body.data.uploadFeedFile.key;
    expect(storageFiles()).toContain(key);
    const created = await app.http.post("/graphql", {
      token: admin.token,
      json: { query: "mutation($f: FeedFields!) { createFeed(feed: $f) { feed { id } ingestion { id status } } }", variables: { f: { name: "gql feed", provider: "p", url: key, sourceFormat: "CSV", inputSource: "LOCAL" } } },
    });
    expect(created.body.errors).toBeUndefined();
    expect((await finished(created.body.data.createFeed.ingestion.id)).result).toMatchObject({ attributes_created: 2 });

    const before = storageFiles();
    const exe = await gqlUpload(admin.token, "tool.exe", "MZ", "csv");
    expect(exe.body.errors[0].extensions).toMatchObject({ code: "bad_request", status: 400 });
    const denied = await gqlUpload(reader.token, "a.csv", "198.51.100.92\n", "csv");
    expect(denied.body.errors[0].extensions).toMatchObject({ code: "insufficient_scope", status: 403 });
    const anonymous = await gqlUpload("", "a.csv", "198.51.100.92\n", "csv");
    expect(anonymous.body.errors[0].extensions.status).toBe(401);
    expect(storageFiles()).toEqual(before);
    const broken = await fetch(`${app.url}/graphql`, { method: "POST", headers: { authorization: `Bearer ${admin.token}`, "content-type": "multipart/form-data; boundary=X" }, body: "--X\r\nnonsense" });
    expect(broken.status).toBe(400);
  });

  it("a 300 MB file through GraphQL and through REST: the service's memory stays flat", async () => {
    const file = path.join(app.dataDir, "big-upload.csv");
    fs.writeFileSync(file, "");
    const line = Buffer.from("198.51.100.100\n".repeat(4096));
    const fd = fs.openSync(file, "a");
    for (let written = 0; written < 300 * 1024 * 1024; written += line.length) fs.writeSync(fd, line);
    fs.closeSync(fd);
    const operations = JSON.stringify({ query: "mutation($f: Upload!) { uploadFeedFile(file: $f, sourceFormat: \"csv\") { size } }", variables: { f: null } });
    const commands = {
      graphql: `curl -s -o - -w '\\n%{http_code}' -H 'authorization: Bearer ${admin.token}' -F 'operations=${operations}' -F 'map={"0":["variables.f"]}' -F '0=@${file};filename=big.csv' ${app.url}/graphql`,
      rest: `curl -s -o - -w '\\n%{http_code}' -H 'authorization: Bearer ${admin.token}' -F 'source_format=csv' -F 'file=@${file};filename=big.csv' ${app.url}/feeds/upload`,
    };
    for (const [route, command] of Object.entries(commands)) {
      let peak = 0;
      const base = process.memoryUsage().rss;
      const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss - base)), 50);
      const out = await new Promise<string>((resolve) => execFile("bash", ["-c", command], { maxBuffer: 1 << 20 }, (_e, stdout) => resolve(stdout)));
      clearInterval(sampler);
      expect(out.slice(out.lastIndexOf("\n") + 1), `${route}: ${out.slice(0, 300)}`).toBe("200");
      expect(out, route).toContain(String(fs.statSync(file).size));
      expect(peak, `${route} peak RSS growth`).toBeLessThan(150 * 1024 * 1024);
    }
    fs.rmSync(file);
  }, 120_000);
});
