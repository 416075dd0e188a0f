/**
 * Sync pull between two instances of this service (issue 26's benchmark): B holds N events of M
 * attributes (published, distribution 3); A pulls them from B's /misp/ API through a server record
 * (one server_pull run: index, events/view per event, the MISP import, cursor per event). Figure:
 * attributes per second of the run (its started_at to finished_at). Baseline in the same run: the
 * same events through POST /events/import one by one into a fresh instance C (the same import path
 * without the network). Both measure the write; indexing, correlation and notification follow in jobs.
 * The three instances run in this process (ROLE all), each on its own database.
 *
 *   npx tsx bench/server-sync.ts                 # 100 events x 1,000 attributes, 3 rounds
 *   npx tsx bench/server-sync.ts --events 20 --attributes 500 --rounds 1
 */
import crypto from "node:crypto";
import { parseArgs } from "node:util";
import setupTemplate from "../test/support/global-setup.ts";
import { startTestApp, type TestApp } from "../test/support/app.ts";
import { createOrganisation, createUser, loginAdmin, type TestUser } from "../test/support/fixtures.ts";
import { median, round } from "./lib.ts";

const { values: args } = parseArgs({ options: { events: { type: "string", default: "100" }, attributes: { type: "string", default: "1000" }, rounds: { type: "string", default: "3" } } });
const EVENTS = Number(args.events);
const ATTRIBUTES = Number(args.attributes);
const ROUNDS = Number(args.rounds);
const SYNC_SCOPES = ["events:read", "events:create", "events:update", "events:sync", "attributes:read", "tags:read", "users:me", "api_keys:create"];

function events(): { Event: Record<string, unknown> }[] {
  const ts = Math.floor(Date.now() / 1000) - 3600;
  return Array.from({ length: EVENTS }, (_, e) => ({
    Event: {
      uuid: crypto.randomUUID(), info: `bench sync ${e}`, date: "2026-11-20", threat_level_id: "2", analysis: "1", distribution: "3", published: true, timestamp: String(ts + e),
      Tag: [{ name: "tlp:green" }],
      Attribute: Array.from({ length: ATTRIBUTES }, (_, i) => ({
        uuid: crypto.randomUUID(), type: "domain", category: "Network activity", value: `v${e}-${i}-${crypto.randomBytes(3).toString("hex")}.example.org`, to_ids: true, distribution: "5", timestamp: String(ts + e),
      })),
    },
  }));
}

async function post(app: TestApp, token: string, path: string, json: unknown) {
  const res = await app.http.post(path, { token, json });
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${res.text.slice(0, 300)}`);
  return res.body;
}

async function round1(): Promise<{ pull: number; importBaseline: number }> {
  const [a, b, c] = await Promise.all([
    startTestApp("bench-sync-a", { ROLE: "all", ORG_NAME: "Alpha" }),
    startTestApp("bench-sync-b", { ROLE: "all", ORG_NAME: "Bravo" }),
    startTestApp("bench-sync-c", { ROLE: "all", ORG_NAME: "Charlie" }),
  ]);
  try {
    const [aAdmin, bAdmin, cAdmin] = await Promise.all([loginAdmin(a), loginAdmin(b), loginAdmin(c)]);
    await post(a, aAdmin.token, "/settings/runtime/feeds", { allowed_private_networks: ["127.0.0.1/32"], fetch_timeout_seconds: 120, max_download_bytes: 512 << 20 });
    const syncOrg = await createOrganisation(b, bAdmin, "Alpha (sync)");
    const syncUser: TestUser = await createUser(b, bAdmin, SYNC_SCOPES, syncOrg);
    const key = (await post(b, syncUser.token, "/api-keys/", { name: "sync", scopes: SYNC_SCOPES })).token as string;
    const docs = events();
    for (const d of docs) await post(b, bAdmin.token, "/events/import", d);

    const server = await post(a, aAdmin.token, "/servers/", { name: "bench", url: `${b.url}/misp/`, authkey: key });
    const queued = await post(a, aAdmin.token, `/servers/${server.id}/pull`, {});
    let run: { status: string; started_at: string; finished_at: string; result: Record<string, number> };
    for (;;) {
      run = (await a.http.get(`/tasks/${queued.task.id}`, { token: aAdmin.token })).body;
      if (run.status === "succeeded" || run.status === "failed") break;
      await new Promise((r) => setTimeout(r, 100));
    }
    if (run.status !== "succeeded" || run.result.attributes_created !== EVENTS * ATTRIBUTES) throw new Error(`pull: ${JSON.stringify(run).slice(0, 500)}`);
    const pullSeconds = (Date.parse(run.finished_at) - Date.parse(run.started_at)) / 1000;

    const started = performance.now();
    for (const d of docs) await post(c, cAdmin.token, "/events/import", d);
    const importSeconds = (performance.now() - started) / 1000;
    return { pull: (EVENTS * ATTRIBUTES) / pullSeconds, importBaseline: (EVENTS * ATTRIBUTES) / importSeconds };
  } finally {
    await Promise.all([a.close(), b.close(), c.close()]);
  }
}

await setupTemplate();
const pulls: number[] = [];
const imports: number[] = [];
for (let r = 0; r < ROUNDS; r++) {
  const { pull, importBaseline } = await round1();
  pulls.push(pull);
  imports.push(importBaseline);
  console.log(`round ${r + 1}: pull ${round(pull)} attributes/s, import baseline ${round(importBaseline)} attributes/s`);
}
const p = median(pulls);
const i = median(imports);
console.log(`\n${EVENTS} events x ${ATTRIBUTES} attributes, ${ROUNDS} round(s), medians:`);
console.log(`  sync pull (server_pull run, A from B's /misp/): ${round(p)} attributes/s`);
console.log(`  baseline POST /events/import one by one:       ${round(i)} attributes/s`);
console.log(`  ratio pull / import: ${round(p / i, 2)}`);
process.exit(0);
