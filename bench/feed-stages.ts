/**
 * A feed's ingest stages one after the other, in process (no HTTP, no worker), with the CPU each
 * one costs per process kind: this process (parse, SQL parameters, documents, `_bulk` bodies), the
 * database's PostgreSQL backends, and the OpenSearch node (its own counter). On a shared machine
 * the CPU moves less than the wall times do, and no stage waits for another.
 *
 * 1. parse: `parseMispEvent` of each event of the synthetic feed (bench/feed-data.ts);
 * 2. store: `writeEventDraft`, one transaction per event (what the fetch run does per event file);
 * 3. correlate: `correlateChangeRange` over each range the store queued (its correlate_changes jobs);
 * 4. index: `indexChangeRange` over every range queued by then (the store's and the correlation's).
 *
 *   npx tsx bench/feed-stages.ts --feed 4x5000 --backend opensearch --opensearch http://127.0.0.1:9200
 *   npx tsx bench/feed-stages.ts --feed 4x5000 --backend postgres --stages parse,store,correlate
 *   options: --runs N (fresh database each, default 1), --stages (default parse,store,correlate,index),
 *            --profile STAGE FILE (a CPU profile of this process during store, correlate or index),
 *            --statements (the index stage's statements: count and wall time per kind, from send to
 *              answer, and the WAL it wrote: where the PostgreSQL backend's bulkIndex spends its time),
 *            --keep (keep the database, for EXPLAIN: its URL is printed),
 *            --copies N (the feed N times under new uuids: every value of a later copy is shared),
 *            --networks N (then an event of N /16 networks, correlated as its own stage: CIDR containment)
 *
 * Prints one JSON line per run on stdout.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import { Session } from "node:inspector/promises";
import os from "node:os";
import pg from "pg";
import setupTemplate from "../test/support/global-setup.ts";
import { createTestDatabase } from "../test/support/databases.ts";
import { systemPrincipal } from "../src/auth/principal.ts";
import { parseMispEvent } from "../src/modules/events/misp-parse.ts";
import { writeEventDraft } from "../src/modules/events/event-writer.ts";
import { WarninglistBuilder } from "../src/modules/warninglists/index.ts";
import { correlateChangeRange } from "../src/modules/correlations/index.ts";
import { indexChangeRange } from "../src/indexing/indexer.ts";
import { OpenSearchSearchIndex } from "../src/search/opensearch/index.ts";
import { PostgresSearchIndex } from "../src/search/postgres/index.ts";
import type { SearchIndex } from "../src/search/search-index.ts";
import { withTransaction } from "../src/platform/db/transaction.ts";
// Its bigint parser, as in the service.
import "../src/platform/db/index.ts";
import { NO_SHARING_GROUPS } from "./no-sharing-groups.ts";
import { syntheticFeed } from "./feed-data.ts";
import { round } from "./lib.ts";

const NO_LISTS = new WarninglistBuilder().build();

function option(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : fallback;
}

/** CPU seconds of a process from /proc (user + system), or 0 when it is gone. */
function procCpu(pid: number): number {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

async function openSearchCpu(url: string | null): Promise<number> {
  if (!url) return 0;
  const res = await fetch(new URL("/_nodes/_local/stats/process", url));
  const body = (await res.json()) as { nodes: Record<string, { process: { cpu: { total_in_millis: number } } }> };
  return Object.values(body.nodes)[0].process.cpu.total_in_millis / 1000;
}

/** CPU of this process, of the database's backends (pools never close theirs here), and of the node. */
async function meter(admin: pg.Pool, dbName: string, opensearch: string | null) {
  const backends = async () => {
    const { rows } = await admin.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE datname = $1", [dbName]);
    return new Map(rows.map((r) => [r.pid, procCpu(r.pid)]));
  };
  const before = { node: process.cpuUsage(), pg: await backends(), os: await openSearchCpu(opensearch), t: performance.now() };
  return async () => {
    const node = process.cpuUsage(before.node);
    let pgCpu = 0;
    for (const [pid, c] of await backends()) pgCpu += c - (before.pg.get(pid) ?? 0);
    return {
      wall_s: round((performance.now() - before.t) / 1000, 2),
      node_s: round((node.user + node.system) / 1e6, 2),
      pg_s: round(pgCpu, 2),
      os_s: round((await openSearchCpu(opensearch)) - before.os, 2),
    };
  };
}

/** A CPU profile of this process around `fn` when `stage` is the one asked for (--profile STAGE FILE). */
async function profiled<T>(stage: string, fn: () => Promise<T>): Promise<T> {
  const i = process.argv.indexOf("--profile");
  if (i < 0 || process.argv[i + 1] !== stage) return fn();
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.start");
  try {
    return await fn();
  } finally {
    const { profile } = await session.post("Profiler.stop");
    fs.writeFileSync(process.argv[i + 2], JSON.stringify(profile));
    session.disconnect();
  }
}

/** The kind of a statement: its first words, with the table it writes or reads for the search writers'. */
function statementKind(text: string): string {
  const t = text.replace(/\s+/g, " ").trim();
  const table = /\b(search_\w+)/.exec(t)?.[1];
  const verb = /^(\w+)/.exec(t)?.[1]?.toUpperCase() ?? "?";
  if (/FOR UPDATE OF t/.test(t)) return "SELECT search_terms (locked states)";
  if (/pg_advisory_xact_lock/.test(t)) return "lock";
  return table ? `${verb} ${table}` : t.slice(0, 50);
}

/**
 * Every statement of the pg clients during `fn`, timed from send to answer (--statements). Sent one
 * after another in a writer's transaction, so the times add up to its SQL time.
 */
async function timedStatements<T>(fn: () => Promise<T>): Promise<[T, Record<string, { n: number; s: number }> | null]> {
  if (!process.argv.includes("--statements")) return [await fn(), null];
  const times: Record<string, { n: number; s: number }> = {};
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const query = proto.query;
  proto.query = function (this: unknown, ...args: unknown[]) {
    const result = query.apply(this, args);
    if (!(result instanceof Promise)) return result;
    const kind = statementKind(typeof args[0] === "string" ? args[0] : ((args[0] as { text?: string }).text ?? ""));
    const t0 = performance.now();
    return result.finally(() => {
      const e = (times[kind] ??= { n: 0, s: 0 });
      e.n++;
      e.s += (performance.now() - t0) / 1000;
    });
  };
  try {
    return [await fn(), times];
  } finally {
    proto.query = query;
  }
}

async function ranges(pool: pg.Pool, task: string, after: number): Promise<[number, number][]> {
  const { rows } = await pool.query<{ id: string; first: number; last: number }>(
    `SELECT j.id::text, (j.payload->>'first_id')::int AS first, (j.payload->>'last_id')::int AS last
       FROM graphile_worker._private_jobs j JOIN graphile_worker._private_tasks t ON t.id = j.task_id
      WHERE t.identifier = $1 AND j.id > $2 ORDER BY j.id`,
    [task, after],
  );
  return rows.map((r) => [r.first, r.last]);
}

async function run(opts: { events: number; perEvent: number; copies: number; networks: number; backend: string; opensearch: string | null; stages: string[] }) {
  const db = await createTestDatabase("bench_feed_stages");
  const pool = new pg.Pool({ connectionString: db.url, max: 4, idleTimeoutMillis: 0 });
  const admin = new pg.Pool({ connectionString: db.url, max: 1, idleTimeoutMillis: 0 });
  const prefix = `bench-stages-${process.pid}-${crypto.randomBytes(3).toString("hex")}-`;
  const search: SearchIndex = opts.backend === "opensearch" ? new OpenSearchSearchIndex([opts.opensearch!], { prefix }) : new PostgresSearchIndex(pool);
  const out: Record<string, unknown> = { backend: opts.backend, attributes: opts.events * opts.perEvent * opts.copies, load: os.loadavg().map((l) => round(l, 1)) };
  try {
    await search.ensureIndices();
    const org = await pool.query<{ id: number }>("INSERT INTO organisations (uuid, name, local) VALUES ($1, 'bench', true) RETURNING id", [crypto.randomUUID()]);
    const actor = { ...systemPrincipal(), orgId: org.rows[0].id };
    const feed = syntheticFeed(opts.events, opts.perEvent);
    // Copies: the same values again under new event and attribute uuids (a feed republished, or two
    // feeds that overlap), so that every value of a copy's batch is shared.
    const docs = Array.from({ length: opts.copies }, (_, c) =>
      c === 0 ? feed : feed.map((d) => ({ Event: { ...d.Event, uuid: crypto.randomUUID(), Attribute: (d.Event.Attribute as object[]).map((a) => ({ ...a, uuid: crypto.randomUUID() })) } })),
    ).flat();
    const osUrl = opts.backend === "opensearch" ? opts.opensearch : null;

    let stop = await meter(admin, db.name, osUrl);
    const drafts = docs.map((d) => parseMispEvent(d as unknown as Record<string, unknown>).draft);
    out.parse = await stop();

    stop = await meter(admin, db.name, osUrl);
    await profiled("store", async () => {
      for (const draft of drafts) {
        await withTransaction(pool, (client) => writeEventDraft(client, actor, draft, { ownerOrgId: actor.orgId, assertCanUpdate: () => undefined, matcher: NO_LISTS, sharingGroups: NO_SHARING_GROUPS }));
      }
    });
    out.store = await stop();

    if (opts.stages.includes("correlate")) {
      stop = await meter(admin, db.name, osUrl);
      const pairs = { created: 0, removed: 0 };
      await profiled("correlate", async () => {
        for (const [first, last] of await ranges(pool, "correlate_changes", 0)) {
          const counts = await correlateChangeRange(pool, first, last);
          pairs.created += counts.created;
          pairs.removed += counts.removed;
        }
      });
      out.correlate = { ...(await stop()), pairs_created: pairs.created, pairs_removed: pairs.removed, pairs_stored: Number((await pool.query("SELECT count(*) AS n FROM correlations")).rows[0].n) };
    }
    if (opts.networks > 0) {
      // A blocklist of networks after the feed: each correlates with the feed's addresses inside it.
      const since = Number((await pool.query("SELECT COALESCE(max(id), 0) AS id FROM change_records")).rows[0].id);
      const Attribute = Array.from({ length: opts.networks }, (_, i) => ({ uuid: crypto.randomUUID(), type: "ip-dst", category: "Network activity", value: `${11 + (i % 200)}.${(i >> 3) & 255}.0.0/16`, to_ids: true }));
      const draft = parseMispEvent({ Event: { uuid: crypto.randomUUID(), info: "bench networks", timestamp: String(Math.floor(Date.now() / 1000)), Attribute } }).draft;
      await withTransaction(pool, (client) => writeEventDraft(client, actor, draft, { ownerOrgId: actor.orgId, assertCanUpdate: () => undefined, matcher: NO_LISTS, sharingGroups: NO_SHARING_GROUPS }));
      stop = await meter(admin, db.name, osUrl);
      let created = 0;
      for (const [first, last] of (await ranges(pool, "correlate_changes", 0)).filter(([first]) => first > since)) created += (await correlateChangeRange(pool, first, last)).created;
      out.correlate_networks = { ...(await stop()), networks: opts.networks, pairs_created: created };
    }
    if (opts.stages.includes("index")) {
      const lsn = async () => (await admin.query<{ l: string }>("SELECT pg_current_wal_lsn()::text AS l")).rows[0].l;
      const walBefore = await lsn();
      stop = await meter(admin, db.name, osUrl);
      let indexed = 0;
      const [, statements] = await timedStatements(() =>
        profiled("index", async () => {
          for (const [first, last] of await ranges(pool, "index_changes", 0)) indexed += (await indexChangeRange(pool, search, first, last)).indexed;
        }),
      );
      out.index = { ...(await stop()), documents: indexed };
      if (statements) {
        // The server's WAL (other databases' writers add to it: read it on a quiet server only).
        const wal = Number((await admin.query<{ d: string }>("SELECT pg_wal_lsn_diff($1, $2)::bigint AS d", [await lsn(), walBefore])).rows[0].d);
        out.index_statements = {
          wal_server_kb_per_document: round(wal / 1024 / indexed, 1),
          ...Object.fromEntries(Object.entries(statements).sort(([, a], [, b]) => b.s - a.s).map(([k, v]) => [k, { n: v.n, s: round(v.s, 2) }])),
        };
      }
    }
  } finally {
    if (opts.backend === "opensearch") for (const p of [`/${prefix}*`, `/_index_template/${prefix}*`]) await fetch(new URL(p, opts.opensearch!), { method: "DELETE" }).catch(() => undefined);
    await pool.end();
    await admin.end();
    if (process.argv.includes("--keep")) out.kept = db.url;
    else await db.drop();
  }
  out.load_after = os.loadavg().map((l) => round(l, 1));
  return out;
}

async function main() {
  const [events, perEvent] = option("--feed", "4x5000").split("x").map(Number);
  const backend = option("--backend", "postgres");
  const opensearch = option("--opensearch", process.env.OPENSEARCH_URL ?? "") || null;
  if (backend === "opensearch" && !opensearch) throw new Error("--backend opensearch needs --opensearch URL or OPENSEARCH_URL");
  const stages = option("--stages", "parse,store,correlate,index").split(",");
  const copies = Number(option("--copies", "1"));
  const networks = Number(option("--networks", "0"));
  await setupTemplate();
  for (let i = 0; i < Number(option("--runs", "1")); i++) {
    process.stdout.write(`${JSON.stringify(await run({ events, perEvent, copies, networks, backend, opensearch, stages }))}\n`);
  }
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
