/**
 * Full rebuilds that stop halfway, and their interplay with DELETE /correlations/. ROLE=api: the
 * test runs the rebuild's steps itself, as the `rebuild_correlations` job does, and makes a batch
 * fail with a trigger on the progress row (a crash inside the batch's transaction).
 */
import crypto from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runRebuildStep } from "../../src/modules/correlations/rebuild.ts";
import { startTestApp, type TestApp } from "../support/app.ts";
import { loginAdmin, type TestUser } from "../support/fixtures.ts";

const PER_EVENT = 800; // 4 events: 3 200 attributes, 4 rebuild batches of 1 000

let app: TestApp;
let admin: TestUser;

const q = (sql: string, params: unknown[] = []) => app.booted.ctx.db.pool.query(sql, params);
const lastChangeId = async () => (await q("SELECT COALESCE(max(id), 0)::int AS id FROM change_records")).rows[0].id as number;
const pairKeys = async () =>
  (
    await q(`SELECT least(s.uuid::text, t.uuid::text) || '|' || greatest(s.uuid::text, t.uuid::text) || '|' || c.match_type AS k, least(s.id, t.id)::int AS first_id
               FROM correlations c JOIN attributes s ON s.id = c.source_attribute_id JOIN attributes t ON t.id = c.target_attribute_id ORDER BY 1`)
  ).rows as { k: string; first_id: number }[];
const announced = async (kind: string, since: number) =>
  (await q("SELECT count(*)::int AS n, count(DISTINCT payload->>'correlation_id')::int AS pairs FROM change_records WHERE kind = $1 AND id > $2", [kind, since])).rows[0];

async function startRebuild(): Promise<number> {
  const res = await app.http.post("/correlations/run", { token: admin.token });
  expect(res.status, res.text).toBe(202);
  return res.body.rebuild.id;
}

async function runToEnd(id: number): Promise<void> {
  while (await runRebuildStep(app.booted.ctx.db.pool, id));
}

/** The batch that would bring `processed` past `limit` fails inside its transaction. */
async function crashPast(limit: number): Promise<void> {
  await q(`CREATE OR REPLACE FUNCTION wb_test_crash() RETURNS trigger LANGUAGE plpgsql AS $$
           BEGIN IF NEW.processed > ${Number(limit)} THEN RAISE EXCEPTION 'simulated crash'; END IF; RETURN NEW; END $$`);
  await q("CREATE OR REPLACE TRIGGER wb_test_crash BEFORE UPDATE ON correlation_rebuilds FOR EACH ROW EXECUTE FUNCTION wb_test_crash()");
}
const stopCrashing = () => q("DROP TRIGGER IF EXISTS wb_test_crash ON correlation_rebuilds");

beforeAll(async () => {
  app = await startTestApp("correlations-rebuild", { ROLE: "api" });
  admin = await loginAdmin(app);
  // Events 1 and 2 share one set of values, 3 and 4 another: in id order, the pairs of 1-2 are
  // found in the first batch, those of 3-4 in the second and third.
  for (const prefix of ["a", "a", "c", "c"]) {
    const Attribute = Array.from({ length: PER_EVENT }, (_, i) => ({ uuid: crypto.randomUUID(), type: "domain", category: "Network activity", value: `${prefix}${i}.rebuild.example` }));
    const res = await app.http.post("/events/import", { token: admin.token, json: { Event: { uuid: crypto.randomUUID(), info: `rebuild ${crypto.randomUUID()}`, Attribute } } });
    expect(res.status, res.text).toBe(201);
  }
}, 60_000);
afterAll(async () => {
  await app?.close();
});

describe("a rebuild that fails halfway", () => {
  it("keeps the batches that committed, resumes after its cursor, and ends with the pairs of an uninterrupted rebuild, each announced once", async () => {
    const reference = await startRebuild();
    await runToEnd(reference);
    const expected = await pairKeys();
    expect(expected).toHaveLength(2 * PER_EVENT);

    const cleared = await app.http.delete("/correlations/", { token: admin.token });
    expect(cleared.body).toMatchObject({ deleted: 2 * PER_EVENT });
    const since = await lastChangeId();
    const id = await startRebuild();
    await crashPast(2000);
    try {
      await expect(runRebuildStep(app.booted.ctx.db.pool, id)).rejects.toThrow(/simulated crash/);
    } finally {
      await stopCrashing();
    }

    // Two batches committed: the cursor is the last attribute of the second, and the pairs stored
    // are exactly those an attribute of the first two batches takes part in.
    const [{ cursor }] = (await q("SELECT cursor FROM correlation_rebuilds WHERE id = $1", [id])).rows;
    const [{ id: secondBatchEnd }] = (await q("SELECT id FROM attributes ORDER BY id OFFSET 1999 LIMIT 1")).rows;
    expect(cursor).toBe(secondBatchEnd);
    const halfway = await pairKeys();
    expect(halfway.map((p) => p.k)).toEqual(expected.filter((p) => p.first_id <= cursor).map((p) => p.k));
    expect(halfway.length).toBeGreaterThan(0);
    expect(halfway.length).toBeLessThan(expected.length);
    const progress = await app.http.get(`/correlations/run/${id}`, { token: admin.token });
    expect(progress.body).toMatchObject({ status: "running", processed: 2000, total: 4 * PER_EVENT, correlations_created: halfway.length, correlations_removed: 0 });
    const gql = await app.http.graphql(`query($id: Int!) { correlationRebuild(id: $id) { status processed total correlationsCreated correlationsRemoved } }`, { id }, admin.token);
    expect(gql.body.data.correlationRebuild).toEqual({ status: "running", processed: 2000, total: 4 * PER_EVENT, correlationsCreated: halfway.length, correlationsRemoved: 0 });

    // The next step (the job's retry) goes on from the cursor.
    await runToEnd(id);
    expect((await pairKeys()).map((p) => p.k)).toEqual(expected.map((p) => p.k));
    expect((await app.http.get(`/correlations/run/${id}`, { token: admin.token })).body).toMatchObject({
      status: "succeeded",
      processed: 4 * PER_EVENT,
      total: 4 * PER_EVENT,
      correlations_created: expected.length,
      correlations_removed: 0,
    });
    // The failed batch rolled back its change records with its pairs: one announcement per pair.
    expect(await announced("attribute.correlation.created", since)).toEqual({ n: expected.length, pairs: expected.length });
  }, 120_000);
});

describe("rebuilds and DELETE /correlations/", () => {
  it("a deletion cancels queued and running rebuilds, whose steps then stop", async () => {
    const running = await startRebuild();
    await crashPast(1000);
    try {
      await expect(runRebuildStep(app.booted.ctx.db.pool, running)).rejects.toThrow(/simulated crash/);
    } finally {
      await stopCrashing();
    }
    const queued = await startRebuild();
    const pairs = (await pairKeys()).length;
    const since = await lastChangeId();

    const res = await app.http.delete("/correlations/", { token: admin.token });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ message: "Correlations index deleted successfully.", deleted: pairs, cancelled_rebuilds: [running, queued] });
    // Every pair is announced removed once (the indexer deletes both documents from that record).
    expect(await announced("attribute.correlation.deleted", since)).toEqual({ n: pairs, pairs });
    for (const id of [running, queued]) {
      expect((await app.http.get(`/correlations/run/${id}`, { token: admin.token })).body).toMatchObject({ status: "failed", error: expect.stringMatching(/^Cancelled: every correlation was deleted/) });
      expect(await runRebuildStep(app.booted.ctx.db.pool, id)).toBe(false);
    }
    expect(await pairKeys()).toEqual([]);
  }, 60_000);

  it("no rebuild is queued while a deletion runs (409, REST and GraphQL)", async () => {
    const holder = new pg.Client({ connectionString: app.databaseUrl });
    await holder.connect();
    try {
      await holder.query("SELECT pg_advisory_lock(hashtext('correlation_purge'), 0)");
      const rest = await app.http.post("/correlations/run", { token: admin.token });
      expect(rest.status).toBe(409);
      expect(rest.body).toEqual({ code: "conflict", detail: expect.stringContaining("being deleted") });
      const gql = await app.http.graphql("mutation { startCorrelationRebuild { id } }", {}, admin.token);
      expect(gql.body.errors?.[0].extensions).toMatchObject({ code: "conflict", status: 409 });
    } finally {
      await holder.end();
    }
    expect((await app.http.post("/correlations/run", { token: admin.token })).status).toBe(202);
  });
});
