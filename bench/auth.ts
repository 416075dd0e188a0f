/**
 * Cost of authentication: a small authenticated GET (GET /auth/whoami: authentication, then a
 * few hundred bytes about the caller, no further database work) with an API key and with a JWT, against GET /healthz (no
 * authentication, no database), on the same service in the same run; plus GET /users/me with the key
 * for the cost of a route that reads the database. Rounds interleave the targets so machine noise
 * hits them alike; ratios are computed per round, and medians reported.
 *
 *   npx tsx bench/auth.ts
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import setupTemplate from "../test/support/global-setup.ts";
import { createTestDatabase } from "../test/support/databases.ts";
import { freePort, killAllServices, startService } from "../test/support/process.ts";
import { autocannon, median, round, CONNECTIONS } from "./lib.ts";

const ROUNDS = 3;
const DURATION_S = 10;

async function main() {
  await setupTemplate();
  const db = await createTestDatabase("bench_auth");
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "wb-bench-"));
  const port = await freePort();
  const admin = { email: "bench@example.test", password: "bench-password-1" };
  const service = startService(
    {
      ROLE: "api",
      PORT: String(port),
      DATABASE_URL: db.url,
      DATA_DIR: dataDir,
      LOG_LEVEL: "warn",
      JWT_SECRET: "bench-secret-bench-secret-bench-secret-0",
      ADMIN_EMAIL: admin.email,
      ADMIN_PASSWORD: admin.password,
    },
    { name: "api" },
  );
  try {
    await service.waitForHealthy(60_000);
    const login = await fetch(`${service.url}/auth/token`, { method: "POST", body: new URLSearchParams({ username: admin.email, password: admin.password }) });
    const { access_token: jwt } = (await login.json()) as { access_token: string };
    const created = await fetch(`${service.url}/api-keys/`, {
      method: "POST",
      headers: { authorization: `Bearer ${jwt}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "bench", scopes: ["users:me"] }),
    });
    const { token: apiKey } = (await created.json()) as { token: string };
    const targets = {
      healthz: { url: `${service.url}/healthz`, headers: {} },
      api_key: { url: `${service.url}/auth/whoami`, headers: { authorization: `Bearer ${apiKey}` } },
      jwt: { url: `${service.url}/auth/whoami`, headers: { authorization: `Bearer ${jwt}` } },
      users_me_api_key: { url: `${service.url}/users/me`, headers: { authorization: `Bearer ${apiKey}` } },
    };
    for (const t of Object.values(targets)) await autocannon(t.url, 2, t.headers); // warm-up, not counted
    const rps: Record<keyof typeof targets, number[]> = { healthz: [], api_key: [], jwt: [], users_me_api_key: [] };
    const p99: Record<keyof typeof targets, number[]> = { healthz: [], api_key: [], jwt: [], users_me_api_key: [] };
    for (let i = 0; i < ROUNDS; i++) {
      for (const [name, t] of Object.entries(targets) as [keyof typeof targets, (typeof targets)["healthz"]][]) {
        const r = await autocannon(t.url, DURATION_S, t.headers);
        if (r.non2xx || r.errors) throw new Error(`${name}: non-200 answers or errors ${JSON.stringify(r)}`);
        rps[name].push(round(r.rps));
        p99[name].push(r.p99);
      }
    }
    const ratio = (a: number[], b: number[]) => a.map((x, i) => round(x / b[i], 3));
    process.stdout.write(
      `${JSON.stringify(
        {
          date: new Date().toISOString(),
          machine: { cpus: os.cpus().length, node: process.version, loadavg: os.loadavg().map((l) => round(l, 1)) },
          command: `autocannon -c ${CONNECTIONS} -d ${DURATION_S}, ${ROUNDS} interleaved rounds (ROLE=api, DATABASE_URL, LOG_LEVEL=warn)`,
          requests_per_second: rps,
          median_requests_per_second: Object.fromEntries(Object.entries(rps).map(([k, v]) => [k, median(v)])),
          latency_ms_p99: p99,
          api_key_vs_healthz: { per_round: ratio(rps.api_key, rps.healthz), median: median(ratio(rps.api_key, rps.healthz)) },
          jwt_vs_healthz: { per_round: ratio(rps.jwt, rps.healthz), median: median(ratio(rps.jwt, rps.healthz)) },
          api_key_vs_jwt: { per_round: ratio(rps.api_key, rps.jwt), median: median(ratio(rps.api_key, rps.jwt)) },
        },
        null,
        2,
      )}\n`,
    );
    await service.stop(30_000);
  } finally {
    service.kill();
    await db.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  killAllServices();
  process.exit(1);
});
