/**
 * The per-feed switch skip_warninglisted (ROLE=all): with the real "List of known URL Shorteners
 * domains" enabled, the shared feed sample's event aacc7574 (23 domains and 5 URLs on tinyurl.com,
 * t.co and is.gd) is ingested as a MISP feed, a CSV and a freetext file. With the switch on, the five
 * URLs are left out at ingest and counted as warninglisted; with it off they are stored with their hit.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { zip } from "../support/archives.ts";
import { loginAdmin, type TestUser } from "../support/fixtures.ts";
import { eventually } from "../support/process.ts";
import { settled } from "../support/settled.ts";
import { sharedPath } from "../support/shared-data.ts";

const SHORTENERS = "List of known URL Shorteners domains";
/** The sample event's values on that list (checked by hand against lists/url-shortener/list.json). */
const LISTED = ["https://is.gd/l3S7qf", "https://t.co/MmMkTCn6Kd", "https://t.co/YbupnnMAtX", "https://tinyurl.com/288tobvb", "https://tinyurl.com/2ykfey8v"];

type Json = Record<string, any>;
let app: TestApp;
let admin: TestUser;

const q = <T extends object = Json>(sql: string, params: unknown[] = []) => app.booted.ctx.db.pool.query<T>(sql, params).then((r) => r.rows);

const sampleName = fs.readdirSync(sharedPath("misp-feed-sample")).find((f) => f.startsWith("aacc7574"))!;
const sampleJson = fs.readFileSync(path.join(sharedPath("misp-feed-sample"), sampleName), "utf8");
const sample = JSON.parse(sampleJson).Event as Json;
const sampleValues = (sample.Attribute as Json[]).map((a) => ({ type: a.type as string, value: a.value as string }));

async function upload(filename: string, content: Buffer | string, format: string): Promise<string> {
  const form = new FormData();
  form.append("source_format", format);
  form.append("file", new Blob([typeof content === "string" ? content : new Uint8Array(content)]), filename);
  const res = await fetch(`${app.url}/feeds/upload`, { method: "POST", headers: { authorization: `Bearer ${admin.token}` }, body: form });
  const body = (await res.json()) as Json;
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body.key as string;
}

async function finished(runId: string): Promise<Json> {
  const run = await eventually(async () => {
    const r = await app.http.get(`/tasks/${runId}`, { token: admin.token });
    return ["succeeded", "failed"].includes(r.body.status) ? (r.body as Json) : undefined;
  }, `run ${runId}`, 60_000, 100);
  expect(run.status, run.last_error).toBe("succeeded");
  return run.result as Json;
}

async function createFeed(body: Json): Promise<Json> {
  const res = await app.http.post("/feeds/", { token: admin.token, json: { provider: "test", input_source: "local", name: `wl-${crypto.randomBytes(3).toString("hex")}`, ...body } });
  expect(res.status, res.text).toBe(201);
  return res.body as Json;
}

/** The values stored in an event with the names of their hits, by value. */
async function storedHits(where: string, param: string): Promise<Record<string, string[]>> {
  const rows = await q<{ value: string; warnings: { name: string }[] }>(`SELECT a.value, a.warnings FROM attributes a JOIN events e ON e.id = a.event_id WHERE ${where}`, [param]);
  return Object.fromEntries(rows.map((r) => [r.value, r.warnings.map((w) => w.name)]));
}

beforeAll(async () => {
  app = await startTestApp("feeds-warninglists", { ROLE: "all", WARNINGLISTS_SOURCE: sharedPath("misp-warninglists") });
  admin = await loginAdmin(app);
  expect((await app.http.post("/warninglists/update", { token: admin.token })).status).toBe(200);
  const [{ id }] = await q<{ id: number }>("SELECT id FROM warninglists WHERE name = $1", [SHORTENERS]);
  expect((await app.http.patch(`/warninglists/${id}`, { token: admin.token, json: { enabled: true } })).status).toBe(200);
  await settled(app);
  expect(sampleValues).toHaveLength(28);
  expect(sampleValues.filter((v) => LISTED.includes(v.value))).toHaveLength(LISTED.length);
}, 120_000);
afterAll(() => app?.close());

describe("skip_warninglisted", () => {
  it("a MISP feed: switched on, the listed values are left out at ingest; switched off (PATCH), they are kept with their hits", async () => {
    const manifest = JSON.stringify({ [sample.uuid]: { info: sample.info, Orgc: sample.Orgc, Tag: sample.Tag, date: sample.date, analysis: sample.analysis, threat_level_id: sample.threat_level_id, timestamp: Number(sample.timestamp) } });
    const key = await upload("sample.zip", zip([{ name: "manifest.json", data: manifest }, { name: `${sample.uuid}.json`, data: sampleJson }]), "sharing");
    const feed = await createFeed({ url: key, source_format: "sharing", skip_warninglisted: true });
    expect(feed.skip_warninglisted).toBe(true);
    const on = await finished(feed.ingestion.id);
    expect(on).toMatchObject({ events_created: 1, attributes_created: 23, warninglisted: 5, rejected: 0 });
    const skipped = await storedHits("e.uuid = $1", sample.uuid);
    expect(Object.keys(skipped).sort()).toEqual(sampleValues.map((v) => v.value).filter((v) => !LISTED.includes(v)).sort());
    expect(Object.values(skipped).flat()).toEqual([]);

    // The same event again, from scratch, with the switch off.
    await q("DELETE FROM events WHERE uuid = $1", [sample.uuid]);
    const patched = await app.http.patch(`/feeds/${feed.id}`, { token: admin.token, json: { skip_warninglisted: false } });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.skip_warninglisted).toBe(false);
    const off = await finished((await app.http.post(`/feeds/${feed.id}/fetch`, { token: admin.token })).body.task.id);
    expect(off).toMatchObject({ events_created: 1, attributes_created: 28, warninglisted: 0 });
    const kept = await storedHits("e.uuid = $1", sample.uuid);
    expect(Object.keys(kept)).toHaveLength(28);
    for (const value of LISTED) expect(kept[value], value).toEqual([SHORTENERS]);
    expect(Object.entries(kept).filter(([, hits]) => hits.length > 0).map(([v]) => v).sort()).toEqual(LISTED);
  }, 60_000);

  const csv = ["indicator,kind", ...sampleValues.map((v) => `${v.value},${v.type}`)].join("\n");
  // Freetext as reports write it: defanged, the types guessed by the parser.
  const freetext = sampleValues.map((v) => v.value.replace("https://", "hxxps://").replace(/\.(?=[a-z]+(\/|$))/, "[.]")).join("\n");
  const csvSettings = { csvConfig: { delimiter: ",", header: true, attribute: { value_column: 0, type: { strategy: "column", column: 1 } } } };

  it.each([
    { format: "csv", file: "sample.csv", content: csv, settings: csvSettings },
    { format: "freetext", file: "sample.txt", content: freetext, settings: undefined },
  ])("a $format feed: the listed values are left out with the switch on and kept with their hits with it off", async ({ format, file, content, settings }) => {
    for (const skip of [true, false]) {
      const feed = await createFeed({ url: await upload(file, content, format), source_format: format, skip_warninglisted: skip, ...(settings ? { settings } : {}) });
      const result = await finished(feed.ingestion.id);
      expect(result, `skip_warninglisted ${skip}`).toMatchObject({ rows: 28, rejected: 0, attributes_created: skip ? 23 : 28, warninglisted: skip ? 5 : 0 });
      const stored = await storedHits("e.info = $1", `${format.toUpperCase()} Feed Import: ${feed.name}`);
      expect(Object.keys(stored)).toHaveLength(skip ? 23 : 28);
      const listed = Object.entries(stored).filter(([, hits]) => hits.length > 0);
      expect(listed.map(([v]) => v).sort()).toEqual(skip ? [] : LISTED);
      expect(listed.every(([, hits]) => hits.length === 1 && hits[0] === SHORTENERS)).toBe(true);
    }
  }, 60_000);
});
