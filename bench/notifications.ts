/**
 * Notifications, with the processes as deployed: two ROLE=api processes and one ROLE=worker process
 * on one database, an SMTP server (smtp-server) in this process.
 *
 * 1. Fan-out: one event followed by 10 000 users (seeded with SQL, e-mail off); one PATCH of the
 *    event; rows per second from the commit to the last row. Baseline: the same number of rows
 *    written by one INSERT ... SELECT in the same database (the floor of what PostgreSQL takes).
 * 2. Delivery: 1 000 live `notificationCreated` subscriptions (500 on each API process) of the user
 *    who follows an event; 20 changes through the first API process; latency from the PATCH's answer
 *    (commit) to each subscription's message: p50 and p99 (goal: p99 under 500 ms).
 * 3. E-mail: 1 000 queued notification mails (as the notifier queues them): mails per second through
 *    the worker's send jobs to the SMTP server on loopback, until the last is received.
 *
 *   npx tsx bench/notifications.ts
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createClient, type Client } from "graphql-ws";
import pg from "pg";
import { SMTPServer } from "smtp-server";
import WebSocket from "ws";
import setupTemplate from "../test/support/global-setup.ts";
import { createTestDatabase } from "../test/support/databases.ts";
import { freePort, killAllServices, startService, type ServiceProcess } from "../test/support/process.ts";
import { round } from "./lib.ts";

const ADMIN = { email: "bench@example.test", password: "bench-password-1" };
const FOLLOWERS = 10_000;
const SUBSCRIBERS = 1_000;
const CHANGES = 20;
const MAILS = 1_000;

const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

async function waitUntil(probe: () => Promise<boolean>, what: string, timeoutMs = 300_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function main() {
  await setupTemplate();
  const db = await createTestDatabase("bench_notifications");
  const pool = new pg.Pool({ connectionString: db.url, max: 4 });
  let mails = 0;
  const smtpPort = await freePort();
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onData(stream, _s, cb) {
      stream.resume();
      stream.on("end", () => {
        mails++;
        cb();
      });
    },
  });
  await new Promise<void>((r) => smtp.listen(smtpPort, "127.0.0.1", r));
  const processes: ServiceProcess[] = [];
  const start = async (role: string, name: string) => {
    const env: Record<string, string> = {
      ROLE: role, DATABASE_URL: db.url, DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), "wb-bench-")), LOG_LEVEL: "warn",
      JWT_SECRET: "bench-secret-bench-secret-bench-secret-0", ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password, SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
    };
    if (role === "api") env.PORT = String(await freePort());
    const p = startService(env, { name });
    processes.push(p);
    if (role === "api") await p.waitForHealthy(60_000);
    return p;
  };
  const clients: Client[] = [];
  try {
    const api1 = await start("api", "api-1");
    const api2 = await start("api", "api-2");
    await start("worker", "worker");
    const login = await fetch(`${api1.url}/auth/token`, { method: "POST", body: new URLSearchParams({ username: ADMIN.email, password: ADMIN.password }) });
    const { access_token: token } = (await login.json()) as { access_token: string };
    const call = async (method: string, route: string, body?: unknown) => {
      const res = await fetch(`${api1.url}${route}`, { method, headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) }, body: body === undefined ? undefined : JSON.stringify(body) });
      if (res.status >= 300) throw new Error(`${method} ${route}: ${res.status} ${await res.text()}`);
      return res.json() as Promise<Record<string, unknown>>;
    };
    const adminId = (await call("GET", "/users/me")).id as number;

    // 1. Fan-out to 10 000 followers.
    const fanEvent = (await call("POST", "/events/", { info: "fan-out", distribution: 1 })).uuid as string;
    await pool.query(
      `WITH u AS (INSERT INTO users (email, password_hash, role_id, org_id)
                  SELECT 'follower-' || g || '@example.test', NULL, 3, (SELECT org_id FROM users WHERE id = $1) FROM generate_series(1, $2) g RETURNING id)
       INSERT INTO user_settings (user_id, namespace, value)
       SELECT id, 'notifications', jsonb_build_object('follow', jsonb_build_object('events', jsonb_build_array($3::text)), 'email_notifications', false) FROM u`,
      [adminId, FOLLOWERS, fanEvent],
    );
    await pool.query("ANALYZE");
    await call("PATCH", `/events/${fanEvent}`, { info: "fan-out, changed" });
    const committed = Date.now();
    await waitUntil(async () => (await pool.query<{ n: number }>("SELECT count(*)::int AS n FROM notifications WHERE type = 'event.updated'")).rows[0].n >= FOLLOWERS, "fan-out rows");
    const fanSeconds = (Date.now() - committed) / 1000;
    const b0 = Date.now();
    await pool.query(
      `INSERT INTO notifications (user_id, type, entity_type, entity_uuid, payload, dedupe_key)
       SELECT u.id, 'baseline', 'event', $1::uuid, '{"event_uuid": "x"}', 'baseline:' || u.id FROM users u WHERE u.email LIKE 'follower-%'`,
      [fanEvent],
    );
    const baselineSeconds = (Date.now() - b0) / 1000;

    // 2. Delivery latency to 1 000 subscriptions over two API processes.
    const liveEvent = (await call("POST", "/events/", { info: "live", distribution: 1 })).uuid as string;
    await call("POST", "/settings/user/notifications", { follow: { events: [liveEvent] }, email_notifications: false });
    const arrivals = new Map<string, number[]>();
    let ready = 0;
    for (let i = 0; i < SUBSCRIBERS; i++) {
      const url = `${(i % 2 ? api2 : api1).url.replace(/^http/, "ws")}/graphql`;
      const client = createClient({ url, webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${token}` }, retryAttempts: 0, on: { connected: () => void ready++ } });
      clients.push(client);
      client.subscribe<{ notificationCreated: { payload: { event_name: string } } }>(
        { query: "subscription { notificationCreated { payload } }" },
        { next: (r) => { const name = r.data?.notificationCreated.payload.event_name; if (name) (arrivals.get(name) ?? arrivals.set(name, []).get(name)!).push(Date.now()); }, error: () => undefined, complete: () => undefined },
      );
    }
    await waitUntil(async () => ready >= SUBSCRIBERS, "subscriptions connected", 60_000);
    await new Promise((r) => setTimeout(r, 2000));
    const latencies: number[] = [];
    for (let i = 0; i < CHANGES; i++) {
      const name = `live ${i}`;
      await call("PATCH", `/events/${liveEvent}`, { info: name });
      const at = Date.now();
      await waitUntil(async () => (arrivals.get(name)?.length ?? 0) >= SUBSCRIBERS, `delivery of ${name}`, 30_000);
      latencies.push(...arrivals.get(name)!.map((t) => t - at));
    }
    await Promise.all(clients.map((c) => c.dispose()));

    // 3. E-mail throughput.
    mails = 0;
    const m0 = Date.now();
    // Queued as the notifier queues them (the send jobs are what is measured).
    await pool.query(
      `WITH m AS (INSERT INTO notification_emails (user_id, to_address, subject, body, status)
                  SELECT $1, $2, 'bench ' || g, 'bench', 'queued' FROM generate_series(1, $3) g RETURNING id)
       SELECT graphile_worker.add_job('send_email', json_build_object('email_id', m.id)) FROM m`,
      [adminId, ADMIN.email, MAILS],
    );
    await waitUntil(async () => mails >= MAILS, "mails", 300_000);
    const mailSeconds = (Date.now() - m0) / 1000;

    const out = {
      date: new Date().toISOString(),
      machine: { cpus: os.cpus().length, node: process.version, loadavg: os.loadavg().map((l) => round(l, 1)) },
      fan_out: { followers: FOLLOWERS, seconds: round(fanSeconds, 2), rows_per_second: round(FOLLOWERS / fanSeconds), baseline_insert_rows_per_second: round(FOLLOWERS / baselineSeconds), ratio_to_baseline: round(baselineSeconds / fanSeconds, 3) },
      delivery: { subscribers: SUBSCRIBERS, api_processes: 2, changes: CHANGES, messages: latencies.length, p50_ms: percentile(latencies, 50), p99_ms: percentile(latencies, 99), max_ms: Math.max(...latencies), goal_p99_ms: 500 },
      email: { mails: MAILS, seconds: round(mailSeconds, 2), mails_per_second: round(MAILS / mailSeconds, 1) },
    };
    process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
    process.stderr.write(`fan-out ${JSON.stringify(out.fan_out)}\ndelivery ${JSON.stringify(out.delivery)}\nemail ${JSON.stringify(out.email)}\n`);
  } finally {
    await Promise.all(clients.map(async (c) => { try { await c.dispose(); } catch { /* already closed */ } }));
    for (const p of processes) await p.stop().catch(() => p.kill());
    killAllServices();
    await new Promise<void>((r) => smtp.close(() => r()));
    await pool.end();
    await db.drop();
  }
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  killAllServices();
  process.exit(1);
});
