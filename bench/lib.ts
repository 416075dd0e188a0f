import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { ROOT } from "../test/support/process.ts";

const AUTOCANNON = path.join(ROOT, "node_modules/.bin/autocannon");
export const CONNECTIONS = 10;

export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
export const round = (x: number, digits = 0) => Math.round(x * 10 ** digits) / 10 ** digits;

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

/** One autocannon run (a separate process, so the load generator does not share the service's event loop); `ratePerSecond` caps the request rate (all connections together). */
export async function autocannon(url: string, durationS: number, headers: Record<string, string> = {}, ratePerSecond?: number): Promise<LoadResult> {
  const headerArgs = Object.entries(headers).flatMap(([k, v]) => ["-H", `${k}=${v}`]);
  const rateArgs = ratePerSecond === undefined ? [] : ["-R", String(ratePerSecond)];
  const { stdout } = await promisify(execFile)(AUTOCANNON, ["-j", "-c", String(CONNECTIONS), "-d", String(durationS), ...rateArgs, ...headerArgs, url], {
    maxBuffer: 16 * 1024 * 1024,
  });
  const r = JSON.parse(stdout);
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors + r.timeouts };
}

/** The administrator a bench's child service creates at start. */
export const BENCH_ADMIN = { email: "bench-admin@example.test", password: "bench-admin-password-1" } as const;

/**
 * The environment of a service a bench starts as a child process: its own port, database and data
 * folder, quiet logs, the bench administrator, and OpenSearch when given (else the PostgreSQL backend).
 */
export function benchServiceEnv(s: { role: string; port: number; databaseUrl: string; dataDir: string; opensearch?: { url: string; prefix: string } | null }): Record<string, string> {
  return {
    ROLE: s.role,
    PORT: String(s.port),
    DATABASE_URL: s.databaseUrl,
    DATA_DIR: s.dataDir,
    LOG_LEVEL: "warn",
    JWT_SECRET: "bench-secret-bench-secret-bench-secret-0",
    ADMIN_EMAIL: BENCH_ADMIN.email,
    ADMIN_PASSWORD: BENCH_ADMIN.password,
    ...(s.opensearch ? { OPENSEARCH_URL: s.opensearch.url, OPENSEARCH_INDEX_PREFIX: s.opensearch.prefix } : {}),
  };
}
