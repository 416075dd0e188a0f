import { execFileSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, onTestFailed, test } from "vitest";
import { ADMIN_URL, createTestDatabase } from "../support/databases.ts";
import { HttpClient } from "../support/http.ts";
import {
  eventually,
  freePort,
  isListening,
  killAllServices,
  processesMentioning,
  sleep,
  startService,
  type ServiceProcess,
} from "../support/process.ts";

/**
 * The service as a real process (`node --import tsx src/main.ts`, as `npm start`): zero-configuration start on an embedded
 * PostgreSQL, the DATA_DIR lock, configuration errors, API and worker processes on one database,
 * an unreachable database, and jobs left locked by a killed worker.
 */

const EMAIL = "admin@example.test";
const PASSWORD = "admin-password-1";
const started: ServiceProcess[] = [];
const dataDirs: string[] = [];

function service(env: Record<string, string>, name: string): ServiceProcess {
  const p = startService({ LOG_LEVEL: "info", ...env }, { name });
  started.push(p);
  return p;
}

/** A temporary DATA_DIR the `postgres` system user can traverse (embedded postgres runs as it under root). */
function tempDataDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "wb-proc-"));
  fs.chmodSync(dir, 0o755);
  dataDirs.push(dir);
  return dir;
}

/**
 * The DATA_DIR of the embedded PostgreSQL tests: the first test initialises it (and asserts so); the
 * later ones start on it as it left it, without paying initdb and the migrations again.
 */
let embeddedDir: string | undefined;
const embeddedDataDir = () => (embeddedDir ??= tempDataDir());

/** Port and password of the embedded PostgreSQL running on `dataDir`. */
function embeddedClient(dataDir: string): pg.Client {
  const pidFile = fs.readFileSync(path.join(dataDir, "pg", "postmaster.pid"), "utf8").split("\n");
  const password = fs.readFileSync(path.join(dataDir, "pg-password"), "utf8").trim();
  const client = new pg.Client({ host: "127.0.0.1", port: Number(pidFile[3]), user: "postgres", password, database: "workbench" });
  client.on("error", () => undefined);
  return client;
}

/** Postmasters on the directory (`.../postgres -D <dir>`); initdb's short-lived helpers (`--boot`, `--single`) are not servers. */
/**
 * The postmasters serving dataDir. A backend the postmaster has just forked carries the same command
 * line until it renames itself (seen on a loaded machine): processes whose parent is one are left out.
 */
function postgresOn(dataDir: string): string[] {
  const rows = execFileSync("ps", ["-eo", "pid=,ppid=,args="], { encoding: "utf8" })
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l.includes(path.join(dataDir, "pg")) && /\/postgres\s+-D\s/.test(l))
    .map((l) => ({ line: l, pid: l.split(/\s+/)[0]!, ppid: l.split(/\s+/)[1]! }));
  const pids = new Set(rows.map((r) => r.pid));
  return rows.filter((r) => !pids.has(r.ppid)).map((r) => r.line);
}

afterEach((ctx) => {
  const mine = started.splice(0);
  if (ctx.task.result?.state === "fail") {
    for (const p of mine) console.error(`--- ${p.name} (exit ${JSON.stringify(p.exit)}):\n${p.tail(40)}`);
  }
  // A failed test leaves its processes running: take each whole process group down.
  for (const p of mine) p.kill();
});

// Takes the full bounded wait for the database (30 s): started before all tests, checked in the
// last "external database" test, so the wait overlaps the other tests.
/**
 * A port nothing listens on for the whole wait: below the ephemeral range that `freePort` (bind to
 * port 0) and the embedded PostgreSQL draw from, so no other test takes it meanwhile (one free port
 * was handed out again to an embedded PostgreSQL during the wait, which then refused the password).
 */
async function refusedPort(): Promise<number> {
  for (let port = 23_000 + Math.floor(Math.random() * 5_000); ; port++) {
    const refused = await new Promise<boolean>((resolve) => {
      const socket = net.connect({ host: "127.0.0.1", port }, () => {
        socket.destroy();
        resolve(false);
      });
      socket.on("error", () => resolve(true));
    });
    if (refused) return port;
  }
}
let never: ServiceProcess;
let neverStarted = 0;
let neverHealth: Promise<{ status: number; body: unknown }>;
beforeAll(async () => {
  neverStarted = Date.now();
  never = startService(
    {
      ROLE: "api",
      LOG_LEVEL: "info",
      PORT: String(await freePort()),
      DATA_DIR: tempDataDir(),
      DATABASE_URL: `postgresql://postgres:s3cret-pw@127.0.0.1:${await refusedPort()}/nothing`,
    },
    { name: "unreachable" },
  );
  // The first answer of /healthz, while it waits (asserted in the test).
  neverHealth = eventually(() => never.healthz().catch(() => null), "unreachable: /healthz answers", 20_000);
  neverHealth.catch(() => undefined);
});

afterAll(async () => {
  killAllServices();
  await sleep(200);
  for (const dir of dataDirs) fs.rmSync(dir, { recursive: true, force: true });
});

describe("zero configuration: embedded PostgreSQL under DATA_DIR", () => {
  test("starts, creates the admin, refuses a second instance, stops cleanly and keeps its data", { timeout: 90_000 }, async () => {
    const dataDir = embeddedDataDir();
    const port = await freePort();
    const first = service({ PORT: String(port), DATA_DIR: dataDir, ADMIN_EMAIL: EMAIL, ADMIN_PASSWORD: PASSWORD }, "first");
    const health = await first.waitForHealthy(60_000);
    expect(health).toEqual({ status: 200, body: { status: "ok" } });
    expect(first.hasLog("initialising embedded PostgreSQL")).toBe(true);
    expect(first.hasLog("applied migration")).toBe(true);
    const postmasters = postgresOn(dataDir);
    expect(postmasters, processesMentioning(dataDir).join("\n")).toHaveLength(1);

    const http = new HttpClient(first.url);
    const token = await http.post("/auth/token", { form: { grant_type: "password", username: EMAIL, password: PASSWORD } });
    expect(token.status).toBe(200);
    expect(token.body).toMatchObject({ token_type: "bearer", access_token: expect.any(String) });
    expect((await http.post("/auth/token", { form: { grant_type: "password", username: EMAIL, password: "wrong-password" } })).status).toBe(401);

    // Same DATA_DIR, other port: refused, and the first instance is untouched.
    const second = service({ PORT: String(await freePort()), DATA_DIR: dataDir }, "second");
    const secondExit = await second.waitForExit(30_000);
    expect(secondExit.code).not.toBe(0);
    expect(second.output()).toMatch(/DATA_DIR \S+ is in use by another instance/);
    expect((await first.healthz()).status).toBe(200);
    expect(fs.existsSync(path.join(dataDir, "workbench.lock"))).toBe(true);

    // SIGTERM: exit 0, no error logged on the way out, postgres gone, lock released.
    const exit = await first.stop(30_000);
    expect(exit).toEqual({ code: 0, signal: null });
    expect(first.hasLog("shutting down")).toBe(true);
    expect(first.logs.filter((l) => l.level >= 50).map((l) => l.msg)).toEqual([]);
    expect(postgresOn(dataDir)).toEqual([]);
    expect(fs.existsSync(path.join(dataDir, "workbench.lock"))).toBe(false);

    // Restart on the same DATA_DIR: same data, nothing re-initialised or re-applied. ADMIN_* of
    // this start are ignored because a user exists.
    const again = service({ PORT: String(await freePort()), DATA_DIR: dataDir, ADMIN_EMAIL: "other@example.test", ADMIN_PASSWORD: PASSWORD }, "restart");
    await again.waitForHealthy(60_000);
    const http2 = new HttpClient(again.url);
    expect((await http2.login(EMAIL, PASSWORD)).access_token).toEqual(expect.any(String));
    expect((await http2.post("/auth/token", { form: { grant_type: "password", username: "other@example.test", password: PASSWORD } })).status).toBe(401);
    expect(again.hasLog("initialising embedded PostgreSQL")).toBe(false);
    expect(again.hasLog("applied migration")).toBe(false);
    expect(await again.stop(30_000)).toEqual({ code: 0, signal: null });
    expect(postgresOn(dataDir)).toEqual([]);
  });

  test("a lock file left by a dead process does not block a start", { timeout: 60_000 }, async () => {
    const dataDir = embeddedDataDir();
    const dead = startService({}, { command: ["true"] });
    await dead.exited;
    fs.writeFileSync(path.join(dataDir, "workbench.lock"), String(dead.pid));
    const p = service({ PORT: String(await freePort()), DATA_DIR: dataDir }, "stale-lock");
    await p.waitForHealthy(60_000);
    expect(fs.readFileSync(path.join(dataDir, "workbench.lock"), "utf8").trim()).toBe(String(p.servicePid()));
    expect(await p.stop(30_000)).toEqual({ code: 0, signal: null });
  });
});

describe("bad configuration", () => {
  test.concurrent.each([
    ["PORT", "abc"],
    ["ROLE", "nope"],
    ["DATABASE_URL", "mysql://x"],
  ])("%s=%s stops the start with a message naming it", { timeout: 90_000 }, async (variable, value) => {
    // Concurrent tests: this one owns its process (not in `started`, which afterEach kills). The
    // bound only tells "stops" from "hangs": three starts share two busy cores here.
    const p = startService({ LOG_LEVEL: "info", PORT: String(await freePort()), DATA_DIR: tempDataDir(), [variable]: value }, { name: `bad ${variable}` });
    try {
      const exit = await p.waitForExit(60_000);
      expect(exit.code).not.toBe(0);
      expect(exit.code).not.toBeNull();
      expect(p.stderr).toContain(`invalid configuration: ${variable}`);
      expect(p.hasLog(/Server listening/)).toBe(false);
    } catch (err) {
      console.error(`--- ${p.name} (exit ${JSON.stringify(p.exit)}):\n${p.tail(40)}`);
      throw err;
    } finally {
      p.kill();
    }
  });
});

describe("external database (DATABASE_URL)", () => {
  test("ROLE=worker runs jobs enqueued on the database of a ROLE=api process and listens on no port", { timeout: 60_000 }, async () => {
    const db = await createTestDatabase("proc_roles");
    try {
      const apiPort = await freePort();
      const workerPort = await freePort();
      const common = { DATABASE_URL: db.url, ADMIN_EMAIL: EMAIL, ADMIN_PASSWORD: PASSWORD, JWT_SECRET: "process-test-secret-process-test-secret" };
      const api = service({ ...common, ROLE: "api", PORT: String(apiPort), DATA_DIR: tempDataDir() }, "api");
      const worker = service({ ...common, ROLE: "worker", PORT: String(workerPort), DATA_DIR: tempDataDir() }, "worker");
      expect(await api.waitForHealthy(45_000)).toEqual({ status: 200, body: { status: "ok" } });
      const ready = await worker.waitForLog("workbench ready", 45_000);
      expect(ready.role).toBe("worker");
      expect(ready.url).toBeUndefined();
      expect(await isListening(workerPort)).toBe(false);
      expect(worker.hasLog(/Server listening/)).toBe(false);
      expect(await isListening(apiPort)).toBe(true);

      const pool = new pg.Pool({ connectionString: db.url, max: 1 });
      try {
        const { rows } = await pool.query<{ id: string }>("SELECT (graphile_worker.add_job('prune_expired_tokens', '{}')).id::text AS id");
        const id = rows[0].id;
        await eventually(
          async () => (await pool.query("SELECT 1 FROM graphile_worker._private_jobs WHERE id = $1", [id])).rowCount === 0,
          `job ${id} done`,
          20_000,
        );
        // The worker process ran it (the api process runs no jobs).
        await worker.waitForLog(/^pruned \d+ refresh tokens/, 5_000);
        expect(api.hasLog(/^pruned/)).toBe(false);
      } finally {
        await pool.end();
      }
      expect(await api.stop()).toEqual({ code: 0, signal: null });
      expect(await worker.stop()).toEqual({ code: 0, signal: null });
    } finally {
      for (const p of started) p.kill();
      await db.drop();
    }
  });

  test("waits for a database that is not up yet (503 with the stage), serves once it is, 503 while it is gone", { timeout: 60_000 }, async () => {
    const db = await createTestDatabase("proc_proxy");
    const proxy = new TcpProxy(Number(new URL(ADMIN_URL).port || 5432));
    const proxyPort = await freePort();
    try {
      const url = new URL(db.url);
      url.host = `127.0.0.1:${proxyPort}`;
      const p = service({ ROLE: "api", PORT: String(await freePort()), DATA_DIR: tempDataDir(), DATABASE_URL: url.toString() }, "proxied");
      const waiting = await eventually(async () => {
        const h = await p.healthz();
        return h.status === 503 && (h.body as { detail?: string }).detail?.includes("waiting for the database") ? h : null;
      }, "503 while waiting for the database", 20_000);
      expect(waiting.body).toMatchObject({ status: "unavailable" });
      await p.waitForLog("database unreachable, retrying", 10_000);

      await proxy.listen(proxyPort);
      expect(await p.waitForHealthy(30_000)).toEqual({ status: 200, body: { status: "ok" } });

      proxy.close();
      const down = await eventually(async () => {
        const h = await p.healthz();
        return h.status === 503 ? h : null;
      }, "503 while the database is gone", 15_000);
      expect(down.body).toMatchObject({ status: "unavailable", detail: "database unreachable" });
      expect(p.exit).toBeNull();

      await proxy.listen(proxyPort);
      await p.waitForHealthy(20_000);
      expect(await p.stop()).toEqual({ code: 0, signal: null });
    } finally {
      proxy.close();
      for (const p of started) p.kill();
      await db.drop();
    }
  });

  test("a database that never comes: exits non-zero with a message naming DATABASE_URL, not hanging", { timeout: 60_000 }, async () => {
    onTestFailed(() => console.error(`--- unreachable (exit ${JSON.stringify(never.exit)}):\n${never.tail(40)}`));
    // While it waited, /healthz said why.
    expect(await neverHealth).toEqual({
      status: 503,
      body: { status: "unavailable", detail: "starting: waiting for the database", code: "service_unavailable" },
    });
    const exit = await never.waitForExit(Math.max(50_000 - (Date.now() - neverStarted), 1_000));
    expect(exit.code).not.toBe(0);
    expect(exit.code).not.toBeNull();
    const fatal = never.logs.find((l) => l.msg === "start failed");
    expect(JSON.stringify(fatal?.err)).toMatch(/DATABASE_URL: PostgreSQL at 127\.0\.0\.1:\d+\/nothing unreachable for 3\d s/);
    expect(never.output()).not.toContain("s3cret-pw");
  });
});

describe("jobs and crashes", () => {
  test("a job held by a worker killed mid-run is released and run at the next start", { timeout: 90_000 }, async () => {
    const dataDir = embeddedDataDir();
    const first = service({ PORT: String(await freePort()), DATA_DIR: dataDir }, "crashing");
    await first.waitForHealthy(60_000);

    // Hold a lock the prune task needs, so the job blocks mid-run; then SIGKILL the service.
    const blocker = embeddedClient(dataDir);
    const observer = embeddedClient(dataDir);
    await blocker.connect();
    await observer.connect();
    let jobId: string;
    try {
      await blocker.query("BEGIN");
      await blocker.query("LOCK TABLE refresh_tokens IN ACCESS EXCLUSIVE MODE");
      jobId = (await observer.query<{ id: string }>("SELECT (graphile_worker.add_job('prune_expired_tokens', '{}')).id::text AS id")).rows[0].id;
      const lockedBy = await eventually(async () => {
        const { rows } = await observer.query<{ locked_by: string | null }>("SELECT locked_by FROM graphile_worker._private_jobs WHERE id = $1", [jobId]);
        return rows[0]?.locked_by;
      }, "job picked up", 20_000);
      await eventually(async () => {
        const { rowCount } = await observer.query("SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'DELETE FROM refresh_tokens%'");
        return rowCount! > 0;
      }, "job blocked on the lock", 10_000);

      const pid = first.servicePid();
      expect(pid).toBeTypeOf("number");
      process.kill(pid!, "SIGKILL");
      const exit = await first.waitForExit(10_000);
      expect(exit.code ?? exit.signal).not.toBe(0);
      // The orphaned postgres keeps the job locked by the dead worker.
      const { rows } = await observer.query("SELECT locked_by FROM graphile_worker._private_jobs WHERE id = $1", [jobId]);
      expect(rows[0].locked_by).toBe(lockedBy);
      expect(postgresOn(dataDir)).toHaveLength(1);
    } finally {
      await blocker.end().catch(() => undefined);
      await observer.end().catch(() => undefined);
    }

    const next = service({ PORT: String(await freePort()), DATA_DIR: dataDir }, "after-crash");
    await next.waitForHealthy(60_000);
    expect(next.hasLog("released jobs locked by workers of a previous run")).toBe(true);
    const check = embeddedClient(dataDir);
    await check.connect();
    try {
      await eventually(
        async () => (await check.query("SELECT 1 FROM graphile_worker._private_jobs WHERE id = $1", [jobId])).rowCount === 0,
        `released job ${jobId} run`,
        20_000,
      );
    } finally {
      await check.end();
    }
    expect(await next.stop(30_000)).toEqual({ code: 0, signal: null });
    expect(postgresOn(dataDir)).toEqual([]);
  });
});

/** Forwards TCP to the test PostgreSQL; closing it also cuts the connections through it. */
class TcpProxy {
  private server: net.Server | null = null;
  private readonly sockets = new Set<net.Socket>();

  constructor(private readonly targetPort: number) {}

  listen(port: number): Promise<void> {
    const server = net.createServer((client) => {
      const upstream = net.connect(this.targetPort, "127.0.0.1");
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on("error", () => undefined);
        s.on("close", () => {
          this.sockets.delete(s);
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => resolve());
    });
  }

  close(): void {
    this.server?.close();
    this.server = null;
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
  }
}
