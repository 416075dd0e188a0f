/**
 * The indexer's guarantees: writes never wait for the search backend, indexing catches up when an
 * unreachable OpenSearch returns, and `npm run reindex` rebuilds an index from PostgreSQL (`--compact`:
 * the PostgreSQL backend's B-tree indexes).
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { loginAdmin, type TestUser } from "../support/fixtures.ts";
import { eventually } from "../support/process.ts";
import { sharedPath } from "../support/shared-data.ts";
import { TcpProxy } from "../support/tcp-proxy.ts";
import { settled } from "../support/settled.ts";
import { OPENSEARCH, opensearchPrefix, SEARCH_BACKENDS } from "../support/search-backends.ts";

const run = promisify(execFile);
const VOLTA = "0dbb179a-1c8c-4e7c-a264-2440414dbac8";

describe.each(SEARCH_BACKENDS)("reindex command on $name", ({ env }) => {
  let app: TestApp;
  let admin: TestUser;
  let vars: Record<string, string>;
  const total = async (q: string) => (await app.http.get(`/attributes/search?query=${encodeURIComponent(q)}`, { token: admin.token })).body.total;
  const reindex = (...args: string[]) =>
    run("node_modules/.bin/tsx", ["src/cli/reindex.ts", ...args], {
      // OPENSEARCH_URL of the test run must not leak into the PostgreSQL case.
      env: { ...process.env, OPENSEARCH_URL: "", OPENSEARCH_INDEX_PREFIX: "", ...vars, DATABASE_URL: app.databaseUrl, DATA_DIR: app.dataDir, LOG_LEVEL: "warn" },
    });

  beforeAll(async () => {
    vars = env();
    app = await startTestApp("search-reindex", { ROLE: "all", ...vars });
    admin = await loginAdmin(app);
    const doc = JSON.parse(fs.readFileSync(sharedPath("misp-feed-sample", `${VOLTA}.json`), "utf8"));
    expect((await app.http.post("/events/import", { token: admin.token, json: doc })).status).toBe(201);
    await settled(app);
  }, 120_000);
  afterAll(async () => {
    await app?.close();
  });

  it("rebuilds an emptied index from PostgreSQL, as a separate process", async () => {
    expect(await total(`event_uuid:${VOLTA}`)).toBe(23);
    await app.booted.ctx.search.clear("svc-attributes");
    await app.booted.ctx.search.refresh();
    expect(await total(`event_uuid:${VOLTA}`)).toBe(0);
    const { stdout } = await reindex("svc-attributes");
    expect(stdout).toMatch(/svc-attributes: rebuilt with \d+ documents/);
    await app.booted.ctx.search.refresh();
    expect(await total(`event_uuid:${VOLTA}`)).toBe(23);
    expect(await total("comalign.pro")).toBe(1);
  }, 60_000);

  it("--compact rebuilds the PostgreSQL backend's B-tree indexes now (OpenSearch: nothing to do); searches answer the same", async () => {
    const { stdout } = await reindex("--compact");
    if (app.booted.ctx.search.backend === "postgres") {
      expect(stdout).toMatch(/^search_postings_key_idx: [0-9.]+ MB -> [0-9.]+ MB \(\d+ entries\)$/m);
      expect(stdout).toMatch(/^search_documents_pkey: [0-9.]+ MB -> [0-9.]+ MB/m);
      const { rows } = await app.booted.ctx.db.pool.query<{ comment: string | null }>("SELECT obj_description('search_postings_key_idx'::regclass, 'pg_class') AS comment");
      expect(rows[0]!.comment).toMatch(/^compacted \S+ bytes_per_entry=[0-9.]+$/);
    } else {
      expect(stdout).toMatch(/nothing to compact/);
    }
    expect(await total(`event_uuid:${VOLTA}`)).toBe(23);
    expect(await total("comalign.pro")).toBe(1);
  }, 60_000);
});

// Before any configuration or backend is read: once, not per backend.
it("reindex refuses an unknown index name with a usage line", async () => {
  const err = await run("node_modules/.bin/tsx", ["src/cli/reindex.ts", "svc-nope"], { env: { ...process.env, OPENSEARCH_URL: "", DATABASE_URL: "" } }).then(
    () => null,
    (e: { code: number; stderr: string }) => e,
  );
  expect(err?.code).toBe(2);
  expect(err?.stderr).toMatch(/usage: npm run reindex/);
}, 30_000);

describe.skipIf(!OPENSEARCH)("OpenSearch outage", () => {
  let proxy: TcpProxy;
  let app: TestApp;
  let admin: TestUser;
  const searchValue = (value: string) => app.http.get(`/attributes/search?query=${encodeURIComponent(`value:"${value}"`)}`, { token: admin.token });

  beforeAll(async () => {
    const target = new URL(OPENSEARCH!);
    proxy = new TcpProxy({ host: target.hostname, port: Number(target.port) });
    await proxy.up();
    app = await startTestApp("search-outage", { ROLE: "all", OPENSEARCH_URL: proxy.url, OPENSEARCH_INDEX_PREFIX: opensearchPrefix() });
    admin = await loginAdmin(app);
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await proxy?.down();
  });

  it("writes succeed while OpenSearch is down, searches answer 503, and indexing catches up when it returns", async () => {
    const event = await app.http.post("/events/", { token: admin.token, json: { info: "written during an outage" } });
    expect(event.status).toBe(201);
    const before = await app.http.post("/attributes/", { token: admin.token, json: { event_uuid: event.body.uuid, type: "domain", value: "before-outage.example" } });
    await settled(app);
    expect((await searchValue("before-outage.example")).body.results[0]._id).toBe(before.body.uuid);

    await proxy.down();
    const during = await app.http.post("/attributes/", { token: admin.token, json: { event_uuid: event.body.uuid, type: "domain", value: "during-outage.example" } });
    expect(during.status).toBe(201);
    // The indexing job has met the outage and put itself back for later.
    await eventually(async () => {
      const { rows } = await app.booted.ctx.db.pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM graphile_worker._private_jobs WHERE (payload->>'retry')::int >= 2`,
      );
      return rows[0].n > 0;
    }, "indexing job retried", 20_000, 100);
    const down = await searchValue("during-outage.example");
    expect(down.status).toBe(503);
    expect(down.body.code).toBe("search_unavailable");
    expect((await app.http.get(`/attributes/${during.body.uuid}`, { token: admin.token })).status).toBe(200);

    await proxy.up();
    const found = await eventually(async () => {
      await app.booted.ctx.search.refresh().catch(() => undefined);
      const res = await searchValue("during-outage.example");
      return res.status === 200 && res.body.total === 1 ? res.body : null;
    }, "the attribute written during the outage becomes searchable", 45_000, 250);
    expect(found.results[0]._id).toBe(during.body.uuid);
    expect((await searchValue("before-outage.example")).body.total).toBe(1);
  }, 90_000);
});
