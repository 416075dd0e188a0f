/**
 * Galaxy import (issue 4: "Importing the 2.6 MB ATT&CK cluster file takes seconds, not minutes").
 *
 *   npx tsx bench/galaxies.ts          # 3 runs, about 1-2 minutes
 *
 * Each run: a fresh database cloned from the test template (TEST_DATABASE_URL, default
 * postgresql://postgres@127.0.0.1:5432/postgres) and a fresh service as a child process
 * (`node --import tsx src/main.ts`, ROLE=api, LOG_LEVEL=warn) with GALAXY_SOURCE pointing at the real
 * ../shared/data/misp-galaxy, read in place (never copied). Timed, as HTTP round trips from the
 * bench and as the service's own `took_ms` where it reports one:
 *   1. the first `POST /galaxies/update` (1 galaxy, 1,266 clusters created),
 *   2. a second `POST /galaxies/update` with the same files (idempotent: every cluster unchanged),
 *   3. `PATCH /galaxies/{id}` {"enabled": true}, which creates one tag per cluster.
 * Each run checks the counts, so a run that did not do the work fails instead of looking fast.
 * Prints one JSON document (medians of the 3 runs) on stdout and a short summary on stderr.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import pg from "pg";
import setupTemplate from "../test/support/global-setup.ts";
import { createTestDatabase } from "../test/support/databases.ts";
import { freePort, killAllServices, startService } from "../test/support/process.ts";
import { sharedPath } from "../test/support/shared-data.ts";
import { median, round } from "./lib.ts";

const RUNS = 3;
const GALAXY_SOURCE = sharedPath("misp-galaxy");
const CLUSTER_FILE = path.join(GALAXY_SOURCE, "clusters/mitre-attack-pattern.json");
const ADMIN = { email: "bench@example.test", password: "bench-password-1" };

interface Run {
  first_import_ms: number;
  first_import_took_ms: number;
  second_import_ms: number;
  second_import_took_ms: number;
  enable_ms: number;
  clusters: number;
  tags_created: number;
}

async function oneRun(): Promise<Run> {
  const db = await createTestDatabase("bench_galaxies");
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "wb-bench-"));
  const port = await freePort();
  const service = startService(
    {
      ROLE: "api",
      PORT: String(port),
      DATABASE_URL: db.url,
      DATA_DIR: dataDir,
      LOG_LEVEL: "warn",
      JWT_SECRET: "bench-secret-bench-secret-bench-secret-0",
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
      GALAXY_SOURCE,
    },
    { name: "api" },
  );
  const pool = new pg.Pool({ connectionString: db.url, max: 1 });
  try {
    await service.waitForHealthy(120_000);
    const login = await fetch(`${service.url}/auth/token`, { method: "POST", body: new URLSearchParams({ username: ADMIN.email, password: ADMIN.password }) });
    const { access_token: jwt } = (await login.json()) as { access_token: string };
    /** One request, timed from the bench: wall milliseconds and the parsed answer. */
    const timed = async (method: string, route: string, body?: unknown) => {
      const t0 = performance.now();
      const res = await fetch(`${service.url}${route}`, {
        method,
        headers: { authorization: `Bearer ${jwt}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      const ms = performance.now() - t0;
      if (res.status !== 200) throw new Error(`${method} ${route}: ${res.status} ${text}`);
      return { ms: round(ms), body: JSON.parse(text) as Record<string, number> & { id?: number } };
    };

    const first = await timed("POST", "/galaxies/update");
    if (first.body.clusters_created !== 1266 || first.body.galaxies !== 1) throw new Error(`first import: ${JSON.stringify(first.body)}`);
    const second = await timed("POST", "/galaxies/update");
    if (second.body.clusters_unchanged !== 1266 || second.body.clusters_created || second.body.clusters_updated) {
      throw new Error(`second import was not idempotent: ${JSON.stringify(second.body)}`);
    }
    const { id } = (await pool.query<{ id: number }>("SELECT id FROM galaxies WHERE type = 'mitre-attack-pattern'")).rows[0];
    const enable = await timed("PATCH", `/galaxies/${id}`, { enabled: true });
    const tags = (await pool.query<{ n: number }>("SELECT count(*)::int AS n FROM tags WHERE name LIKE 'misp-galaxy:mitre-attack-pattern=%'")).rows[0].n;
    if (tags !== 1266) throw new Error(`enabling created ${tags} tags, not 1266`);
    const stop = await service.stop(30_000);
    if (stop.code !== 0) throw new Error(`service exited ${JSON.stringify(stop)}:\n${service.tail()}`);
    return {
      first_import_ms: first.ms,
      first_import_took_ms: first.body.took_ms,
      second_import_ms: second.ms,
      second_import_took_ms: second.body.took_ms,
      enable_ms: enable.ms,
      clusters: first.body.clusters_created,
      tags_created: tags,
    };
  } finally {
    service.kill();
    await pool.end();
    await db.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main() {
  await setupTemplate();
  const loadBefore = fs.readFileSync("/proc/loadavg", "utf8").trim();
  const runs: Run[] = [];
  for (let i = 0; i < RUNS; i++) {
    runs.push(await oneRun());
    process.stderr.write(`run ${i + 1}: ${JSON.stringify(runs[i])}\n`);
  }
  const loadAfter = fs.readFileSync("/proc/loadavg", "utf8").trim();
  const figure = (k: keyof Run) => ({ median: median(runs.map((r) => r[k])), runs: runs.map((r) => r[k]) });
  const out = {
    date: new Date().toISOString(),
    machine: { cpus: os.cpus().length, cpu: os.cpus()[0]?.model, node: process.version, loadavg_before: loadBefore, loadavg_after: loadAfter },
    command: "npx tsx bench/galaxies.ts",
    source: { GALAXY_SOURCE, cluster_file_bytes: fs.statSync(CLUSTER_FILE).size },
    first_import_ms: figure("first_import_ms"),
    first_import_service_took_ms: figure("first_import_took_ms"),
    second_import_ms: figure("second_import_ms"),
    second_import_service_took_ms: figure("second_import_took_ms"),
    enable_ms: figure("enable_ms"),
    clusters: runs[0].clusters,
    tags_created_on_enable: runs[0].tags_created,
  };
  process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
  process.stderr.write(
    `first import ${out.first_import_ms.median} ms, second ${out.second_import_ms.median} ms, enable ${out.enable_ms.median} ms (medians of ${RUNS}; load ${loadBefore} -> ${loadAfter})\n`,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  killAllServices();
  process.exit(1);
});
