/**
 * Feeds between two organisations (issue 20, findings 1, 2, 3, 10 and 11), as the issue reproduced
 * them through the public API: organisation A (the site administrator's, with an org admin, a user
 * and a read-only user) and organisation B (the same three). Network feeds are real HTTP servers on
 * loopback; archives are built here from the real MISP feed sample.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAsPrincipal } from "../../src/auth/run-as.ts";
import { fetchFeedTask } from "../../src/modules/feeds/fetch-feed-task.ts";
import { feedUuids } from "../../src/modules/feeds/ingest/derived-uuids.ts";
import { wakeTicker } from "../../src/modules/tasks/task-queue.ts";
import { PRUNE_FEED_UPLOADS_TASK } from "../../src/platform/job-names.ts";
import { enqueueJob } from "../../src/platform/job-queue.ts";
import { findTaskRun, insertScheduledTask } from "../../src/modules/tasks/task-store.ts";
import { startTestApp, type TestApp } from "../support/app.ts";
import { tarGz, zip } from "../support/archives.ts";
import { createOrganisation, createUser, loginAdmin, type TestUser } from "../support/fixtures.ts";
import { eventually } from "../support/process.ts";
import { sharedPath } from "../support/shared-data.ts";
import { storedFiles } from "../support/storage.ts";

let app: TestApp;
let site: TestUser;
let orgB: number;
let adminA: TestUser, userA: TestUser, readA: TestUser;
let adminB: TestUser, userB: TestUser, readB: TestUser;

const q = (sql: string, params: unknown[] = []) => app.booted.ctx.db.pool.query(sql, params);
const SECRET = "Bearer s3cret-of-A";

/** A loopback HTTP server answering fixed routes, recording every request with its headers. */
interface Server {
  url: string;
  hits: { path: string; headers: http.IncomingHttpHeaders }[];
  close(): Promise<void>;
}

async function serve(routes: Record<string, (res: http.ServerResponse) => void>): Promise<Server> {
  const hits: Server["hits"] = [];
  const server = http.createServer((req, res) => {
    hits.push({ path: req.url ?? "", headers: req.headers });
    const route = routes[req.url ?? ""];
    if (route) route(res);
    else res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

const csv = (body: string) => (res: http.ServerResponse) => res.writeHead(200, { "content-type": "text/csv" }).end(body);
const VALUES = "198.51.100.11\n198.51.100.12\n198.51.100.13\n";

async function upload(token: string, filename: string, content: Buffer | string, format: string): Promise<{ status: number; body: any }> {
  const form = new FormData();
  form.append("source_format", format);
  form.append("file", new Blob([typeof content === "string" ? content : new Uint8Array(content)]), filename);
  const res = await fetch(`${app.url}/feeds/upload`, { method: "POST", headers: { authorization: `Bearer ${token}` }, body: form });
  return { status: res.status, body: await res.json() };
}

async function networkFeed(token: string, url: string, extra: Record<string, unknown> = {}): Promise<number> {
  const res = await app.http.post("/feeds/", { token, json: { name: `net-${crypto.randomBytes(3).toString("hex")}`, provider: "p", url, source_format: "csv", input_source: "network", ...extra } });
  if (res.status !== 201) throw new Error(`${res.status} ${res.text}`);
  return res.body.id;
}

async function finished(runId: string): Promise<Record<string, any>> {
  return eventually(async () => {
    const r = await app.http.get(`/tasks/${runId}`, { token: site.token });
    return ["succeeded", "failed"].includes(r.body.status) ? r.body : undefined;
  }, `run ${runId}`, 60_000, 100);
}

const fetchNow = async (id: number, token = adminA.token) => {
  const res = await app.http.post(`/feeds/${id}/fetch`, { token });
  if (res.status !== 200) throw new Error(`${res.status} ${res.text}`);
  return finished(res.body.task.id);
};

const allowLoopback = () => app.http.post("/settings/runtime/feeds", { token: site.token, json: { allowed_private_networks: ["127.0.0.1/32"], fetch_timeout_seconds: 10, max_download_bytes: 1 << 20 } });

const storageFiles = () => storedFiles(app.dataDir);

/** The uuids of the code before this change: sha1 of a public name, so anyone could compute them. */
function unkeyedUuid(name: string): string {
  const h = crypto.createHash("sha1").update(`workbench-feeds:${name}`).digest();
  h[6] = (h[6] & 0x0f) | 0x50;
  h[8] = (h[8] & 0x3f) | 0x80;
  const hex = h.subarray(0, 16).toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

async function importEvent(token: string, uuid: string, attributes: { uuid: string; value: string }[], info = "squatter"): Promise<void> {
  const res = await app.http.post("/events/import", {
    token,
    json: { Event: { uuid, info, Attribute: attributes.map((a) => ({ uuid: a.uuid, type: "ip-dst", category: "Network activity", value: a.value })) } },
  });
  if (res.status !== 201) throw new Error(`${res.status} ${res.text}`);
}

const eventValues = async (uuid: string) =>
  (await q("SELECT a.value, a.uuid::text, e.org_id FROM attributes a JOIN events e ON e.id = a.event_id WHERE e.uuid = $1 ORDER BY a.value", [uuid])).rows;

function sampleEvents(): { uuid: string; json: string; event: Record<string, any> }[] {
  const dir = sharedPath("misp-feed-sample");
  return fs
    .readdirSync(dir)
    .sort()
    .slice(0, 2)
    .map((name) => {
      const json = fs.readFileSync(path.join(dir, name), "utf8");
      const event = JSON.parse(json).Event;
      return { uuid: event.uuid, json, event };
    });
}

const manifestOf = (files: ReturnType<typeof sampleEvents>) => JSON.stringify(Object.fromEntries(files.map((f) => [f.uuid, { info: f.event.info, timestamp: Number(f.event.timestamp) }])));

beforeAll(async () => {
  app = await startTestApp("feeds-isolation", { ROLE: "all" });
  site = await loginAdmin(app);
  orgB = await createOrganisation(app, site, "Organisation B");
  [adminA, userA, readA] = await Promise.all([createUser(app, site, 2), createUser(app, site, 3), createUser(app, site, 4)]);
  [adminB, userB, readB] = await Promise.all([createUser(app, site, 2, orgB), createUser(app, site, 3, orgB), createUser(app, site, 4, orgB)]);
  expect((await allowLoopback()).status).toBe(200);
}, 60_000);
afterAll(async () => {
  await app?.close();
});

describe("a feed belongs to its organisation (finding 2)", () => {
  it("another organisation's read-only user, user and admin get 404 and lists without it, through REST and GraphQL; its own organisation and the site admin read it", async () => {
    const id = await networkFeed(adminA.token, "https://feeds.example.org/a.csv", { headers: { Authorization: SECRET } });
    for (const other of [readB, userB, adminB]) {
      expect((await app.http.get(`/feeds/${id}`, { token: other.token })).status).toBe(404);
      expect((await app.http.get("/feeds/?limit=1000", { token: other.token })).body.map((f: { id: number }) => f.id)).not.toContain(id);
      expect((await app.http.get(`/feeds/${id}/explore`, { token: other.token })).status).toBe(404);
      const gql = await app.http.graphql(`{ feed(id: ${id}) { id } feeds(size: 100) { items { id } } }`, {}, other.token);
      expect(gql.body.errors?.[0].extensions?.status).toBe(404);
      expect((await app.http.graphql(`{ feeds(size: 100) { items { id } } }`, {}, other.token)).body.data.feeds.items.map((f: { id: number }) => f.id)).not.toContain(id);
    }
    expect((await app.http.patch(`/feeds/${id}`, { token: adminB.token, json: { name: "mine" } })).status).toBe(404);
    expect((await app.http.post(`/feeds/${id}/fetch`, { token: adminB.token })).status).toBe(404);
    expect((await app.http.delete(`/feeds/${id}`, { token: adminB.token })).status).toBe(404);
    expect((await q("SELECT name FROM feeds WHERE id = $1", [id])).rows[0].name).toMatch(/^net-/);
    for (const reader of [readA, userA, adminA, site]) expect((await app.http.get(`/feeds/${id}`, { token: reader.token })).status).toBe(200);
  });
});

describe("headers are write-only (finding 2)", () => {
  it("no answer carries a header value, to anyone, the site administrator included; a PATCH sending the placeholder back keeps the stored value", async () => {
    const created = await app.http.post("/feeds/", {
      token: adminA.token,
      json: { name: "with credentials", provider: "p", url: "https://feeds.example.org/b.csv", source_format: "csv", input_source: "network", headers: { Authorization: SECRET, "X-Api-Key": "k3y-of-A" } },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.headers).toEqual({ Authorization: "********", "X-Api-Key": "********" });
    const id = created.body.id;
    for (const reader of [readA, userA, adminA, site]) {
      for (const res of [await app.http.get(`/feeds/${id}`, { token: reader.token }), await app.http.get("/feeds/?limit=1000", { token: reader.token }), await app.http.graphql(`{ feeds(size: 100) { items { id headers } } feed(id: ${id}) { headers } }`, {}, reader.token)]) {
        expect(res.status).toBe(200);
        expect(res.text).not.toContain("s3cret");
        expect(res.text).not.toContain("k3y");
      }
      expect((await app.http.get(`/feeds/${id}`, { token: reader.token })).body.headers).toEqual({ Authorization: "********", "X-Api-Key": "********" });
      expect((await app.http.graphql(`{ feed(id: ${id}) { headers } }`, {}, reader.token)).body.data.feed.headers).toEqual({ Authorization: "********", "X-Api-Key": "********" });
    }

    const patched = await app.http.patch(`/feeds/${id}`, { token: adminA.token, json: { headers: { authorization: "********", "X-Other": "v" } } });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.headers).toEqual({ authorization: "********", "X-Other": "********" });
    expect((await q("SELECT headers FROM feeds WHERE id = $1", [id])).rows[0].headers).toEqual({ authorization: SECRET, "X-Other": "v" });
    const renamed = await app.http.patch(`/feeds/${id}`, { token: adminA.token, json: { name: "renamed" } });
    expect((await q("SELECT headers FROM feeds WHERE id = $1", [id])).rows[0].headers).toEqual({ authorization: SECRET, "X-Other": "v" });
    expect(renamed.text).not.toContain("s3cret");

    const unknown = await app.http.patch(`/feeds/${id}`, { token: adminA.token, json: { headers: { "X-New": "********" } } });
    expect(unknown.status).toBe(422);
    expect(unknown.body.detail[0].loc).toEqual(["body", "headers", "X-New"]);
    const onCreate = await app.http.post("/feeds/", { token: adminA.token, json: { name: "x", provider: "p", url: "https://feeds.example.org/c.csv", source_format: "csv", input_source: "network", headers: { Authorization: "********" } } });
    expect(onCreate.status).toBe(422);
  });

  it("credentials go to the feed's own origin only: a same-origin redirect carries them, a redirect to another host does not", async () => {
    const other = await serve({ "/list.csv": csv(VALUES) });
    const origin = await serve({
      "/same": (res) => res.writeHead(302, { location: "/list.csv" }).end(),
      "/away": (res) => res.writeHead(302, { location: `${other.url}/list.csv` }).end(),
      "/list.csv": csv(VALUES),
    });
    try {
      const headers = { Authorization: SECRET, Cookie: "session=of-A", "X-Api-Key": "k3y-of-A" };
      const same = await fetchNow(await networkFeed(adminA.token, `${origin.url}/same`, { headers }));
      expect(same.status, same.last_error).toBe("succeeded");
      const followed = origin.hits.find((h) => h.path === "/list.csv")!;
      expect(followed.headers).toMatchObject({ authorization: SECRET, cookie: "session=of-A", "x-api-key": "k3y-of-A" });

      const away = await fetchNow(await networkFeed(adminA.token, `${origin.url}/away`, { headers }));
      expect(away.status, away.last_error).toBe("succeeded");
      expect(away.result).toMatchObject({ attributes_created: 3 });
      expect(origin.hits.find((h) => h.path === "/away")!.headers.authorization).toBe(SECRET);
      expect(other.hits).toHaveLength(1);
      expect(other.hits[0].headers.authorization).toBeUndefined();
      expect(other.hits[0].headers.cookie).toBeUndefined();
      expect(other.hits[0].headers["x-api-key"]).toBeUndefined();
    } finally {
      await origin.close();
      await other.close();
    }
  });
});

describe("uploads belong to the uploader's organisation (finding 2)", () => {
  it("another organisation's key is 404 in previews (REST and GraphQL), feed creation and update, and is never listed to it; the owner's organisation uses it", async () => {
    const mine = await upload(adminA.token, "a.csv", "198.51.100.20\n", "csv");
    expect(mine.status).toBe(200);
    const key = mine.body.key;
    await app.http.post("/feeds/", { token: adminA.token, json: { name: "A's upload", provider: "p", url: key, source_format: "csv", input_source: "local" } });

    const preview = await app.http.post("/feeds/csv/preview", { token: adminB.token, json: { input_source: "local", url: key } });
    expect(preview.status, preview.text).toBe(404);
    expect(preview.body).toMatchObject({ code: "not_found", detail: "Upload not found" });
    const gql = await app.http.graphql(`query($u: String!) { feedPreview(format: CSV, inputSource: LOCAL, url: $u) { value } }`, { u: key }, adminB.token);
    expect(gql.body.errors?.[0].extensions?.status).toBe(404);
    const create = await app.http.post("/feeds/", { token: adminB.token, json: { name: "stolen", provider: "p", url: key, source_format: "csv", input_source: "local" } });
    expect(create.status, create.text).toBe(404);
    expect((await q("SELECT count(*)::int AS n FROM feeds WHERE url = $1 AND org_id = $2", [key, orgB])).rows[0].n).toBe(0);

    const own = await upload(adminB.token, "b.csv", "198.51.100.21\n", "csv");
    const ownFeed = await app.http.post("/feeds/", { token: adminB.token, json: { name: "B's", provider: "p", url: own.body.key, source_format: "csv", input_source: "local" } });
    expect(ownFeed.status).toBe(201);
    const swap = await app.http.patch(`/feeds/${ownFeed.body.id}`, { token: adminB.token, json: { url: key } });
    expect(swap.status, swap.text).toBe(404);
    expect((await q("SELECT url FROM feeds WHERE id = $1", [ownFeed.body.id])).rows[0].url).toBe(own.body.key);
    const listed = await app.http.get("/feeds/?limit=1000", { token: adminB.token });
    expect(listed.text).not.toContain(key);

    for (const token of [adminA.token, site.token]) {
      const ok = await app.http.post("/feeds/csv/preview", { token, json: { input_source: "local", url: key } });
      expect(ok.status, ok.text).toBe(200);
      expect(ok.body.preview).toEqual([{ where: "line 1", value: "198.51.100.20", type: "ip-dst" }]);
    }
  });

  it("a feed set up before uploads were recorded, on another organisation's upload, cannot read it", async () => {
    const theirs = await upload(adminA.token, "c.csv", "198.51.100.22\n", "csv");
    const { rows } = await q(
      "INSERT INTO feeds (name, provider, url, source_format, input_source, org_id, created_by, tags) VALUES ('legacy', 'p', $1, 'csv', 'local', $2, $3, '{}') RETURNING id",
      [theirs.body.key, orgB, adminB.id],
    );
    const run = await fetchNow(rows[0].id, adminB.token);
    expect(run).toMatchObject({ status: "failed", last_error: expect.stringContaining("not one of this feed's organisation") });
    expect((await q("SELECT count(*)::int AS n FROM attributes WHERE value = '198.51.100.22'")).rows[0].n).toBe(0);
  });

  it("uploads no feed uses are removed a day after (storage and row); used, recent and unrecorded ones are kept until their day has passed", async () => {
    const files = sampleEvents();
    const used = (await upload(adminA.token, "used.csv", "198.51.100.23\n", "csv")).body.key;
    await app.http.post("/feeds/", { token: adminA.token, json: { name: "used", provider: "p", url: used, source_format: "csv", input_source: "local" } });
    const stale = (await upload(adminA.token, "stale.csv", "198.51.100.24\n", "csv")).body.key;
    const staleArchive = (await upload(adminA.token, "stale.zip", zip([{ name: "manifest.json", data: manifestOf(files) }, ...files.map((f) => ({ name: `${f.uuid}.json`, data: f.json }))]), "sharing")).body.key;
    const fresh = (await upload(adminA.token, "fresh.csv", "198.51.100.25\n", "csv")).body.key;
    // Stored before uploads were recorded: no row.
    const orphan = `feed-uploads/${crypto.randomUUID()}`;
    fs.writeFileSync(path.join(app.dataDir, "storage", orphan), "198.51.100.26\n");
    await q("UPDATE feed_uploads SET created_at = now() - interval '25 hours' WHERE key = ANY($1)", [[used, stale, staleArchive]]);
    expect(storageFiles().filter((f) => f.startsWith(`${staleArchive}/`))).toHaveLength(files.length + 1);

    const prune = async () => {
      const job = await enqueueJob(app.booted.ctx.db.pool, PRUNE_FEED_UPLOADS_TASK, {});
      await eventually(async () => ((await q("SELECT 1 FROM graphile_worker._private_jobs WHERE id = $1", [job])).rowCount === 0 ? true : undefined), "prune_feed_uploads", 30_000, 100);
    };
    await prune();
    const stored = storageFiles();
    const keys = (await q("SELECT key, org_id FROM feed_uploads WHERE key = ANY($1)", [[used, stale, staleArchive, fresh, orphan]])).rows;
    expect(stored.filter((f) => f.startsWith(stale) || f.startsWith(staleArchive))).toEqual([]);
    expect(stored).toEqual(expect.arrayContaining([used, fresh, orphan]));
    expect(keys.map((k) => k.key).sort()).toEqual([used, fresh, orphan].sort());
    expect(keys.find((k) => k.key === orphan)!.org_id).toBeNull();

    await q("UPDATE feed_uploads SET created_at = now() - interval '25 hours' WHERE key = $1", [orphan]);
    await prune();
    expect(storageFiles()).not.toContain(orphan);
    expect(storageFiles()).toEqual(expect.arrayContaining([used, fresh]));
    expect((await q("SELECT count(*)::int AS n FROM feed_uploads WHERE key = $1", [orphan])).rows[0].n).toBe(0);
  });
});

describe("derived uuids (finding 3)", () => {
  let server: Server;
  beforeAll(async () => {
    server = await serve({ "/values.csv": csv(VALUES) });
  });
  afterAll(() => server.close());

  it("another organisation's user who takes the uuids a feed would have derived (event and attribute) makes no fetch fail and no value disappear", async () => {
    const eventSquatted = await networkFeed(adminA.token, `${server.url}/values.csv`);
    await importEvent(userB.token, unkeyedUuid(`feed-event:${eventSquatted}`), [{ uuid: unkeyedUuid(`feed-attribute:${eventSquatted}:ip-dst:198.51.100.11`), value: "203.0.113.99" }]);
    const valueSquatted = await networkFeed(adminA.token, `${server.url}/values.csv`);
    await importEvent(userB.token, crypto.randomUUID(), [{ uuid: unkeyedUuid(`feed-attribute:${valueSquatted}:ip-dst:198.51.100.12`), value: "203.0.113.98" }]);

    for (const id of [eventSquatted, valueSquatted]) {
      const run = await fetchNow(id);
      expect(run.status, run.last_error).toBe("succeeded");
      expect(run.result).toMatchObject({ rows: 3, attributes_created: 3, rejected: 0 });
      const values = await eventValues(run.result.event_uuid);
      expect(values.map((v) => v.value)).toEqual(["198.51.100.11", "198.51.100.12", "198.51.100.13"]);
      expect(values.every((v) => v.org_id === adminA.orgId)).toBe(true);
      expect((await fetchNow(id)).result).toMatchObject({ attributes_created: 0, attributes_unchanged: 3 });
    }
    // The squatter's event is as it was.
    expect((await eventValues(unkeyedUuid(`feed-event:${eventSquatted}`))).map((v) => [v.value, v.org_id])).toEqual([["203.0.113.99", orgB]]);
  });

  it("even with the instance's secret known, a taken event or attribute uuid gives the feed a new event or the next uuid, and the next fetch finds them", async () => {
    const id = await networkFeed(adminA.token, `${server.url}/values.csv`);
    const uuids = await feedUuids(app.booted.ctx.db.pool);
    await importEvent(userB.token, uuids.derive(`feed-event:${id}`), [{ uuid: uuids.derive(`feed-attribute:${id}:ip-dst:198.51.100.11`), value: "203.0.113.97" }]);
    const run = await fetchNow(id);
    expect(run.status, run.last_error).toBe("succeeded");
    expect(run.result).toMatchObject({ attributes_created: 3, rejected: 0, notes: [expect.stringContaining("belongs to another organisation")] });
    expect(run.result.event_uuid).not.toBe(uuids.derive(`feed-event:${id}`));
    expect((await app.http.get(`/feeds/${id}`, { token: adminA.token })).body.event_uuid).toBe(run.result.event_uuid);
    const values = await eventValues(run.result.event_uuid);
    expect(values.map((v) => v.value)).toEqual(["198.51.100.11", "198.51.100.12", "198.51.100.13"]);
    expect(values[0].uuid).toBe(uuids.derive(`feed-attribute:${id}:ip-dst:198.51.100.11#1`));
    const again = await fetchNow(id);
    expect(again.result).toMatchObject({ event_uuid: run.result.event_uuid, attributes_created: 0, attributes_unchanged: 3 });
    expect(again.result.notes).toBeUndefined();
  });

  it("a feed that ingested before uuids were keyed keeps its event and recognises its values", async () => {
    const id = await networkFeed(adminA.token, `${server.url}/values.csv`);
    const legacyEvent = unkeyedUuid(`feed-event:${id}`);
    await importEvent(adminA.token, legacyEvent, ["198.51.100.11", "198.51.100.12"].map((v) => ({ uuid: unkeyedUuid(`feed-attribute:${id}:ip-dst:${v}`), value: v })), "CSV Feed Import: before");
    const run = await fetchNow(id);
    expect(run.status, run.last_error).toBe("succeeded");
    expect(run.result).toMatchObject({ event_uuid: legacyEvent, attributes_created: 1, attributes_unchanged: 2 });
    expect((await eventValues(legacyEvent)).map((v) => v.value)).toEqual(["198.51.100.11", "198.51.100.12", "198.51.100.13"]);
    expect((await q("SELECT event_uuid::text FROM feeds WHERE id = $1", [id])).rows[0].event_uuid).toBe(legacyEvent);
  });
});

describe("fetch_feed as a task (finding 1)", () => {
  let server: Server;
  beforeAll(async () => {
    server = await serve({ "/task.csv": csv("198.51.100.31\n") });
  });
  afterAll(() => server.close());
  const eventsOf = async (orgId: number) => (await q("SELECT count(*)::int AS n FROM events WHERE org_id = $1", [orgId])).rows[0].n;

  it("another organisation's admin can neither schedule nor run a fetch of the feed: nothing reaches its server, nothing is written", async () => {
    const id = await networkFeed(adminA.token, `${server.url}/task.csv`, { headers: { Authorization: SECRET } });
    const before = await eventsOf(orgB);
    const scheduled = await app.http.post("/tasks/schedule", {
      token: adminB.token,
      json: { name: "steal", task: "fetch_feed", schedule_type: "interval", interval: { every: 1, period: "days" }, kwargs: { feed_id: id } },
    });
    expect(scheduled.status, scheduled.text).toBe(422);
    expect(scheduled.body.detail[0].loc).toEqual(["body", "kwargs", "feed_id"]);

    // A schedule stored before targets were checked, run now.
    const stored = await insertScheduledTask(app.booted.ctx.db.pool, {
      name: "stored", task: "fetch_feed", args: [], kwargs: { feed_id: id }, schedule: { type: "interval", every: 1, period: "days" }, enabled: false, ownerId: adminB.id, grantScopes: ["*"], nextRunAt: null,
    });
    const runNow = await app.http.post(`/tasks/scheduled/${stored.id}/run`, { token: adminB.token });
    if (runNow.status === 200) expect((await finished(runNow.body.id)).status).toBe("failed");
    else expect(runNow.status).toBe(422);
    expect(server.hits).toEqual([]);
    expect(await eventsOf(orgB)).toBe(before);
  });

  it("a run whose target became foreign fails: its owner moved to another organisation after scheduling", async () => {
    const id = await networkFeed(adminA.token, `${server.url}/task.csv`);
    const mover = await createUser(app, site, 2);
    const scheduled = await app.http.post("/tasks/schedule", {
      token: mover.token,
      json: { name: "mine", task: "fetch_feed", schedule_type: "interval", interval: { every: 1, period: "days" }, kwargs: { feed_id: id } },
    });
    expect(scheduled.status, scheduled.text).toBe(201);
    expect((await app.http.patch(`/users/${mover.id}`, { token: site.token, json: { org_id: orgB } })).status).toBe(200);
    const before = await eventsOf(orgB);
    await q("UPDATE scheduled_tasks SET next_run_at = now() WHERE id = $1", [scheduled.body.id]);
    await wakeTicker(app.booted.ctx.db.pool);
    const run = await eventually(async () => {
      const { rows } = await q("SELECT id::text FROM task_runs WHERE scheduled_task_id = $1 AND status IN ('succeeded', 'failed')", [scheduled.body.id]);
      return rows[0] ? findTaskRun(app.booted.ctx.db.pool, rows[0].id) : undefined;
    }, "the scheduled run", 30_000, 100);
    expect(run.status).toBe("failed");
    expect(server.hits).toEqual([]);
    expect(await eventsOf(orgB)).toBe(before);

    // The task's own guard, as the run's principal now.
    const principal = (await runAsPrincipal(app.booted.ctx.db.pool, mover.id, ["*"]))!;
    const execution = fetchFeedTask.execute({ app: app.booted.ctx, services: app.booted.services, principal, run, log: app.booted.ctx.log, saveProgress: async () => undefined });
    await expect(execution).rejects.toMatchObject({ status: 404, message: "Feed not found" });
    expect(server.hits).toEqual([]);
  });
});

describe("bad feed input (finding 10)", () => {
  const BAD = ["http://[", "http://a:99999/", "http://%zz/", "ftp://feeds.example.org/x.csv", "http://user:pw@feeds.example.org/x.csv", "javascript:alert(1)", "http://feeds.example.org/a b"];

  it("URLs that cannot be fetched are 422 at creation, update and preview; one stored before is 422 in explore and fails its fetch with the reason", async () => {
    const id = await networkFeed(adminA.token, "https://feeds.example.org/ok.csv");
    for (const url of BAD) {
      const created = await app.http.post("/feeds/", { token: adminA.token, json: { name: "bad", provider: "p", url, source_format: "csv", input_source: "network" } });
      expect(created.status, `${url}: ${created.text}`).toBe(422);
      expect(created.body.detail[0].loc).toEqual(["body", "url"]);
      expect((await app.http.patch(`/feeds/${id}`, { token: adminA.token, json: { url } })).status, url).toBe(422);
      expect((await app.http.post("/feeds/csv/preview", { token: adminA.token, json: { input_source: "network", url } })).status, url).toBe(422);
      const gql = await app.http.graphql(`query($u: String!) { feedPreview(format: CSV, inputSource: NETWORK, url: $u) { value } }`, { u: url }, adminA.token);
      expect(gql.body.errors?.[0].extensions?.status, url).toBe(422);
    }
    const { rows } = await q(
      "INSERT INTO feeds (name, provider, url, source_format, input_source, org_id, created_by, tags) VALUES ('stored', 'p', 'http://[', 'sharing', 'network', $1, $2, '{}') RETURNING id",
      [adminA.orgId, adminA.id],
    );
    const explore = await app.http.get(`/feeds/${rows[0].id}/explore`, { token: adminA.token });
    expect(explore.status, explore.text).toBe(422);
    expect(await fetchNow(rows[0].id)).toMatchObject({ status: "failed", last_error: expect.stringContaining("not a valid URL") });
  });

  it("NUL characters and lone surrogates in csv, json and MISP feed content are rejected row by row with the reason, and the run succeeds", async () => {
    const ndjson = ['{"value":"198.51.100.41"}', '{"value":"198.51.100.42\\u0000"}', '{"value":"\\ud800evil.example.com"}', '{"value":"words\\udc00"}'].join("\n");
    const json = await upload(adminA.token, "nul.ndjson", ndjson, "json");
    const jsonFeed = (await app.http.post("/feeds/", { token: adminA.token, json: { name: "nul json", provider: "p", url: json.body.key, source_format: "json", input_source: "local", settings: { jsonConfig: { format: "ndjson", attribute: { type: { strategy: "fixed", value: "text" } } } } } })).body;
    const jsonRun = await finished(jsonFeed.ingestion.id);
    expect(jsonRun.status, jsonRun.last_error).toBe("succeeded");
    expect(jsonRun.result).toMatchObject({ rows: 4, attributes_created: 1, rejected: 3 });
    expect(jsonRun.result.rejections).toEqual([
      { where: "line 2", reason: "the value contains a NUL character" },
      { where: "line 3", reason: "the value contains an unpaired surrogate" },
      { where: "line 4", reason: "the value contains an unpaired surrogate" },
    ]);
    expect((await q("SELECT count(*)::int AS n FROM attributes WHERE value LIKE '%' || chr(65533) || '%'")).rows[0].n).toBe(0);

    // Past the first 8 KiB, which the upload's binary check reads.
    const raw = `${"# padding\n".repeat(1000)}198.51.100.43\n198.51.100.44\u0000\n`;
    const csvUpload = await upload(adminA.token, "nul.csv", raw, "csv");
    expect(csvUpload.status).toBe(200);
    const csvFeed = (await app.http.post("/feeds/", { token: adminA.token, json: { name: "nul csv", provider: "p", url: csvUpload.body.key, source_format: "csv", input_source: "local", settings: { csvConfig: { attribute: { value_column: 0, type: { strategy: "fixed", value: "ip-dst" } } } } } })).body;
    const csvRun = await finished(csvFeed.ingestion.id);
    expect(csvRun.status, csvRun.last_error).toBe("succeeded");
    expect(csvRun.result).toMatchObject({ rows: 2, attributes_created: 1, rejected: 1, rejections: [{ where: "line 1002", reason: "the value contains a NUL character" }] });

    const [file] = sampleEvents();
    const event = JSON.parse(file.json);
    event.Event.Attribute[0].value = `${event.Event.Attribute[0].value}\u0000`;
    const manifest = `{"\\u0000bad": {"timestamp": 1}, "\\udc00": {"timestamp": 1}, "${file.uuid}": {"timestamp": ${Number(file.event.timestamp)}}}`;
    await q("DELETE FROM events WHERE uuid = $1", [file.uuid]);
    const archive = await upload(adminA.token, "nul.zip", zip([{ name: "manifest.json", data: manifest }, { name: `${file.uuid}.json`, data: JSON.stringify(event) }]), "sharing");
    expect(archive.status, JSON.stringify(archive.body)).toBe(200);
    const mispFeed = (await app.http.post("/feeds/", { token: adminA.token, json: { name: "nul misp", provider: "p", url: archive.body.key, source_format: "misp", input_source: "local" } })).body;
    const mispRun = await finished(mispFeed.ingestion.id);
    expect(mispRun.status, mispRun.last_error).toBe("succeeded");
    expect(mispRun.result).toMatchObject({ rows: 3, events_created: 1, rejected: 3 });
    expect(mispRun.result.rejections.map((r: { where: string }) => r.where)).toEqual(["event \uFFFDbad", "event \uFFFD", expect.stringMatching(new RegExp(`^event ${file.uuid} body\\.Event\\.Attribute\\.0\\.value$`))]);
  });

  it("a zip bomb and a tar.gz bomb are refused with 413 while inflating: nothing stays in storage or in the temporary folder, no upload is recorded", async () => {
    const files = sampleEvents();
    const members = [{ name: "manifest.json", data: manifestOf(files) }, { name: `${files[0].uuid}.json`, data: files[0].json }, { name: `${files[1].uuid}.json`, data: Buffer.alloc(16 * 1024 * 1024) }];
    const bombs: [string, Buffer][] = [
      ["bomb.zip", zip(members.map((m) => ({ ...m, deflate: true })))],
      ["bomb.tar.gz", tarGz(members)],
    ];
    for (const [name, bomb] of bombs) {
      expect(bomb.length).toBeLessThan(200_000);
      const before = storageFiles();
      const uploads = (await q("SELECT count(*)::int AS n FROM feed_uploads")).rows[0].n;
      const res = await upload(adminA.token, name, bomb, "sharing");
      expect(res.status, `${name}: ${JSON.stringify(res.body)}`).toBe(413);
      expect(res.body).toMatchObject({ code: "payload_too_large", detail: expect.stringMatching(/100 times/) });
      expect(storageFiles()).toEqual(before);
      expect((await q("SELECT count(*)::int AS n FROM feed_uploads")).rows[0].n).toBe(uploads);
      expect(fs.readdirSync(path.join(app.dataDir, "tmp"))).toEqual([]);
    }
  });
});
