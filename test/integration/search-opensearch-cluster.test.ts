/**
 * OpenSearch backend on a real 3-node cluster (one replica): a node is killed (SIGKILL) in the
 * middle of a stream of bulk writes, and every write that was acknowledged must stay searchable.
 *
 * Opt-in (starting 3 JVMs takes about a minute): `OPENSEARCH_CLUSTER_TEST=1 npx vitest run
 * test/integration/search-opensearch-cluster.test.ts`. The cluster runs on ports 9260-9262
 * (transport 9360-9362) in a temporary run dir and is stopped with test/opensearch/stop.sh.
 */
import { execFile } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseLucene } from "../../src/search/lucene/parse.ts";
import { OpenSearchSearchIndex } from "../../src/search/opensearch/opensearch-search-index.ts";
import type { SearchDocument } from "../../src/search/search-index.ts";

const run = promisify(execFile);
const REPO = path.resolve(import.meta.dirname, "../..");
const DATA_DIR = path.resolve(REPO, "../shared/data/misp-feed-sample");
const PORT = 9260;

function feedAttributes(limit: number): SearchDocument[] {
  const out: SearchDocument[] = [];
  for (const f of fs.readdirSync(DATA_DIR).filter((n) => /^[0-9a-f-]{36}\.json$/.test(n)).sort()) {
    const e = JSON.parse(fs.readFileSync(path.join(DATA_DIR, f), "utf8")).Event;
    for (const a of e.Attribute) {
      out.push({
        id: a.uuid,
        source: {
          uuid: a.uuid,
          event_uuid: e.uuid,
          type: a.type,
          category: a.category,
          value: a.value,
          "@timestamp": new Date(Number(a.timestamp) * 1000).toISOString(),
          event_distribution: 1,
        },
      });
      if (out.length === limit) return out;
    }
  }
  return out;
}

describe.skipIf(process.env.OPENSEARCH_CLUSTER_TEST !== "1")("OpenSearchSearchIndex on a 3-node cluster", () => {
  let runDir = "";
  const prefix = `wbc-${crypto.randomUUID().slice(0, 8)}-`;
  let urls: string[] = [];
  let idx: OpenSearchSearchIndex;

  beforeAll(async () => {
    runDir = fs.mkdtempSync(path.join(os.tmpdir(), "wb-os-cluster-"));
    const { stdout } = await run("bash", [path.join(REPO, "test/opensearch/start.sh"), "--nodes", "3", "--port", String(PORT), "--dir", runDir], {
      timeout: 400_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    urls = stdout.trim().split("\n").at(-1)!.split(",");
    expect(urls).toHaveLength(3);
    idx = new OpenSearchSearchIndex(urls, { prefix, replicas: 1, shards: 3, requestTimeoutMs: 60_000, maxRetries: 5 });
    await idx.ensureIndices();
    await idx.client.cluster.health({ index: `${prefix}*`, wait_for_status: "green", timeout: "60s" });
  }, 420_000);

  afterAll(async () => {
    await idx?.close().catch(() => undefined);
    if (!runDir) return;
    const shadows = fs
      .readdirSync(runDir)
      .map((n) => path.join(runDir, n))
      .filter((p) => fs.lstatSync(p).isSymbolicLink())
      .map((p) => fs.realpathSync(p));
    await run("bash", [path.join(REPO, "test/opensearch/stop.sh"), "--dir", runDir], { timeout: 120_000 });
    for (const p of [runDir, ...shadows]) fs.rmSync(p, { recursive: true, force: true });
    // start.sh puts the nodes of an unreachable run dir under one directory per run dir.
    for (const parent of new Set(shadows.map((p) => path.dirname(p)))) fs.rmSync(parent, { recursive: true, force: true });
  }, 180_000);

  it("keeps every acknowledged write searchable when a node dies mid-run", async () => {
    const docs = feedAttributes(4000);
    const batch = 200;
    const acknowledged: string[] = [];
    const failedBatches: string[] = [];
    // The node holding the first primary of the attributes index (the write path that breaks).
    const shards = await idx.client.cat.shards({ index: idx.indexName("svc-attributes"), format: "json" });
    const primaryNode = (shards.body as Array<{ prirep: string; node: string }>).find((s) => s.prirep === "p")!.node;
    const victim = Number(/node-(\d+)/.exec(primaryNode)![1]);
    const victimPid = Number(fs.readFileSync(path.join(runDir, `node-${victim}.pid`), "utf8").trim());
    let killed = false;

    for (let i = 0; i < docs.length; i += batch) {
      if (!killed && i >= docs.length / 2) {
        // SIGKILL the node's process group (setsid made the node its own group leader).
        process.kill(-victimPid, "SIGKILL");
        killed = true;
      }
      const chunk = docs.slice(i, i + batch);
      try {
        // The first half waits for both copies; after the kill one active copy is enough.
        if (!killed) {
          const body = chunk.flatMap((d) => [{ index: { _index: idx.indexName("svc-attributes"), _id: d.id } }, d.source]);
          const res = await idx.client.bulk({ body, wait_for_active_shards: "all" });
          expect(res.body.errors).toBe(false);
        } else {
          await idx.bulkIndex("svc-attributes", chunk);
        }
        acknowledged.push(...chunk.map((d) => d.id));
      } catch (err) {
        failedBatches.push(`${i}: ${(err as Error).message}`);
      }
    }
    expect(killed).toBe(true);
    console.log(`cluster: killed node-${victim} (pid ${victimPid}); acknowledged ${acknowledged.length}/${docs.length}; failed batches: ${failedBatches.length}`, failedBatches.slice(0, 3));
    expect(acknowledged.length).toBeGreaterThanOrEqual(docs.length / 2);

    await idx.client.cluster.health({ index: idx.indexName("svc-attributes"), wait_for_status: "yellow", timeout: "60s" });
    await idx.refresh("svc-attributes");
    const res = await idx.search({
      index: "svc-attributes",
      query: parseLucene(""),
      defaultFields: ["value"],
      access: { admin: true, orgId: null },
      from: 0,
      size: 10_000,
      sort: { field: "@timestamp", order: "desc" },
      timeoutMs: 30_000,
    });
    const found = new Set(res.hits.map((h) => h.id));
    const missing = acknowledged.filter((id) => !found.has(id));
    expect(missing).toEqual([]);
    expect(res.total).toBeGreaterThanOrEqual(acknowledged.length);

    // A query through the remaining nodes works as before.
    const byType = await idx.search({
      index: "svc-attributes",
      query: parseLucene("type.keyword:ip\\-dst"),
      defaultFields: ["value"],
      access: { admin: true, orgId: null },
      from: 0,
      size: 1000,
      sort: { field: "@timestamp", order: "desc" },
      timeoutMs: 30_000,
    });
    const expectedIp = docs.filter((d) => found.has(d.id) && d.source.type === "ip-dst").length;
    expect(byType.total).toBe(expectedIp);
    const health = await idx.client.cluster.health({});
    expect(health.body.number_of_nodes).toBe(2);
  }, 300_000);
});
