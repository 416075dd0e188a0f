import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pino, { type DestinationStream } from "pino";
import { loadConfig } from "../../src/config.ts";
import { boot, type Booted } from "../../src/boot.ts";
import { Runtime } from "../../src/runtime.ts";
import { buildServer, type HttpServer } from "../../src/server.ts";
import { createLogger } from "../../src/platform/logger.ts";
import { createTestDatabase } from "./databases.ts";
import { HttpClient } from "./http.ts";

export const ADMIN_EMAIL = "admin@example.test";
export const ADMIN_PASSWORD = "admin-password-1";

export interface TestApp {
  url: string;
  http: HttpClient;
  booted: Booted;
  server: HttpServer;
  databaseUrl: string;
  dataDir: string;
  close(): Promise<void>;
}

export interface TestAppOptions {
  /**
   * Receives every log line (one JSON text per write) through the service's own logger
   * (`createLogger`: the production base fields and redaction), at level `trace` unless `env`
   * sets LOG_LEVEL. Without it, logs go to stdout at TEST_LOG_LEVEL (default silent).
   */
  logDestination?: DestinationStream;
}

/**
 * The real service on a fresh database cloned from the migrated template, listening on a free
 * loopback port. `env` overrides configuration; ROLE defaults to "api" so tests control jobs.
 * With `sharing`, a second instance on the first one's database (a second API process): it leaves
 * the database to its owner.
 */
export async function startTestApp(label: string, env: Record<string, string> = {}, sharing?: TestApp, options: TestAppOptions = {}): Promise<TestApp> {
  const db = sharing ? { url: sharing.databaseUrl, drop: async () => undefined } : await createTestDatabase(label);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "wb-test-"));
  const config = loadConfig({
    DATABASE_URL: db.url,
    DATA_DIR: dataDir,
    ROLE: "api",
    ADMIN_EMAIL,
    ADMIN_PASSWORD,
    JWT_SECRET: "test-secret-test-secret-test-secret-0123",
    LOG_LEVEL: options.logDestination ? "trace" : (process.env.TEST_LOG_LEVEL ?? "silent"),
    ...env,
  });
  // Silent runs (CI) still keep the last error lines, which the HTTP client prints with an answer 500:
  // a 500 seen only as `internal_error` cannot be diagnosed after the run.
  const errorLines: string[] = [];
  const keepErrors: DestinationStream = {
    write: (line: string) => {
      errorLines.push(line);
      if (errorLines.length > 20) errorLines.shift();
    },
  };
  const log = options.logDestination
    ? createLogger(config.LOG_LEVEL, options.logDestination)
    : config.LOG_LEVEL === "silent"
      ? pino({ level: "error" }, keepErrors)
      : pino({ level: config.LOG_LEVEL });
  const runtime = new Runtime();
  const booted = await boot(config, log, runtime);
  const server = buildServer(runtime, log);
  await server.app.listen({ host: "127.0.0.1", port: 0 });
  const address = server.app.server.address();
  const url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  return {
    url,
    http: new HttpClient(url, { serverErrors: () => errorLines.splice(0) }),
    booted,
    server,
    databaseUrl: db.url,
    dataDir,
    async close() {
      // The test is over: a download it did not read to the end is cut a second later (exports-scale).
      await server.close(1_000);
      await booted.stop();
      await db.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Resolves at the next invalidation of the instance's authentication cache: a test that changes an
 * authentication row behind the service's back (plain SQL) waits for the notification to land.
 */
export const nextAuthInvalidation = (target: TestApp) =>
  new Promise<void>((resolve) => {
    const off = target.booted.ctx.authCache.onInvalidate(() => {
      off();
      resolve();
    });
  });
