/**
 * S3 storage against a real S3-compatible server on loopback (s3rver): a streamed 512 MiB object whose
 * checksum matches after download, a write over its limit that leaves no object, keys that try to
 * escape, and a whole feed upload and ingestion with STORAGE_ENGINE=s3.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import S3rver from "s3rver";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { S3Storage } from "../../src/platform/storage/s3-storage.ts";
import { StorageLimitError, StorageNotFoundError } from "../../src/platform/storage/storage.ts";
import { startTestApp, type TestApp } from "../support/app.ts";
import { loginAdmin } from "../support/fixtures.ts";
import { eventually } from "../support/process.ts";
import { zip } from "../support/archives.ts";
import { sharedPath } from "../support/shared-data.ts";

const BUCKET = "workbench-test";
let server: S3rver;
let endpoint: string;
let dir: string;
let storage: S3Storage;

/** `size` bytes: a random 4 MiB block, stamped with its index each time, hashed as it is generated. */
function generated(size: number): { stream: Readable; digest: () => string } {
  const hash = crypto.createHash("sha256");
  const block = crypto.randomBytes(4 * 1024 * 1024);
  let sent = 0;
  let index = 0;
  const stream = new Readable({
    read() {
      if (sent >= size) return this.push(null);
      const chunk = Buffer.from(block.subarray(0, Math.min(block.length, size - sent)));
      chunk.writeUInt32BE(index++ % 2 ** 32, 0);
      sent += chunk.length;
      hash.update(chunk);
      this.push(chunk);
    },
  });
  return { stream, digest: () => hash.digest("hex") };
}

async function sha256Of(stream: Readable): Promise<{ hex: string; bytes: number }> {
  const hash = crypto.createHash("sha256");
  let bytes = 0;
  for await (const chunk of stream) {
    bytes += (chunk as Buffer).length;
    hash.update(chunk as Buffer);
  }
  return { hex: hash.digest("hex"), bytes };
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "wb-s3rver-"));
  server = new S3rver({ address: "127.0.0.1", port: 0, directory: dir, silent: true, configureBuckets: [{ name: BUCKET }] });
  const address = await server.run();
  endpoint = `http://127.0.0.1:${address.port}`;
  storage = new S3Storage({ endpoint, bucket: BUCKET, region: "us-east-1", accessKeyId: "S3RVER", secretAccessKey: "S3RVER" });
});
afterAll(async () => {
  storage?.close();
  await server?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("S3Storage", () => {
  it("streams a 512 MiB object up and down; the checksums match and memory stays flat", async () => {
    // Over twice the memory bound below, so holding the object whole either way fails; a larger one
    // only takes longer (no 2 or 4 GiB limit is on this path: parts are 8 MiB).
    const size = 512 * 1024 ** 2;
    const source = generated(size);
    const rssBefore = process.memoryUsage().rss;
    let peak = 0;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss - rssBefore)), 100);
    try {
      expect(await storage.put("feed-uploads/big-object", source.stream)).toBe(size);
      expect(await storage.size("feed-uploads/big-object")).toBe(size);
      const down = await sha256Of(await storage.get("feed-uploads/big-object"));
      expect(down.bytes).toBe(size);
      expect(down.hex).toBe(source.digest());
    } finally {
      clearInterval(sampler);
    }
    expect(peak).toBeLessThan(200 * 1024 * 1024);
    await storage.deleteTree("feed-uploads/big-object");
    expect(await storage.size("feed-uploads/big-object")).toBeNull();
  }, 600_000);

  it("a write over its limit is aborted and leaves no object; missing keys and hostile keys are refused", async () => {
    await expect(storage.put("feed-uploads/too-big", generated(30 * 1024 * 1024).stream, { maxBytes: 20 * 1024 * 1024 })).rejects.toThrow(StorageLimitError);
    expect(await storage.size("feed-uploads/too-big")).toBeNull();
    await expect(storage.get("feed-uploads/nothing-here")).rejects.toThrow(StorageNotFoundError);
    for (const key of ["../outside", "feed-uploads/../../x", "/abs", "feed-uploads//x", "feed-uploads/a\\b"]) {
      await expect(storage.put(key, Readable.from([Buffer.from("x")]))).rejects.toThrow(/invalid storage key/);
    }
  });

  it("lists and deletes a tree of members", async () => {
    for (const name of ["manifest.json", "a.json", "b.json"]) await storage.put(`feed-uploads/tree/${name}`, Readable.from([Buffer.from(name)]));
    expect(await storage.list("feed-uploads/tree")).toEqual(["feed-uploads/tree/a.json", "feed-uploads/tree/b.json", "feed-uploads/tree/manifest.json"]);
    await storage.deleteTree("feed-uploads/tree");
    expect(await storage.list("feed-uploads/tree")).toEqual([]);
  });
});

describe("the service with STORAGE_ENGINE=s3", () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp("storage-s3", { ROLE: "all", STORAGE_ENGINE: "s3", S3_ENDPOINT: endpoint, S3_BUCKET: BUCKET, S3_ACCESS_KEY_ID: "S3RVER", S3_SECRET_ACCESS_KEY: "S3RVER" });
  }, 60_000);
  afterAll(async () => {
    await app?.close();
  });

  it("stores an uploaded MISP feed archive in the bucket and ingests it from there", async () => {
    const admin = await loginAdmin(app);
    const name = fs.readdirSync(sharedPath("misp-feed-sample")).find((f) => f.startsWith("0dbb179a"))!;
    const json = fs.readFileSync(sharedPath("misp-feed-sample", name), "utf8");
    const event = JSON.parse(json).Event;
    const archive = zip([{ name: "manifest.json", data: JSON.stringify({ [event.uuid]: { timestamp: Number(event.timestamp), info: event.info } }) }, { name: `${event.uuid}.json`, data: json, deflate: true }]);
    const form = new FormData();
    form.append("source_format", "sharing");
    form.append("file", new Blob([new Uint8Array(archive)]), "feed.zip");
    const res = await fetch(`${app.url}/feeds/upload`, { method: "POST", headers: { authorization: `Bearer ${admin.token}` }, body: form });
    const up = (await res.json()) as { key: string };
    expect(res.status, JSON.stringify(up)).toBe(200);
    expect(await storage.list(up.key)).toEqual([`${up.key}/${event.uuid}.json`, `${up.key}/manifest.json`].sort());
    expect(fs.existsSync(path.join(app.dataDir, "storage"))).toBe(false);
    const feed = await app.http.post("/feeds/", { token: admin.token, json: { name: "s3 feed", provider: "p", url: up.key, source_format: "misp", input_source: "local" } });
    expect(feed.status, feed.text).toBe(201);
    const run = await eventually(async () => {
      const r = await app.http.get(`/tasks/${feed.body.ingestion.id}`, { token: admin.token });
      return ["succeeded", "failed"].includes(r.body.status) ? r.body : undefined;
    }, "ingestion");
    expect(run).toMatchObject({ status: "succeeded", result: { events_created: 1 } });
  });
});
