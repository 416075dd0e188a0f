/**
 * Feed uploads in an S3 bucket (a real S3-compatible server on loopback, s3rver), issue 20 finding
 * 11: a refused archive bomb leaves no object, and the clean-up of unused uploads removes their
 * objects (and records objects stored before uploads were recorded, then removes them a day later).
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import S3rver from "s3rver";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pruneFeedUploads } from "../../src/modules/feeds/prune-feed-uploads.ts";
import { S3Storage } from "../../src/platform/storage/s3-storage.ts";
import { startTestApp, type TestApp } from "../support/app.ts";
import { tarGz, zip } from "../support/archives.ts";
import { loginAdmin, type TestUser } from "../support/fixtures.ts";

const BUCKET = "workbench-feed-uploads";
let server: S3rver;
let dir: string;
let bucket: S3Storage;
let app: TestApp;
let admin: TestUser;

const q = (sql: string, params: unknown[] = []) => app.booted.ctx.db.pool.query(sql, params);
const objects = () => bucket.list("feed-uploads");

async function upload(filename: string, content: Buffer | string, format: string): Promise<{ status: number; body: any }> {
  const form = new FormData();
  form.append("source_format", format);
  form.append("file", new Blob([typeof content === "string" ? content : new Uint8Array(content)]), filename);
  const res = await fetch(`${app.url}/feeds/upload`, { method: "POST", headers: { authorization: `Bearer ${admin.token}` }, body: form });
  return { status: res.status, body: await res.json() };
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "wb-s3rver-"));
  server = new S3rver({ address: "127.0.0.1", port: 0, directory: dir, silent: true, configureBuckets: [{ name: BUCKET }] });
  const endpoint = `http://127.0.0.1:${(await server.run()).port}`;
  const s3 = { S3_ENDPOINT: endpoint, S3_BUCKET: BUCKET, S3_ACCESS_KEY_ID: "S3RVER", S3_SECRET_ACCESS_KEY: "S3RVER" };
  bucket = new S3Storage({ endpoint, bucket: BUCKET, region: "us-east-1", accessKeyId: "S3RVER", secretAccessKey: "S3RVER" });
  app = await startTestApp("feed-uploads-s3", { STORAGE_ENGINE: "s3", ...s3 });
  admin = await loginAdmin(app);
}, 60_000);
afterAll(async () => {
  await app?.close();
  bucket?.close();
  await server?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("feed uploads in S3", () => {
  it("children lists one level: objects and folders of objects", async () => {
    await bucket.put("feed-uploads/kids/file", Readable.from([Buffer.from("x")]));
    await bucket.put("feed-uploads/kids/folder/a.json", Readable.from([Buffer.from("{}")]));
    await bucket.put("feed-uploads/kids/folder/b.json", Readable.from([Buffer.from("{}")]));
    expect(await bucket.children("feed-uploads/kids")).toEqual(["feed-uploads/kids/file", "feed-uploads/kids/folder"]);
    await bucket.deleteTree("feed-uploads/kids");
    expect(await bucket.children("feed-uploads/kids")).toEqual([]);
  });

  it("a zip bomb and a tar.gz bomb are refused (413) and leave no object, even of the members stored before the bomb", async () => {
    const members = [{ name: "manifest.json", data: "{}" }, { name: `${crypto.randomUUID()}.json`, data: '{"Event": {}}' }, { name: `${crypto.randomUUID()}.json`, data: Buffer.alloc(16 * 1024 * 1024) }];
    for (const [name, bomb] of [["bomb.zip", zip(members.map((m) => ({ ...m, deflate: true })))], ["bomb.tar.gz", tarGz(members)]] as const) {
      const before = await objects();
      const res = await upload(name, bomb, "sharing");
      expect(res.status, JSON.stringify(res.body)).toBe(413);
      expect(await objects()).toEqual(before);
    }
    expect((await q("SELECT count(*)::int AS n FROM feed_uploads")).rows[0].n).toBe(0);
  });

  it("the clean-up removes the objects of uploads no feed uses after a day; objects without a row are recorded first and removed a day later", async () => {
    const archive = zip([{ name: "manifest.json", data: "{}" }, { name: `${crypto.randomUUID()}.json`, data: '{"Event": {}}' }]);
    const unused = (await upload("unused.zip", archive, "sharing")).body.key;
    const used = (await upload("used.csv", "198.51.100.1\n", "csv")).body.key;
    expect((await app.http.post("/feeds/", { token: admin.token, json: { name: "used", provider: "p", url: used, source_format: "csv", input_source: "local" } })).status).toBe(201);
    const orphan = `feed-uploads/${crypto.randomUUID()}`;
    await bucket.put(`${orphan}/manifest.json`, Readable.from([Buffer.from("{}")]));
    await q("UPDATE feed_uploads SET created_at = now() - interval '25 hours' WHERE key = ANY($1)", [[unused, used]]);

    expect(await pruneFeedUploads(app.booted.ctx)).toEqual({ removed: 1, adopted: 1 });
    const left = await objects();
    expect(left.filter((k) => k.startsWith(`${unused}/`))).toEqual([]);
    expect(left).toEqual(expect.arrayContaining([used, `${orphan}/manifest.json`]));
    expect((await q("SELECT org_id FROM feed_uploads WHERE key = $1", [orphan])).rows).toEqual([{ org_id: null }]);

    await q("UPDATE feed_uploads SET created_at = now() - interval '25 hours' WHERE key = $1", [orphan]);
    expect(await pruneFeedUploads(app.booted.ctx)).toEqual({ removed: 1, adopted: 0 });
    expect(await objects()).toEqual([used]);
  });
});
