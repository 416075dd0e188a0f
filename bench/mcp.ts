/**
 * The MCP server (issue 23): tool-call latency over MCP against the same reads over REST, in the
 * same run, and many MCP sessions held open at once.
 *
 *   npx tsx bench/mcp.ts [--events 20] [--requests 200] [--sessions 200]
 *
 * The service runs as a child process (ROLE=all, PostgreSQL search backend) on a fresh database
 * cloned from the test template; `--events` events of 100 attributes (ip-dst, tagged) and 3
 * objects are imported through POST /events/import and indexed by its worker. One API key holding
 * `mcp:*` and the read scopes is the credential of both sides, so authentication costs the same.
 *
 *   - search_attributes: MCP `search_attributes {query, size: 10}` against REST
 *     `GET /attributes/search?query=…&size=10` (the same service call);
 *   - get_event: MCP `get_event {event_uuid}` (event, tags, retention badge, related events, 100
 *     attributes, 20 objects) against what a REST client requests for the same content, the three
 *     requests sent at once: `GET /events/{uuid}` (with related events), `GET /attributes/?event_uuid=
 *     &size=100&deleted=false`, `GET /objects/?event_uuid=&size=20`; also `GET /events/{uuid}` alone.
 *
 * Calls are sequential, one at a time, MCP and REST alternating (which goes first alternates too)
 * over the same events, after a warm-up; the MCP client is the SDK's own (Streamable HTTP, one
 * session). Goal: MCP median at most 1.3x REST's.
 *
 * Sessions: `--sessions` SDK clients connect (initialize, then the client's SSE stream stays open)
 * as users of 20 sessions each (the per-user limit, MAX_SESSIONS_PER_USER), with tokens from
 * /mcp/config; the service's RSS (/proc/<pid>/status VmRSS) before, with them open, and after they
 * are ended (DELETE), plus get_event latency through one of them while all are open.
 * Prints one JSON document on stdout; progress on stderr.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import setupTemplate from "../test/support/global-setup.ts";
import { createTestDatabase } from "../test/support/databases.ts";
import { HttpClient } from "../test/support/http.ts";
import { eventually, freePort, killAllServices, sleep, startService, type ServiceProcess } from "../test/support/process.ts";
import { BENCH_ADMIN, benchServiceEnv, median, round } from "./lib.ts";

const { values: args } = parseArgs({
  options: { events: { type: "string", default: "20" }, requests: { type: "string", default: "200" }, sessions: { type: "string", default: "200" } },
});
const EVENTS = Number(args.events);
const REQUESTS = Number(args.requests);
const SESSIONS = Number(args.sessions);
const ATTRIBUTES = 100;
const OBJECTS = 3;
const WARM_UP = 20;
/** src/mcp/mcp-http.ts MAX_SESSIONS_PER_USER. */
const SESSIONS_PER_USER = 20;
const READS = ["events:read", "attributes:read", "objects:read", "correlations:read", "tags:read"];

const log = (msg: string) => process.stderr.write(`[bench/mcp] ${msg}\n`);
const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(xs.length * 0.95) - 1)];
const summary = (ms: number[]) => ({ median_ms: round(median(ms), 2), p95_ms: round(p95(ms), 2), calls: ms.length });
const ratio = (mcp: number[], rest: number[]) => ({ median: round(median(mcp) / median(rest), 2), p95: round(p95(mcp) / p95(rest), 2) });

const eventUuid = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`;

function mispEvent(i: number) {
  const attribute = (j: number, extra: Record<string, unknown> = {}) => ({
    uuid: crypto.randomUUID(),
    type: "ip-dst",
    category: "Network activity",
    value: `10.${i}.${Math.floor(j / 250)}.${j % 250}`,
    to_ids: j % 2 === 0,
    Tag: [{ name: `bench:attribute-${j % 3}` }],
    ...extra,
  });
  return {
    Event: {
      uuid: eventUuid(i),
      info: `bench event ${i}`,
      date: "2026-01-01",
      threat_level_id: "2",
      analysis: "1",
      distribution: "1",
      Tag: [{ name: "tlp:green" }, { name: `bench:event-${i % 5}` }],
      Attribute: Array.from({ length: ATTRIBUTES }, (_, j) => attribute(j)),
      Object: Array.from({ length: OBJECTS }, (_, k) => ({
        uuid: crypto.randomUUID(),
        name: "domain-ip",
        "meta-category": "network",
        distribution: "5",
        Attribute: [
          { uuid: crypto.randomUUID(), type: "domain", value: `host${k}.event${i}.example`, object_relation: "domain" },
          { uuid: crypto.randomUUID(), type: "ip-dst", value: `10.${i}.200.${k}`, object_relation: "ip" },
        ],
      })),
    },
  };
}

function rssMb(pid: number): number {
  const line = fs.readFileSync(`/proc/${pid}/status`, "utf8").split("\n").find((l) => l.startsWith("VmRSS:"));
  return round(Number(line?.match(/(\d+)/)?.[1] ?? 0) / 1024, 1);
}

async function connect(url: string, token: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
  const client = new Client({ name: "bench", version: "1.0.0" });
  await client.connect(transport);
  return { client, transport };
}

/** What the bench reads of the tools' structured content. */
interface ToolAnswer {
  total: number;
  hits: unknown[];
  attributes: unknown[];
  objects: unknown[];
}

async function tool(client: Client, name: string, a: Record<string, unknown>): Promise<ToolAnswer> {
  const r = (await client.callTool({ name, arguments: a })) as CallToolResult;
  if (r.isError) throw new Error(`${name}: ${JSON.stringify(r.content).slice(0, 500)}`);
  return r.structuredContent as unknown as ToolAnswer;
}

async function main() {
  await setupTemplate();
  const db = await createTestDatabase("bench_mcp");
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "wb-bench-"));
  const port = await freePort();
  let service: ServiceProcess | null = null;
  const open: { client: Client; transport: StreamableHTTPClientTransport }[] = [];
  try {
    service = startService(benchServiceEnv({ role: "all", port, databaseUrl: db.url, dataDir }), { name: "api" });
    await service.waitForHealthy(120_000);
    const url = service.url;
    const http = new HttpClient(url, { checkContract: false });
    const admin = (await http.login(BENCH_ADMIN.email, BENCH_ADMIN.password)).access_token;
    const ok = async (method: string, p: string, token: string, json?: unknown, status = 200) => {
      const res = await http.request(method, p, { token, json });
      if (res.status !== status) throw new Error(`${method} ${p}: ${res.status} ${res.text.slice(0, 500)}`);
      return res.body;
    };

    log(`importing ${EVENTS} events of ${ATTRIBUTES} attributes and ${OBJECTS} objects`);
    for (let i = 0; i < EVENTS; i++) await ok("POST", "/events/import", admin, mispEvent(i), 201);
    const key = (await ok("POST", "/api-keys/", admin, { name: "bench mcp", scopes: ["mcp:*", ...READS] }, 201)).token as string;
    const expected = EVENTS * (ATTRIBUTES + 2 * OBJECTS);
    await eventually(async () => (await http.get(`/attributes/search?size=1&query=*`, { token: key })).body?.total === expected || null, `${expected} attributes indexed`, 300_000, 500);
    await sleep(2_000); // the worker's correlation and notification jobs after the indexing

    // ---- latency: MCP against REST, alternating ----
    const mcp = await connect(url, key);
    open.push(mcp);
    const searchQuery = (i: number) => `type:ip-dst AND event_uuid:"${eventUuid(i % EVENTS)}"`;
    const calls = {
      mcp_search: async (i: number) => {
        const r = await tool(mcp.client, "search_attributes", { query: searchQuery(i), size: 10 });
        if (r.total !== ATTRIBUTES + OBJECTS || r.hits.length !== 10) throw new Error(`search_attributes: ${r.total}`);
      },
      rest_search: async (i: number) => {
        const r = await ok("GET", `/attributes/search?size=10&query=${encodeURIComponent(searchQuery(i))}`, key);
        if (r.total !== ATTRIBUTES + OBJECTS || r.results?.length !== 10) throw new Error(`REST search: ${r.total}`);
      },
      mcp_event: async (i: number) => {
        const r = await tool(mcp.client, "get_event", { event_uuid: eventUuid(i % EVENTS) });
        if (r.attributes.length !== ATTRIBUTES || r.objects.length !== OBJECTS) throw new Error(`get_event: ${r.attributes.length} ${r.objects.length}`);
      },
      rest_event: async (i: number) => {
        const u = eventUuid(i % EVENTS);
        const [, attributes, objects] = await Promise.all([
          ok("GET", `/events/${u}`, key),
          ok("GET", `/attributes/?event_uuid=${u}&size=100&deleted=false`, key),
          ok("GET", `/objects/?event_uuid=${u}&size=20`, key),
        ]);
        if (attributes.items.length !== ATTRIBUTES || objects.items.length !== OBJECTS) throw new Error("REST event reads");
      },
      rest_event_only: async (i: number) => {
        await ok("GET", `/events/${eventUuid(i % EVENTS)}`, key);
      },
    };
    const ms: Record<keyof typeof calls, number[]> = { mcp_search: [], rest_search: [], mcp_event: [], rest_event: [], rest_event_only: [] };
    const timed = async (name: keyof typeof calls, i: number) => {
      const t0 = performance.now();
      await calls[name](i);
      if (i >= WARM_UP) ms[name].push(performance.now() - t0);
    };
    log(`latency: ${REQUESTS} calls of each after ${WARM_UP} warm-up calls`);
    for (let i = 0; i < REQUESTS + WARM_UP; i++) {
      const order: (keyof typeof calls)[][] = [
        ["mcp_search", "rest_search"],
        ["mcp_event", "rest_event", "rest_event_only"],
      ];
      for (const pair of order) for (const name of i % 2 ? [...pair].reverse() : pair) await timed(name, i);
    }
    const latency = {
      search_attributes: { mcp: summary(ms.mcp_search), rest: summary(ms.rest_search), mcp_over_rest: ratio(ms.mcp_search, ms.rest_search) },
      get_event: {
        mcp: summary(ms.mcp_event),
        rest_same_content: summary(ms.rest_event),
        rest_get_event_only: summary(ms.rest_event_only),
        mcp_over_rest_same_content: ratio(ms.mcp_event, ms.rest_event),
        mcp_over_rest_get_event_only: ratio(ms.mcp_event, ms.rest_event_only),
      },
    };
    log(JSON.stringify(latency));

    // ---- sessions held open ----
    const users = Math.ceil(SESSIONS / SESSIONS_PER_USER);
    const roleId = (await ok("POST", "/roles/", admin, { name: `bench-mcp-${crypto.randomBytes(3).toString("hex")}`, scopes: ["mcp:*", "mcp:config", ...READS] }, 201)).id;
    const tokens: string[] = [];
    for (let u = 0; u < users; u++) {
      const email = `bench-mcp-${u}-${crypto.randomBytes(3).toString("hex")}@example.test`;
      const password = `pw-${crypto.randomBytes(8).toString("hex")}`;
      await ok("POST", "/users/", admin, { email, password, role_id: roleId, org_id: 1 }, 201);
      const login = (await http.login(email, password)).access_token;
      tokens.push((await ok("GET", "/mcp/config", login)).token as string);
    }
    await sleep(1_000);
    const rssBefore = rssMb(service.pid);
    log(`opening ${SESSIONS} sessions as ${users} users; service RSS ${rssBefore} MB`);
    const t0 = performance.now();
    const sessions: { client: Client; transport: StreamableHTTPClientTransport }[] = [];
    for (let u = 0; u < users; u++) {
      const n = Math.min(SESSIONS_PER_USER, SESSIONS - u * SESSIONS_PER_USER);
      sessions.push(...(await Promise.all(Array.from({ length: n }, () => connect(url, tokens[u])))));
    }
    open.push(...sessions);
    const openSeconds = round((performance.now() - t0) / 1000, 2);
    await sleep(3_000);
    const rssOpen = rssMb(service.pid);
    const during: number[] = [];
    for (let i = 0; i < 50; i++) {
      const s = sessions[(i * 7) % sessions.length];
      const c0 = performance.now();
      await tool(s.client, "get_event", { event_uuid: eventUuid(i % EVENTS) });
      during.push(performance.now() - c0);
    }
    const pings = await Promise.all(sessions.map((s) => s.client.ping().then(() => true, () => false)));
    log(`${pings.filter(Boolean).length} of ${sessions.length} sessions answer a ping; RSS ${rssOpen} MB`);
    await Promise.all(sessions.map((s) => s.transport.terminateSession().catch(() => undefined)));
    await Promise.all(sessions.map((s) => s.client.close().catch(() => undefined)));
    open.splice(1);
    await sleep(3_000);
    const rssAfter = rssMb(service.pid);

    const result = {
      date: new Date().toISOString(),
      machine: { cpus: os.cpus().length, cpu: os.cpus()[0]?.model, node: process.version, note: "shared with other work while measured (noisy)" },
      setup: { events: EVENTS, attributes_per_event: ATTRIBUTES, objects_per_event: OBJECTS, requests: REQUESTS, warm_up: WARM_UP, backend: "postgres", role: "all" },
      latency,
      goal_mcp_at_most_1_3x_rest: latency.search_attributes.mcp_over_rest.median <= 1.3 && latency.get_event.mcp_over_rest_same_content.median <= 1.3,
      sessions: {
        opened: sessions.length,
        users,
        seconds_to_open: openSeconds,
        answering_ping: pings.filter(Boolean).length,
        rss_mb_before: rssBefore,
        rss_mb_open: rssOpen,
        rss_mb_after_ended: rssAfter,
        rss_kb_per_session: round(((rssOpen - rssBefore) * 1024) / sessions.length, 1),
        get_event_while_open: summary(during),
      },
    };
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    await Promise.all(open.map((s) => s.client.close().catch(() => undefined)));
    const stop = await service.stop(30_000);
    if (stop.code !== 0) throw new Error(`service exited ${JSON.stringify(stop)}:\n${service.tail()}`);
  } finally {
    service?.kill();
    await db.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  killAllServices();
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
