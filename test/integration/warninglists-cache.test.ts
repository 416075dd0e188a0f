/**
 * The process's compiled warninglist matcher (src/modules/warninglists/warninglist-cache.ts) with
 * every list of the shared data enabled (135 lists): kept across a loss of the LISTEN connection,
 * and while that connection is down, kept for every write and replaced only when the enabled lists'
 * version changes (checked at most every VERSION_CHECK_MS), never recompiled per write.
 */
import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { VERSION_CHECK_MS } from "../../src/modules/warninglists/index.ts";
import { startTestApp, type TestApp } from "../support/app.ts";
import { loginAdmin, type TestUser } from "../support/fixtures.ts";
import { eventually } from "../support/process.ts";
import { sharedPath } from "../support/shared-data.ts";

const DNS_V4 = "List of known IPv4 public DNS resolvers";
const WRITES = 20;

let app: TestApp;
let admin: TestUser;
let event: string;
const sql = <T extends object = Record<string, unknown>>(text: string, params: unknown[] = []) => app.booted.ctx.db.pool.query<T>(text, params).then((r) => r.rows);
const cache = () => app.booted.ctx.warninglists;
const pubsub = () => app.booted.ctx.pubsub;

/** The backend of this instance's LISTEN connection. */
const listenerPids = async () =>
  (await sql<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'workbench-listen'")).map((r) => r.pid);

async function write(value: string): Promise<string[]> {
  const res = await app.http.post("/attributes/", { token: admin.token, json: { event_uuid: event, type: "ip-dst", value } });
  expect(res.status, res.text).toBe(201);
  return (res.body.warnings as { name: string }[]).map((w) => w.name);
}

/** WRITES attribute writes; their median time. */
async function writeBurst(): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < WRITES; i++) {
    const started = performance.now();
    await write(`10.${i}.${crypto.randomInt(256)}.1`);
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b)[WRITES >> 1];
}

beforeAll(async () => {
  app = await startTestApp("warninglists-cache", { WARNINGLISTS_SOURCE: sharedPath("misp-warninglists") });
  admin = await loginAdmin(app);
  expect((await app.http.post("/warninglists/update", { token: admin.token })).status).toBe(200);
  // Every list enabled behind the service (the hits recomputation is not what is tested here).
  await sql("UPDATE warninglists SET enabled = true");
  event = (await app.http.post("/events/", { token: admin.token, json: { info: `cache ${crypto.randomBytes(3).toString("hex")}`, distribution: 0 } })).body.uuid;
  await eventually(async () => (await cache().matcher()).listCount === 135 || undefined, "the enabled lists compiled", 30_000, 100);
}, 120_000);
afterAll(() => app?.close());

describe("the compiled matcher", () => {
  it("survives a lost LISTEN connection: after the reconnection the same matcher serves writes (a version check, no recompilation)", async () => {
    const before = await cache().matcher();
    const [pid] = await listenerPids();
    expect(pid).toBeGreaterThan(0);
    await sql("SELECT pg_terminate_backend($1)", [pid]);
    await eventually(async () => (pubsub().listening && !(await listenerPids()).includes(pid)) || undefined, "listening again", 10_000, 20);
    expect(await write("9.9.9.9")).toEqual([DNS_V4]);
    expect(await cache().matcher()).toBe(before);
  }, 30_000);

  it("this process's own change reaches its next write at once, without waiting for the notification", async () => {
    const id = (await sql<{ id: number }>("SELECT id FROM warninglists WHERE name = $1", [DNS_V4]))[0].id;
    for (const enabled of [false, true]) {
      expect((await app.http.patch(`/warninglists/${id}`, { token: admin.token, json: { enabled } })).status).toBe(200);
      expect(await write("149.112.112.112")).toEqual(enabled ? [DNS_V4] : []);
    }
  }, 30_000);

  it("while the connection is down: every write uses the kept matcher; a change to the enabled lists is picked up by the version check", async () => {
    const before = await cache().matcher();
    // The listener closed for good: the cache hears the same connection loss as from a dropped connection.
    await pubsub().close();
    expect(pubsub().listening).toBe(false);
    const median = await writeBurst();
    console.log(`${WRITES} attribute writes with 135 lists enabled while not listening: median ${median.toFixed(1)} ms per write`);
    expect(await cache().matcher()).toBe(before);
    expect(median).toBeLessThan(500);

    // Another process disables a list (no notification reaches this one).
    await sql("UPDATE warninglists SET enabled = false, updated_at = now() WHERE name = $1", [DNS_V4]);
    const after = await eventually(async () => {
      const m = await cache().matcher();
      return m !== before ? m : undefined;
    }, "the changed lists compiled", VERSION_CHECK_MS * 5, 100);
    expect(after.listCount).toBe(134);
    expect(await write("9.9.9.9")).toEqual([]);
    // And kept again: the version is unchanged.
    await new Promise((r) => setTimeout(r, VERSION_CHECK_MS + 100));
    expect(await write("149.112.112.112")).toEqual([]);
    expect(await cache().matcher()).toBe(after);
  }, 60_000);
});
