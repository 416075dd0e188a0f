/**
 * Names on the wire (issue 21): MISP's feed format is `sharing` in every answer (REST and GraphQL:
 * uploads, feed records, updates), the peer's `misp` is still taken in requests, and feeds stored
 * as `misp` before are answered (and ingested) as `sharing` once migrated.
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
        { f: { name: `gql ${format}`, provider: "p", url: up.key, sourceFormat: format, inputSource: "local" } },
        admin.token,
      );
      expect(created.body.errors, JSON.stringify(created.body.errors)).toBeUndefined();
      expect(created.body.data.createFeed.feed.sourceFormat).toBe("sharing");
      expect((await finished(created.body.data.createFeed.ingestion.id)).status).toBe("succeeded");
      const id = created.body.data.createFeed.feed.id;
      const read = await app.http.graphql(`query($id: Int!) { feed(id: $id) { sourceFormat } feeds(limit: 1000) { id sourceFormat } }`, { id }, admin.token);
      expect(read.body.data.feed.sourceFormat).toBe("sharing");
      expect(read.body.data.feeds.find((f: { id: number }) => f.id === id).sourceFormat).toBe("sharing");
    }
    // An enum literal in the document as well as a variable.
    const network = await app.http.graphql(
      `mutation { createFeed(feed: { name: "gql network", provider: "p", url: "https://feeds.example.org/gql/", sourceFormat: misp, inputSource: network }) { feed { id sourceFormat } } }`,
      {},
      admin.token,
    );
    expect(network.body.errors, JSON.stringify(network.body.errors)).toBeUndefined();
    expect(network.body.data.createFeed.feed.sourceFormat).toBe("sharing");
    const id = network.body.data.createFeed.feed.id;
    await app.http.graphql(`mutation($id: Int!) { updateFeed(id: $id, feed: { sourceFormat: csv }) { id } }`, { id }, admin.token);
    const updated = await app.http.graphql(`mutation($id: Int!) { updateFeed(id: $id, feed: { sourceFormat: misp }) { sourceFormat } }`, { id }, admin.token);
    expect(updated.body.errors, JSON.stringify(updated.body.errors)).toBeUndefined();
    expect(updated.body.data.updateFeed.sourceFormat).toBe("sharing");
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
    expect((await app.http.graphql(`query($id: Int!) { feed(id: $id) { sourceFormat } }`, { id }, admin.token)).body.data.feed.sourceFormat).toBe("sharing");
    expect((await app.http.get(`/feeds/${id}/explore`, { token: admin.token })).body).toMatchObject({ total: 1 });
    const fetched = await app.http.post(`/feeds/${id}/fetch`, { token: admin.token });
    const run = await finished(fetched.body.task.id);
    expect(run.status, run.last_error).toBe("succeeded");
    expect(run.result).toMatchObject({ feed_id: id, rows: 1 });
    await expect(q("UPDATE feeds SET source_format = 'misp' WHERE id = $1", [id])).rejects.toThrow(/feeds_source_format_check/);
  });
});
