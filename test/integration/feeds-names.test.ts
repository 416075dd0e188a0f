/**
 * Names on the wire (issue 21): MISP's feed format is `sharing` in every answer (REST and GraphQL:
 * uploads, feed records, updates), the peer's `misp` is still taken in requests, and feeds stored
 * as `misp` before are answered (and ingested) as `sharing` once migrated. A local feed's
 * settings.localFile is its upload's own file name and byte size, whatever the client sends.
 */
import fs from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { zip } from "../support/archives.ts";
import { loginAdmin, type TestUser } from "../support/fixtures.ts";
import { eventually } from "../support/process.ts";
import { sharedPath } from "../support/shared-data.ts";

const MIGRATION = fileURLToPath(new URL("../../prisma/migrations/20261126020000_feed_format_sharing/migration.sql", import.meta.url));
const EVENT_FILE = "dad88707-beb8-4a14-94e2-5ffecf5a5f85.json";

let app: TestApp;
let admin: TestUser;

const q = (sql: string, params: unknown[] = []) => app.booted.ctx.db.pool.query(sql, params);

/** A one-event MISP feed archive built from the real sample. */
function archive(): Buffer {
  const json = fs.readFileSync(sharedPath("misp-feed-sample", EVENT_FILE), "utf8");
  const event = JSON.parse(json).Event;
  const manifest = { [event.uuid]: { info: event.info, date: event.date, timestamp: Number(event.timestamp) } };
  return zip([{ name: "manifest.json", data: JSON.stringify(manifest) }, { name: `${event.uuid}.json`, data: json }]);
}

async function upload(filename: string, content: Buffer | string, format: string): Promise<{ status: number; body: any }> {
  const form = new FormData();
  form.append("source_format", format);
  form.append("file", new Blob([typeof content === "string" ? content : new Uint8Array(content)]), filename);
  const res = await fetch(`${app.url}/feeds/upload`, { method: "POST", headers: { authorization: `Bearer ${admin.token}` }, body: form });
  return { status: res.status, body: await res.json() };
}

async function gqlUpload(filename: string, content: Buffer, sourceFormat: string): Promise<any> {
  const form = new FormData();
  form.append("operations", JSON.stringify({ query: "mutation($f: Upload!, $s: String!) { uploadFeedFile(file: $f, sourceFormat: $s) { key filename size sourceFormat } }", variables: { f: null, s: sourceFormat } }));
  form.append("map", JSON.stringify({ "0": ["variables.f"] }));
  form.append("0", new Blob([new Uint8Array(content)]), filename);
  const res = await fetch(`${app.url}/graphql`, { method: "POST", headers: { authorization: `Bearer ${admin.token}` }, body: form });
  const body = (await res.json()) as any;
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  return body.data.uploadFeedFile;
}

async function createFeed(body: Record<string, unknown>): Promise<{ status: number; body: any; text: string }> {
  return app.http.post("/feeds/", { token: admin.token, json: { provider: "names", input_source: "local", ...body } });
}

async function finished(runId: string): Promise<Record<string, any>> {
  return eventually(async () => {
    const r = await app.http.get(`/tasks/${runId}`, { token: admin.token });
    return ["succeeded", "failed"].includes(r.body.status) ? r.body : undefined;
  }, `run ${runId}`, 60_000, 100);
}

const FEED_FIELDS = "id sourceFormat settings";

beforeAll(async () => {
  app = await startTestApp("feeds_names", { ROLE: "all" });
  admin = await loginAdmin(app);
}, 60_000);
afterAll(async () => {
  await app?.close();
});

describe("source_format sharing, and misp as its alias", () => {
  it("REST: an upload sent as sharing or misp is answered and recorded as sharing", async () => {
    for (const format of ["sharing", "misp"]) {
      const up = await upload(`${format}.zip`, archive(), format);
      expect(up.status, JSON.stringify(up.body)).toBe(200);
      expect(up.body.source_format, format).toBe("sharing");
      expect((await q("SELECT source_format FROM feed_uploads WHERE key = $1", [up.body.key])).rows).toEqual([{ source_format: "sharing" }]);
    }
  });

  it("REST: a feed created or changed with sharing or misp is sharing in every answer, and ingests as a MISP feed", async () => {
    for (const format of ["sharing", "misp"]) {
      const up = await upload(`create-${format}.zip`, archive(), "sharing");
      const created = await createFeed({ name: `created as ${format}`, url: up.body.key, source_format: format });
      expect(created.status, created.text).toBe(201);
      expect(created.body.source_format).toBe("sharing");
      const run = await finished(created.body.ingestion.id);
      expect(run.status, run.last_error).toBe("succeeded");
      expect(run.result).toMatchObject({ feed_id: created.body.id, rows: 1 });
      expect((await app.http.get(`/feeds/${created.body.id}`, { token: admin.token })).body.source_format).toBe("sharing");
      const listed = (await app.http.get("/feeds/?limit=1000", { token: admin.token })).body.find((f: { id: number }) => f.id === created.body.id);
      expect(listed.source_format).toBe("sharing");
      expect((await q("SELECT source_format FROM feeds WHERE id = $1", [created.body.id])).rows).toEqual([{ source_format: "sharing" }]);
      expect((await app.http.get(`/feeds/${created.body.id}/explore`, { token: admin.token })).status).toBe(200);
    }

    const network = await createFeed({ name: "network sharing", url: "https://feeds.example.org/sharing/", source_format: "sharing", input_source: "network" });
    expect(network.status, network.text).toBe(201);
    expect(network.body.source_format).toBe("sharing");
    const toCsv = await app.http.patch(`/feeds/${network.body.id}`, { token: admin.token, json: { source_format: "csv" } });
    expect(toCsv.body.source_format).toBe("csv");
    for (const format of ["misp", "sharing"]) {
      const patched = await app.http.patch(`/feeds/${network.body.id}`, { token: admin.token, json: { source_format: format } });
      expect(patched.status, patched.text).toBe(200);
      expect(patched.body.source_format, format).toBe("sharing");
    }
  });

  it("GraphQL: uploads, createFeed and updateFeed take sharing or misp and answer sharing", async () => {
    for (const format of ["sharing", "misp"]) {
      const up = await gqlUpload(`gql-${format}.zip`, archive(), format);
      expect(up.sourceFormat, format).toBe("sharing");
      const created = await app.http.graphql(
        `mutation($f: FeedFields!) { createFeed(feed: $f) { feed { ${FEED_FIELDS} } ingestion { id } } }`,
        { f: { name: `gql ${format}`, provider: "p", url: up.key, sourceFormat: format.toUpperCase(), inputSource: "LOCAL" } },
        admin.token,
      );
      expect(created.body.errors, JSON.stringify(created.body.errors)).toBeUndefined();
      expect(created.body.data.createFeed.feed.sourceFormat).toBe("SHARING");
      expect((await finished(created.body.data.createFeed.ingestion.id)).status).toBe("succeeded");
      const id = created.body.data.createFeed.feed.id;
      const read = await app.http.graphql(`query($id: Int!) { feed(id: $id) { sourceFormat } feeds(size: 100) { items { id sourceFormat } } }`, { id }, admin.token);
      expect(read.body.data.feed.sourceFormat).toBe("SHARING");
      expect(read.body.data.feeds.items.find((f: { id: number }) => f.id === id).sourceFormat).toBe("SHARING");
    }
    // An enum literal in the document as well as a variable.
    const network = await app.http.graphql(
      `mutation { createFeed(feed: { name: "gql network", provider: "p", url: "https://feeds.example.org/gql/", sourceFormat: MISP, inputSource: NETWORK }) { feed { id sourceFormat } } }`,
      {},
      admin.token,
    );
    expect(network.body.errors, JSON.stringify(network.body.errors)).toBeUndefined();
    expect(network.body.data.createFeed.feed.sourceFormat).toBe("SHARING");
    const id = network.body.data.createFeed.feed.id;
    await app.http.graphql(`mutation($id: Int!) { updateFeed(id: $id, feed: { sourceFormat: CSV }) { id } }`, { id }, admin.token);
    const updated = await app.http.graphql(`mutation($id: Int!) { updateFeed(id: $id, feed: { sourceFormat: MISP }) { sourceFormat } }`, { id }, admin.token);
    expect(updated.body.errors, JSON.stringify(updated.body.errors)).toBeUndefined();
    expect(updated.body.data.updateFeed.sourceFormat).toBe("SHARING");
  });

  it("the OpenAPI document lists sharing (and the misp alias) for source_format", async () => {
    const doc = (await app.http.get("/openapi.json")).body;
    for (const [route, method] of [["/feeds/", "post"], ["/feeds/{feed_id}", "patch"]] as const) {
      const schema = doc.paths[route][method].requestBody.content["application/json"].schema;
      expect(schema.properties.source_format.enum, `${method} ${route}`).toEqual(expect.arrayContaining(["csv", "json", "freetext", "sharing", "misp"]));
    }
  });
});

describe("feeds stored as misp before", () => {
  it("the migration rewrites them to sharing: answered sharing, still ingested and explored as MISP feeds, and misp cannot be stored again", async () => {
    const up = await upload("legacy.zip", archive(), "sharing");
    expect(up.status).toBe(200);
    // The data as it was before the migration: its check, and misp rows in both tables.
    await q(`ALTER TABLE feeds DROP CONSTRAINT feeds_source_format_check;
             UPDATE feeds SET source_format = 'misp' WHERE source_format = 'sharing';
             ALTER TABLE feeds ADD CONSTRAINT feeds_source_format_check CHECK (source_format IN ('misp', 'csv', 'json', 'freetext'))`);
    await q("UPDATE feed_uploads SET source_format = 'misp' WHERE key = $1", [up.body.key]);
    const { rows } = await q(
      "INSERT INTO feeds (name, provider, url, source_format, input_source, org_id, created_by, tags) VALUES ('legacy', 'p', $1, 'misp', 'local', $2, $3, '{}') RETURNING id",
      [up.body.key, admin.orgId, admin.id],
    );
    const id = rows[0].id as number;

    await q(fs.readFileSync(MIGRATION, "utf8"));

    expect((await q("SELECT count(*)::int AS n FROM feeds WHERE source_format = 'misp'")).rows[0].n).toBe(0);
    expect((await q("SELECT source_format FROM feed_uploads WHERE key = $1", [up.body.key])).rows).toEqual([{ source_format: "sharing" }]);
    expect((await app.http.get(`/feeds/${id}`, { token: admin.token })).body.source_format).toBe("sharing");
    expect((await app.http.graphql(`query($id: Int!) { feed(id: $id) { sourceFormat } }`, { id }, admin.token)).body.data.feed.sourceFormat).toBe("SHARING");
    expect((await app.http.get(`/feeds/${id}/explore`, { token: admin.token })).body).toMatchObject({ total: 1 });
    const fetched = await app.http.post(`/feeds/${id}/fetch`, { token: admin.token });
    const run = await finished(fetched.body.task.id);
    expect(run.status, run.last_error).toBe("succeeded");
    expect(run.result).toMatchObject({ feed_id: id, rows: 1 });
    await expect(q("UPDATE feeds SET source_format = 'misp' WHERE id = $1", [id])).rejects.toThrow(/feeds_source_format_check/);

    // An upload recorded without its name (the feed_uploads migration, when the feed had no localFile): the settings' value stays.
    await q("UPDATE feed_uploads SET filename = '', size = 0 WHERE key = $1", [up.body.key]);
    await q(`UPDATE feeds SET settings = '{"localFile": {"filename": "legacy.zip", "size": 7}}' WHERE id = $1`, [id]);
    const renamed = await app.http.patch(`/feeds/${id}`, { token: admin.token, json: { name: "legacy renamed", source_format: "misp" } });
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.body).toMatchObject({ source_format: "sharing", settings: { localFile: { filename: "legacy.zip", size: 7 } } });
  });
});

describe("settings.localFile", () => {
  const csv = "# indicateurs: café ☕\n198.51.100.1\n198.51.100.2\n";
  const csvName = "indicateurs-été.csv";

  it("is the upload's file name and byte size on creation, whatever the client sends (REST and GraphQL)", async () => {
    const up = await upload(csvName, csv, "csv");
    expect(up.status, JSON.stringify(up.body)).toBe(200);
    expect(up.body).toMatchObject({ filename: csvName, size: Buffer.byteLength(csv) });
    const expected = { filename: csvName, size: Buffer.byteLength(csv) };

    const plain = await createFeed({ name: "no localFile sent", url: up.body.key, source_format: "csv" });
    expect(plain.status, plain.text).toBe(201);
    expect(plain.body.settings).toEqual({ localFile: expected });
    const lying = await createFeed({ name: "a wrong localFile sent", url: up.body.key, source_format: "csv", settings: { csvConfig: { delimiter: ";" }, localFile: { filename: "other.csv", size: 1 } } });
    expect(lying.status, lying.text).toBe(201);
    expect(lying.body.settings.localFile).toEqual(expected);
    expect(lying.body.settings.csvConfig).toMatchObject({ delimiter: ";" });
    expect((await app.http.get(`/feeds/${lying.body.id}`, { token: admin.token })).body.settings.localFile).toEqual(expected);

    const bytes = archive();
    const shared = await upload("feed.zip", bytes, "misp");
    const sharing = await createFeed({ name: "archive", url: shared.body.key, source_format: "sharing" });
    expect(sharing.body.settings).toEqual({ localFile: { filename: "feed.zip", size: bytes.length } });

    const gqlUp = await gqlUpload("gql-feed.zip", bytes, "sharing");
    const gql = await app.http.graphql(
      `mutation($f: FeedFields!) { createFeed(feed: $f) { feed { ${FEED_FIELDS} } } }`,
      { f: { name: "gql localFile", provider: "p", url: gqlUp.key, sourceFormat: "SHARING", inputSource: "LOCAL", settings: { localFile: { filename: "x", size: 0 } } } },
      admin.token,
    );
    expect(gql.body.errors, JSON.stringify(gql.body.errors)).toBeUndefined();
    expect(gql.body.data.createFeed.feed.settings).toEqual({ localFile: { filename: "gql-feed.zip", size: bytes.length } });
  });

  it("follows the file when an update replaces it, and a client's value never replaces the upload's", async () => {
    const first = await upload("first.csv", "198.51.100.10\n", "csv");
    const feed = (await createFeed({ name: "replaced", url: first.body.key, source_format: "csv", settings: { csvConfig: { delimiter: "," } } })).body;
    expect(feed.settings.localFile).toEqual({ filename: "first.csv", size: 14 });

    const content = "198.51.100.11\n198.51.100.12\n# ünïcödé\n";
    const second = await upload("second-ß.txt", content, "csv");
    const replaced = await app.http.patch(`/feeds/${feed.id}`, { token: admin.token, json: { url: second.body.key } });
    expect(replaced.status, replaced.text).toBe(200);
    expect(replaced.body.settings).toEqual({ csvConfig: { delimiter: ",", header: false }, localFile: { filename: "second-ß.txt", size: Buffer.byteLength(content) } });

    // New settings without localFile, or with a wrong one: the upload's stays.
    const resettled = await app.http.patch(`/feeds/${feed.id}`, { token: admin.token, json: { settings: { csvConfig: { delimiter: ";" } } } });
    expect(resettled.body.settings.localFile).toEqual({ filename: "second-ß.txt", size: Buffer.byteLength(content) });
    const lying = await app.http.patch(`/feeds/${feed.id}`, { token: admin.token, json: { settings: { localFile: { filename: "evil.csv", size: 999 } } } });
    expect(lying.status, lying.text).toBe(200);
    expect(lying.body.settings).toEqual({ localFile: { filename: "second-ß.txt", size: Buffer.byteLength(content) } });

    // GraphQL's updateFeed replaces the file the same way.
    const third = await upload("third.csv", "198.51.100.13\n198.51.100.14\n", "csv");
    const gql = await app.http.graphql(`mutation($id: Int!, $u: String!) { updateFeed(id: $id, feed: { url: $u, settings: { localFile: { filename: "x.csv", size: 1 } } }) { settings } }`, { id: feed.id, u: third.body.key }, admin.token);
    expect(gql.body.errors, JSON.stringify(gql.body.errors)).toBeUndefined();
    expect(gql.body.data.updateFeed.settings).toEqual({ localFile: { filename: "third.csv", size: 28 } });
    expect((await app.http.get(`/feeds/${feed.id}`, { token: admin.token })).body.settings.localFile).toEqual({ filename: "third.csv", size: 28 });
  });

  it("a network feed has no local file: a client's localFile is not kept", async () => {
    const network = await createFeed({ name: "network", url: "https://feeds.example.org/list.csv", source_format: "csv", input_source: "network", settings: { csvConfig: { delimiter: "," }, localFile: { filename: "x.csv", size: 3 } } });
    expect(network.status, network.text).toBe(201);
    expect(network.body.settings).toEqual({ csvConfig: { delimiter: ",", header: false } });
  });
});

