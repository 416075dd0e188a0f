/**
 * `npm run reindex` is a task run whose progress holds its cursor: a rebuild killed with SIGKILL
 * midway resumes from that cursor when run again (it does not empty the index and start over) and
 * ends with the index a complete rebuild leaves.
 */
import { execFile, spawn } from "node:child_process";
import fs from "node:fs";
import { promisify } from "node:util";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { loginAdmin, type TestUser } from "../support/fixtures.ts";
import { eventually } from "../support/process.ts";
import { sharedPath } from "../support/shared-data.ts";
import { settled } from "../support/settled.ts";
import { SEARCH_BACKENDS } from "../support/search-backends.ts";

const run = promisify(execFile);
/** 210 attributes: 21 pages of 10 (the test lets 6 through before the kill). */
const EVENT = "1733d613-f09f-43ec-8e6a-3926f75e5fa4";
const PAGE = "10";

describe.each(SEARCH_BACKENDS)("reindex resumes after a kill on $name", ({ env }) => {
  let app: TestApp;
  let admin: TestUser;
  let pool: pg.Pool;
  let childEnv: Record<string, string | undefined>;
  // One process (not the tsx CLI, which would leave its child running when killed).
  const command = ["--import", "tsx", "src/cli/reindex.ts", "svc-attributes", "--page-size", PAGE];

  /** Every attribute document, by id, as the search backend returns it. */
  const documents = async () => {
    const search = app.booted.ctx.search;
    await search.refresh("svc-attributes");
    const docs = new Map<string, unknown>();
    for await (const page of search.scan({ index: "svc-attributes", query: { kind: "matchAll" }, defaultFields: ["value"], access: { admin: true, orgId: null }, pageSize: 500, timeoutMs: 30_000 })) {
      for (const hit of page) docs.set(hit.id, hit.source);
    }
    return docs;
  };
  const reindexRun = async () =>
    (await pool.query<{ id: string; status: string; progress: { after: number; written: number; total: number } | null; result: Record<string, unknown> | null }>(
      "SELECT id::text, status, progress, result FROM task_runs WHERE task = 'reindex' AND kwargs = '{\"index\": \"svc-attributes\"}'::jsonb ORDER BY queued_at DESC LIMIT 1",
    )).rows[0];

  beforeAll(async () => {
    const vars = env();
    app = await startTestApp("reindex-resume", { ROLE: "all", ...vars });
    admin = await loginAdmin(app);
    pool = new pg.Pool({ connectionString: app.databaseUrl, max: 3 });
    // OPENSEARCH_URL of the test run must not leak into the PostgreSQL case.
    childEnv = { ...process.env, OPENSEARCH_URL: "", OPENSEARCH_INDEX_PREFIX: "", ...vars, DATABASE_URL: app.databaseUrl, DATA_DIR: app.dataDir, LOG_LEVEL: "warn" };
    const doc = JSON.parse(fs.readFileSync(sharedPath("misp-feed-sample", `${EVENT}.json`), "utf8"));
    expect((await app.http.post("/events/import", { token: admin.token, json: doc })).status).toBe(201);
    await settled(app);
  }, 180_000);
  afterAll(async () => {
    await pool?.end();
    await app?.close();
  });

  it("continues from the saved cursor and ends with the same documents", async () => {
    const before = await documents();
    const { rows } = await pool.query<{ n: number }>("SELECT count(*)::int AS n FROM attributes");
    expect(before.size).toBe(rows[0].n);
    expect(before.size).toBeGreaterThan(Number(PAGE) * 10);

    const first = spawn(process.execPath, command, { env: childEnv, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    first.stdout.on("data", (c: Buffer) => (out += c.toString()));
    first.stderr.on("data", (c: Buffer) => (out += c.toString()));
    const exited = new Promise<NodeJS.Signals | number | null>((resolve) => first.on("exit", (code, signal) => resolve(signal ?? code)));

    // The test holds the run's row: the rebuild's next progress save waits on it. Released and taken
    // again, it lets the rebuild through one page at a time, so it is stopped midway however fast the
    // machine, and the cursor read here is the one the kill leaves.
    const id = (await eventually(() => reindexRun(), `the reindex task run (output: ${out})`, 60_000, 5)).id;
    const waitingSave = () =>
      eventually(async () => {
        const w = await pool.query("SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'UPDATE task_runs SET progress%'");
        return w.rowCount ? true : null;
      }, `the rebuild waiting to save its progress (output: ${out})`, 60_000, 10);
    const holder = await pool.connect();
    const hold = async () => {
      await holder.query("BEGIN");
      return (await holder.query<{ status: string; progress: { written: number } | null }>("SELECT status, progress FROM task_runs WHERE id = $1 FOR UPDATE", [id])).rows[0]!;
    };
    try {
      // A released row lock is not handed to the waiting save in turn: the next hold could take it
      // first, so each release waits until the save went through before holding again.
      const savedPast = (written: number) =>
        eventually(async () => {
          const { rows } = await pool.query<{ written: number | null }>("SELECT (progress->>'written')::int AS written FROM task_runs WHERE id = $1", [id]);
          return (rows[0]?.written ?? 0) > written ? true : null;
        }, `the rebuild saving its progress past ${written} (output: ${out})`, 60_000, 5);
      let held = await hold();
      await waitingSave();
      for (let page = 0; page < 5; page++) {
        await holder.query("ROLLBACK");
        await savedPast(held.progress?.written ?? 0);
        held = await hold();
        await waitingSave();
      }
      expect(held.status).toBe("running");
      expect(held.progress?.written).toBeGreaterThan(0);
      first.kill("SIGKILL");
      expect(await exited).toBe("SIGKILL");
      // The killed process's save would otherwise go through once the row is released.
      await pool.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'UPDATE task_runs SET progress%'");
    } finally {
      await holder.query("ROLLBACK");
      holder.release();
    }

    const killed = (await reindexRun())!;
    expect(killed.status).toBe("running");
    const cursor = killed.progress!;
    expect(cursor.written).toBeGreaterThan(0);
    expect(cursor.written).toBeLessThan(before.size);
    expect(cursor.total).toBe(before.size);
    // Midway the index holds what the first process wrote after emptying it (OpenSearch shows it after a refresh).
    const midway = await documents();
    expect(midway.size).toBeGreaterThanOrEqual(cursor.written);
    expect(midway.size).toBeLessThan(before.size);

    const { stdout } = await run(process.execPath, command, { env: childEnv });
    expect(stdout).toContain(`svc-attributes: resuming task run ${killed.id} after ${cursor.written} documents (row id ${cursor.after})`);
    expect(stdout).toMatch(new RegExp(`svc-attributes: rebuilt with ${before.size} documents`));
    const finished = (await reindexRun())!;
    expect(finished.id).toBe(killed.id);
    expect(finished.status).toBe("succeeded");
    expect(finished.result).toMatchObject({ index: "svc-attributes", documents: before.size, resumed_from: cursor.written });

    const after = await documents();
    expect(after.size).toBe(before.size);
    for (const [id, source] of before) expect(after.get(id), id).toEqual(source);

    // A finished rebuild is not resumed: the next one starts over (a new run from zero).
    const { stdout: again } = await run(process.execPath, [...command, "--page-size", "500"], { env: childEnv });
    expect(again).not.toContain("resuming");
    const fresh = (await reindexRun())!;
    expect(fresh.id).not.toBe(killed.id);
    expect(fresh.result).toMatchObject({ documents: before.size, resumed_from: null });
  }, 240_000);
});
