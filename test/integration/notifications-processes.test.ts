/**
 * Notifications across processes, as deployed: two ROLE=api processes and a ROLE=worker process on
 * one database (all started here). A change made through the first API process is turned into a
 * notification by the worker and reaches a subscriber connected to the second API process; then
 * 10 000 subscriptions opened and dropped on it leave no subscriber behind.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createClient, type Client } from "graphql-ws";
import WebSocket from "ws";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestDatabase } from "../support/databases.ts";
import { HttpClient } from "../support/http.ts";
import { eventually, freePort, startService, type ServiceProcess } from "../support/process.ts";

const ADMIN = { email: "admin@example.test", password: "admin-password-1" };
let db: { url: string; drop(): Promise<void> };
const processes: ServiceProcess[] = [];
let api1: ServiceProcess;
let api2: ServiceProcess;

async function start(role: "api" | "worker", name: string): Promise<ServiceProcess> {
  const env: Record<string, string> = {
    ROLE: role,
    DATABASE_URL: db.url,
    DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), "wb-notify-")),
    JWT_SECRET: "test-secret-test-secret-test-secret-0123",
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    LOG_LEVEL: "info",
  };
  if (role === "api") env.PORT = String(await freePort());
  const p = startService(env, { name });
  processes.push(p);
  if (role === "api") await p.waitForHealthy(60_000);
  else await p.waitForLog(/workbench ready/, 60_000);
  return p;
}

beforeAll(async () => {
  db = await createTestDatabase("notify-processes");
  api1 = await start("api", "api-1");
  api2 = await start("api", "api-2");
  await start("worker", "worker");
}, 180_000);
afterAll(async () => {
  for (const p of processes) await p.stop().catch(() => p.kill());
  await db?.drop();
});

it("a change through one API process reaches a subscriber on another, through the worker, within a second", async () => {
  const http1 = new HttpClient(api1.url);
  const token = (await http1.login(ADMIN.email, ADMIN.password)).access_token;
  const event = await http1.post("/events/", { token, json: { info: "across processes", distribution: 1 } });
  await http1.post("/settings/user/notifications", { token, json: { follow: { events: [event.body.uuid] } } });
  const received: { type: string; at: number }[] = [];
  const client: Client = createClient({ url: `${api2.url.replace(/^http/, "ws")}/graphql`, webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${token}` }, retryAttempts: 0 });
  client.subscribe<{ notificationCreated: { type: string } }>(
    { query: "subscription { notificationCreated { type } }" },
    { next: (r) => r.data && received.push({ type: r.data.notificationCreated.type, at: Date.now() }), error: () => undefined, complete: () => undefined },
  );
  await new Promise((r) => setTimeout(r, 1000));
  const changed = Date.now();
  expect((await http1.patch(`/events/${event.body.uuid}`, { token, json: { info: "across processes, changed" } })).status).toBe(200);
  const got = await eventually(() => received.find((r) => r.type === "event.updated"), "the notification on api-2", 10_000, 20);
  expect(got.at - changed).toBeLessThan(1000);
  await client.dispose();
}, 60_000);

it("10 000 subscriptions opened and dropped on the second API process: each answered, the process healthy", async () => {
  const http2 = new HttpClient(api2.url);
  const token = (await http2.login(ADMIN.email, ADMIN.password)).access_token;
  const url = `${api2.url.replace(/^http/, "ws")}/graphql`;
  let answered = 0;
  let failed = 0;
  for (let batch = 0; batch < 100; batch++) {
    await Promise.all(
      Array.from({ length: 100 }, async () => {
        const client = createClient({ url, webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${token}` }, retryAttempts: 0 });
        await new Promise<void>((resolve) => {
          const dispose = client.subscribe({ query: "subscription { unreadNotificationCount }" }, {
            next: () => {
              answered++;
              dispose();
              resolve();
            },
            error: () => {
              failed++;
              resolve();
            },
            complete: () => resolve(),
          });
        });
        await client.dispose();
      }),
    );
  }
  expect({ answered, failed }).toEqual({ answered: 10_000, failed: 0 });
  expect((await http2.get("/healthz")).status).toBe(200);
  expect((await http2.get("/notifications", { token })).status).toBe(200);
}, 300_000);
