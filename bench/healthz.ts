/**
 * Throughput of GET /healthz and cold start of `npm start` (see bench/README.md).
 *
 *   npx tsx bench/healthz.ts            # everything (about 2 minutes)
 *   npx tsx bench/healthz.ts healthz    # only the autocannon runs
 *   npx tsx bench/healthz.ts coldstart  # only the cold starts
 *
 * The service runs as a child process exactly as operators start it. Needs the test PostgreSQL
 * (TEST_DATABASE_URL, default postgresql://postgres@127.0.0.1:5432/postgres) for the throughput
 * part; the cold-start part uses the embedded PostgreSQL. Prints one JSON document.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import setupTemplate from "../test/support/global-setup.ts";
import { createTestDatabase } from "../test/support/databases.ts";
import { freePort, killAllServices, startService, type ServiceProcess } from "../test/support/process.ts";
import { CONNECTIONS, autocannon, median, round } from "./lib.ts";

const RUNS = 3;
const DURATION_S = 10;

async function healthzThroughput() {
  await setupTemplate();
  const db = await createTestDatabase("bench_healthz");
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "wb-bench-"));
  const port = await freePort();
  const service = startService(
    { ROLE: "api", PORT: String(port), DATABASE_URL: db.url, DATA_DIR: dataDir, LOG_LEVEL: "warn", JWT_SECRET: "bench-secret-bench-secret-bench-secret-0" },
    { name: "api" },
  );
  try {
    await service.waitForHealthy(60_000);
    await autocannon(`${service.url}/healthz`, 2); // warm-up (JIT, connection pool), not counted
    const runs = [];
    for (let i = 0; i < RUNS; i++) runs.push(await autocannon(`${service.url}/healthz`, DURATION_S));
    if (runs.some((r) => r.non2xx || r.errors)) throw new Error(`non-200 answers or errors: ${JSON.stringify(runs)}`);
    const stop = await service.stop(30_000);
    if (stop.code !== 0) throw new Error(`service exited ${JSON.stringify(stop)}:\n${service.tail()}`);
    return {
      command: `autocannon -c ${CONNECTIONS} -d ${DURATION_S} http://127.0.0.1:PORT/healthz (ROLE=api, DATABASE_URL, LOG_LEVEL=warn)`,
      requests_per_second: runs.map((r) => round(r.rps)),
      median_requests_per_second: round(median(runs.map((r) => r.rps))),
      latency_ms_p50: runs.map((r) => r.p50),
      latency_ms_p99: runs.map((r) => r.p99),
    };
  } finally {
    service.kill();
    await db.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Seconds from spawning `npm start` to the first 200 from /healthz, then a clean SIGTERM stop. */
async function timeToHealthy(dataDir: string): Promise<number> {
  const port = await freePort();
  const t0 = performance.now();
  const service: ServiceProcess = startService({ DATA_DIR: dataDir, PORT: String(port) }, { name: "npm start", command: ["npm", "start", "--silent"] });
  try {
    await service.waitForHealthy(120_000);
    const seconds = (performance.now() - t0) / 1000;
    // npm does not relay SIGTERM to its script; signal the service process, as a supervisor would.
    const stop = await service.stop(30_000, { toService: true });
    if (stop.code !== 0) throw new Error(`npm start exited ${JSON.stringify(stop)}:\n${service.tail()}`);
    return round(seconds, 2);
  } finally {
    service.kill();
  }
}

async function coldStart() {
  const first: number[] = [];
  const second: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "wb-bench-"));
    fs.chmodSync(dataDir, 0o755); // embedded postgres runs as the `postgres` user when we are root
    try {
      first.push(await timeToHealthy(dataDir));
      second.push(await timeToHealthy(dataDir));
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }
  return {
    command: "npm start (only DATA_DIR=<fresh temp dir> and a free PORT set), spawn to first 200 from /healthz",
    first_run_seconds: first,
    first_run_median_seconds: median(first),
    second_run_seconds: second,
    second_run_median_seconds: median(second),
  };
}

async function main() {
  const only = process.argv[2];
  const result: Record<string, unknown> = {
    date: new Date().toISOString(),
    machine: { cpus: os.cpus().length, cpu: os.cpus()[0]?.model, node: process.version },
  };
  if (!only || only === "healthz") result.healthz = await healthzThroughput();
  if (!only || only === "coldstart") result.cold_start = await coldStart();
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}

main().catch((err) => {
  killAllServices();
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
