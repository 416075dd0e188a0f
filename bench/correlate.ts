/**
 * Correlation benchmark, in process (no HTTP, no worker):
 *
 * 1. Base: N existing attributes (default 1 000 000) in N / 100 events, with the types and values of
 *    the real MISP events in ../shared/data (misp-feed-sample and misp-events), mutated so that values
 *    repeat the way they do in an instance: most are unique; 8% of the attributes carry values shared
 *    by 2-30 events (skewed to few events, so both pairs and the over-correlation cap occur); 20 "hot"
 *    values sit in 40-200 events; 1% repeat a value inside their event; and 10% of the feed sample's
 *    own values are already present in 1-30 events (so importing the feed correlates with the base;
 *    about 8 000 attributes, whatever N). Every generated event goes through
 *    parseMispEvent (validation, normalisation, value1/value2 split of composites) and is then
 *    inserted with set-based SQL (unnest), without change records, then ANALYZE.
 * 2. Full rebuild of that base: createRebuild + runRebuildStep until done (what the
 *    rebuild_correlations job does, step after step). Figure: wall time, attributes/s, pairs.
 * 3. Incremental, 3 runs: the 16 feed-sample events imported through the normal write path
 *    (parseMispEvent + writeEventDraft, which writes the change records), then correlateChangeRange
 *    over the new change-record range (what the dispatch job does). Figure: attributes correlated/s.
 *    Between runs the feed events are deleted (SQL) and the base attributes sharing their values are
 *    correlated again, which gives back the pairs that values pushed over the cap had lost.
 *
 * Peak RSS: process.memoryUsage().rss sampled every 100 ms during each measured part.
 *
 *   npx tsx bench/correlate.ts                        # 1 000 000 attributes (about half an hour on 2 cores)
 *   npx tsx bench/correlate.ts --attributes 100000    # quick run
 *   options: --runs 3 (incremental repetitions), --keep-db (leave the database for EXPLAIN; prints its URL),
 *            --parallel-safe-inet (keep wb_try_inet PARALLEL SAFE as migrated: see the workaround in main)
 *
 * Prints one JSON document on stdout and a compact table on stderr. Needs the test PostgreSQL
 * (TEST_DATABASE_URL, default postgresql://postgres@127.0.0.1:5432/postgres).
 */
import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import pg from "pg";
import setupTemplate from "../test/support/global-setup.ts";
import { createTestDatabase } from "../test/support/databases.ts";
import { SHARED_DATA } from "../test/support/shared-data.ts";
import { systemPrincipal, type Principal } from "../src/auth/principal.ts";
import { validateAttributeValue } from "../src/modules/attributes/catalogue/index.ts";
import { correlateChangeRange, correlateInTransaction, loadSettings, CORRELATION_BATCH } from "../src/modules/correlations/correlator.ts";
import { createRebuild, findRebuild, runRebuildStep } from "../src/modules/correlations/rebuild.ts";
import type { AttributeDraft, EventDraft } from "../src/modules/events/event-draft.ts";
import { writeEventDraft } from "../src/modules/events/event-writer.ts";
import { NO_SHARING_GROUPS } from "./no-sharing-groups.ts";
import { WarninglistBuilder } from "../src/modules/warninglists/index.ts";
import { parseMispEvent } from "../src/modules/events/misp-parse.ts";
import { withTransaction } from "../src/platform/db/transaction.ts";
import { median, round } from "./lib.ts";

const FEED_DIR = path.join(SHARED_DATA, "misp-feed-sample");
const EVENTS_DIR = path.join(SHARED_DATA, "misp-events");
const ATTRIBUTES_PER_EVENT = 100;
const SHARED_SHARE = 0.08;
const FEED_VALUES_IN_BASE = 0.1;
const HOT_VALUES = 20;
const IN_EVENT_DUPLICATES = 0.01;
const INSERT_EVENTS_PER_CHUNK = 100;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

// ---------------------------------------------------------------- options

function options() {
  const args = process.argv.slice(2);
  const value = (name: string, fallback: number) => {
    const i = args.indexOf(name);
    if (i < 0) return fallback;
    const n = Number(String(args[i + 1]).replace(/_/g, ""));
    if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} needs a positive integer`);
    return n;
  };
  return {
    attributes: value("--attributes", 1_000_000),
    runs: value("--runs", 3),
    keepDb: args.includes("--keep-db"),
    parallelSafeInet: args.includes("--parallel-safe-inet"),
  };
}

// ---------------------------------------------------------------- measuring

const mib = (bytes: number) => round(bytes / 1024 / 1024, 1);
const loadavg = () => os.loadavg().map((l) => round(l, 2));

/** Peak of process.memoryUsage().rss, sampled every 100 ms while `fn` runs. */
async function measured<T>(fn: () => Promise<T>): Promise<{ result: T; seconds: number; peakRssMiB: number; load: { before: number[]; after: number[] } }> {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 100);
  const before = loadavg();
  const started = performance.now();
  try {
    const result = await fn();
    const seconds = (performance.now() - started) / 1000;
    peak = Math.max(peak, process.memoryUsage().rss);
    return { result, seconds, peakRssMiB: mib(peak), load: { before, after: loadavg() } };
  } finally {
    clearInterval(timer);
  }
}

function vmHwmMiB(): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync("/proc/self/status", "utf8"));
  return m ? round(Number(m[1]) / 1024, 1) : NaN;
}

const log = (msg: string) => process.stderr.write(`[correlate ${new Date().toISOString().slice(11, 19)} load ${loadavg().join(" ")}] ${msg}\n`);

// ---------------------------------------------------------------- real data

interface Template {
  type: string;
  category: string;
  value: string;
  fromFeed: boolean;
  /** False when the type's values cannot be varied validly (they then repeat as they are, like CVE ids). */
  mutable: boolean;
}

function readEvents(dir: string): { file: string; body: string; doc: Json }[] {
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith(".json") && f !== "manifest.json")
    .sort()
    .map((file) => {
      const body = fs.readFileSync(path.join(dir, file), "utf8");
      return { file, body, doc: JSON.parse(body) as Json };
    })
    .filter((e) => e.doc.Event?.uuid);
}

/** Every attribute of the real events that validates, normalised, in document order (so types keep their real frequency). */
function loadTemplates(feed: { doc: Json }[], others: { doc: Json }[]): Template[] {
  const out: Template[] = [];
  for (const [docs, fromFeed] of [[feed, true], [others, false]] as const) {
    for (const { doc } of docs) {
      const e = doc.Event;
      const raw: Json[] = [...(e.Attribute ?? []), ...(e.Object ?? []).flatMap((o: Json) => o.Attribute ?? [])];
      const probe = {
        Event: {
          uuid: crypto.randomUUID(),
          info: "templates",
          Attribute: raw.map((a) => ({ uuid: crypto.randomUUID(), type: a.type, category: a.category, value: a.value })),
        },
      };
      for (const a of parseMispEvent(probe, { skipInvalidAttributes: true }).draft.attributes) {
        const m = mutate(a.type, a.value, "zz0");
        out.push({ type: a.type, category: a.category, value: a.value, fromFeed, mutable: m !== a.value && validateAttributeValue(a.type, m).ok });
      }
    }
  }
  return out;
}

// ---------------------------------------------------------------- value mutation

const HASH_LENGTHS = new Set([32, 40, 56, 64, 96, 128]);
const hexOf = (seed: string, len: number) => crypto.createHash("sha512").update(seed).digest("hex").repeat(2).slice(0, len);
const isHash = (v: string) => HASH_LENGTHS.has(v.length) && /^[0-9a-f]+$/i.test(v);

function ipOf(seed: string): string {
  const b = crypto.createHash("md5").update(seed).digest();
  return `${1 + (b[0] % 222)}.${b[1]}.${b[2]}.${1 + (b[3] % 254)}`;
}

function mutateName(name: string, tag: string): string {
  const slash = Math.max(name.lastIndexOf("/"), name.lastIndexOf("\\"));
  const dot = name.lastIndexOf(".");
  return dot > slash + 1 ? `${name.slice(0, dot)}_${tag}${name.slice(dot)}` : `${name}_${tag}`;
}

/** A value of the same type and shape as `value`, different for every `tag`. */
function mutate(type: string, value: string, tag: string): string {
  const bar = value.lastIndexOf("|");
  if (type.startsWith("filename|") || type === "malware-sample") {
    if (bar < 0) return value;
    const hash = value.slice(bar + 1);
    return `${mutateName(value.slice(0, bar), tag)}|${isHash(hash) ? hexOf(hash + tag, hash.length) : hash}`;
  }
  if (isHash(value)) return hexOf(value + tag, value.length);
  switch (type) {
    case "ip-src":
    case "ip-dst":
      return value.includes(":") ? value : ipOf(value + tag);
    case "ip-src|port":
    case "ip-dst|port":
      return bar < 0 ? value : `${ipOf(value + tag)}${value.slice(bar)}`;
    case "domain":
    case "hostname": {
      const dot = value.indexOf(".");
      return dot <= 0 ? value : `${value.slice(0, dot)}-${tag}${value.slice(dot)}`;
    }
    case "domain|ip":
      return bar < 0 ? value : `${mutate("domain", value.slice(0, bar), tag)}|${ipOf(value + tag)}`;
    case "url":
    case "link":
    case "uri": {
      const hash = value.indexOf("#");
      const base = hash < 0 ? value : value.slice(0, hash);
      return `${base}${base.includes("?") ? "&" : "?"}wb=${tag}${hash < 0 ? "" : value.slice(hash)}`;
    }
    case "size-in-bytes":
    case "counter":
    case "integer":
      return String(1 + (parseInt(hexOf(value + tag, 8), 16) % 10_000_000));
    case "filename":
    case "attachment":
    case "email-attachment":
    case "pdb":
      return mutateName(value, tag);
    default:
      if (type.startsWith("email") && /^[^@\s]+@[^@\s]+$/.test(value)) {
        const at = value.indexOf("@");
        return `${value.slice(0, at)}.${tag}${value.slice(at)}`;
      }
      return `${value}-${tag}`;
  }
}

// ---------------------------------------------------------------- base plan

/** Deterministic PRNG (mulberry32), so every run builds the same base. */
function prng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Slot {
  type: string;
  category: string;
  value: string;
}

interface Plan {
  sizes: number[];
  /** Shared values placed in each event (the rest of the event is unique values). */
  shared: Slot[][];
  stats: {
    events: number;
    shared_groups: number;
    shared_slots: number;
    groups_within_cap: number;
    groups_over_cap: number;
    feed_values_in_base: number;
    hot_values: number;
    hot_slots: number;
    expected_pairs_upper_bound: number;
  };
}

function planBase(n: number, templates: Template[], cap: number, rnd: () => number): Plan {
  const events = Math.max(2, Math.round(n / ATTRIBUTES_PER_EVENT));
  const sizes = Array.from({ length: events }, () => 20 + Math.floor(rnd() * 161));
  const total = sizes.reduce((a, b) => a + b, 0);
  const scaled = sizes.map((s) => Math.max(1, Math.round((s * n) / total)));
  scaled[events - 1] += n - scaled.reduce((a, b) => a + b, 0);
  const shared: Slot[][] = Array.from({ length: events }, () => []);
  const pick = () => templates[Math.floor(rnd() * templates.length)];
  const stats: Plan["stats"] = {
    events,
    shared_groups: 0,
    shared_slots: 0,
    groups_within_cap: 0,
    groups_over_cap: 0,
    feed_values_in_base: 0,
    hot_values: 0,
    hot_slots: 0,
    expected_pairs_upper_bound: 0,
  };
  /** One value in k distinct events; every other occurrence of a filename|hash is the plain hash (a composite match). */
  const place = (t: Template, value: string, k: number, tag: string) => {
    const chosen = new Set<number>();
    while (chosen.size < Math.min(k, events)) chosen.add(Math.floor(rnd() * events));
    let j = 0;
    for (const e of chosen) {
      const bar = value.lastIndexOf("|");
      if (t.type.startsWith("filename|") && bar > 0 && j % 2 === 1) {
        shared[e].push({ type: t.type.slice("filename|".length), category: "Payload delivery", value: value.slice(bar + 1) });
      } else if (t.type.startsWith("filename|") && bar > 0 && j > 0) {
        shared[e].push({ type: t.type, category: t.category, value: `${mutateName(value.slice(0, bar), `${tag}o${j}`)}${value.slice(bar)}` });
      } else {
        shared[e].push({ type: t.type, category: t.category, value });
      }
      j++;
    }
    stats.shared_slots += chosen.size;
    return chosen.size;
  };
  const groupSize = (min: number) => min + Math.floor((30 - min + 1) * rnd() ** 3);
  // The feed sample's own values, already known to the instance.
  const feedValues = new Set<string>();
  for (const t of templates) {
    if (!t.fromFeed || feedValues.has(t.value) || rnd() >= FEED_VALUES_IN_BASE) continue;
    feedValues.add(t.value);
    const k = place(t, t.value, groupSize(1), `f${feedValues.size}`);
    stats.feed_values_in_base++;
    stats.shared_groups++;
    if (k <= cap) stats.expected_pairs_upper_bound += (k * (k - 1)) / 2;
  }
  // Values shared by 2-30 events (skewed to few events), mutated from random real values.
  let g = 0;
  const feedSlots = stats.shared_slots;
  while (stats.shared_slots - feedSlots < SHARED_SHARE * n) {
    const t = pick();
    if (!t.mutable) continue;
    const tag = `s${(g++).toString(36)}`;
    const k = place(t, mutate(t.type, t.value, tag), groupSize(2), tag);
    stats.shared_groups++;
    if (k <= cap) {
      stats.groups_within_cap++;
      stats.expected_pairs_upper_bound += (k * (k - 1)) / 2;
    } else stats.groups_over_cap++;
  }
  // A few very common values (think 8.8.8.8 or a popular CDN): always over the cap.
  for (let h = 0; h < HOT_VALUES; h++) {
    let t = pick();
    while (!t.mutable) t = pick();
    const tag = `h${h}`;
    const k = Math.min(Math.floor(events / 2), 40 + Math.floor(rnd() * 161));
    const before = stats.shared_slots;
    place(t, mutate(t.type, t.value, tag), k, tag);
    stats.hot_values++;
    stats.hot_slots += stats.shared_slots - before;
  }
  stats.expected_pairs_upper_bound = Math.round(stats.expected_pairs_upper_bound);
  return { sizes: scaled, shared, stats };
}

/** The MISP document of base event `i`: its shared values, 1% in-event repeats, the rest unique. */
function baseEvent(i: number, plan: Plan, templates: Template[], rnd: () => number, counter: { next: number }): Json {
  const shared = plan.shared[i];
  const unique = Math.max(0, plan.sizes[i] - shared.length);
  const slots: Slot[] = [...shared];
  for (let k = 0; k < unique; k++) {
    if (slots.length > 0 && rnd() < IN_EVENT_DUPLICATES) {
      slots.push(slots[Math.floor(rnd() * slots.length)]);
      continue;
    }
    const t = templates[Math.floor(rnd() * templates.length)];
    const tag = (counter.next++).toString(36);
    slots.push({ type: t.type, category: t.category, value: t.mutable ? mutate(t.type, t.value, tag) : t.value });
  }
  // Shuffle so shared values are not all at the start of the event.
  for (let k = slots.length - 1; k > 0; k--) {
    const j = Math.floor(rnd() * (k + 1));
    [slots[k], slots[j]] = [slots[j], slots[k]];
  }
  const ts = 1_700_000_000 - Math.floor(rnd() * 3 * 365 * 86400);
  return {
    Event: {
      uuid: crypto.randomUUID(),
      info: `bench correlation base event ${i}`,
      date: new Date(ts * 1000).toISOString().slice(0, 10),
      timestamp: String(ts),
      threat_level_id: String(1 + Math.floor(rnd() * 4)),
      analysis: "2",
      distribution: String(Math.floor(rnd() * 4)),
      published: rnd() < 0.8,
      Attribute: slots.map((s) => ({ uuid: crypto.randomUUID(), type: s.type, category: s.category, value: s.value, timestamp: String(ts), to_ids: rnd() < 0.6 })),
    },
  };
}

// ---------------------------------------------------------------- base load (set-based SQL)

async function insertBaseChunk(pool: pg.Pool, drafts: EventDraft[], orgId: number, orgcIds: number[], rnd: () => number): Promise<number> {
  return withTransaction(pool, async (client) => {
    const { rows } = await client.query<{ id: number; uuid: string }>(
      `INSERT INTO events (uuid, info, date, threat_level, analysis, distribution, published, publish_timestamp, timestamp, org_id, orgc_id)
       SELECT * FROM unnest($1::uuid[], $2::text[], $3::date[], $4::smallint[], $5::smallint[], $6::smallint[], $7::boolean[], $8::bigint[],
                            $9::bigint[], $10::int[], $11::int[])
       RETURNING id, uuid::text`,
      [
        drafts.map((d) => d.uuid),
        drafts.map((d) => d.info),
        drafts.map((d) => d.date),
        drafts.map((d) => d.threatLevel),
        drafts.map((d) => d.analysis),
        drafts.map((d) => d.distribution),
        drafts.map((d) => d.published),
        drafts.map((d) => (d.published ? d.timestamp : 0)),
        drafts.map((d) => d.timestamp),
        drafts.map(() => orgId),
        drafts.map(() => orgcIds[Math.floor(rnd() * orgcIds.length)]),
      ],
    );
    const idOf = new Map(rows.map((r) => [r.uuid, r.id]));
    const all: { eventId: number; a: AttributeDraft }[] = drafts.flatMap((d) => d.attributes.map((a) => ({ eventId: idOf.get(d.uuid)!, a })));
    const col = <T>(f: (a: AttributeDraft) => T) => all.map((x) => f(x.a));
    // The columns of event-writer's upsertAttributes, values exactly as parseMispEvent normalised them.
    await client.query(
      `INSERT INTO attributes (event_id, uuid, object_id, object_relation, type, category, value, value1, value2, to_ids, comment,
                               distribution, sharing_group_id, timestamp, first_seen, last_seen, deleted, disable_correlation)
       SELECT * FROM unnest($1::int[], $2::uuid[], $3::int[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[],
                            $10::boolean[], $11::text[], $12::smallint[], $13::int[], $14::bigint[], $15::timestamptz[],
                            $16::timestamptz[], $17::boolean[], $18::boolean[])`,
      [
        all.map((x) => x.eventId),
        col((a) => a.uuid),
        col(() => null),
        col((a) => a.objectRelation),
        col((a) => a.type),
        col((a) => a.category),
        col((a) => a.value),
        col((a) => a.value1),
        col((a) => a.value2),
        col((a) => a.toIds),
        col((a) => a.comment),
        col((a) => a.distribution),
        col((a) => a.sharingGroupId),
        col((a) => a.timestamp),
        col((a) => a.firstSeen?.toISOString() ?? null),
        col((a) => a.lastSeen?.toISOString() ?? null),
        col((a) => a.deleted),
        col((a) => a.disableCorrelation),
      ],
    );
    return all.length;
  });
}

async function buildBase(pool: pg.Pool, n: number, templates: Template[], cap: number) {
  const rnd = prng(20261123);
  const plan = planBase(n, templates, cap, rnd);
  const orgs = await pool.query<{ id: number }>(
    `INSERT INTO organisations (uuid, name, local) SELECT gen_random_uuid(), 'bench-corr-' || g, g = 0 FROM generate_series(0, 12) g RETURNING id`,
  );
  const [orgId, ...orgcIds] = orgs.rows.map((r) => r.id);
  const counter = { next: 0 };
  let stored = 0;
  let skipped = 0;
  let parseMs = 0;
  for (let i = 0; i < plan.stats.events; i += INSERT_EVENTS_PER_CHUNK) {
    const drafts: EventDraft[] = [];
    const t0 = performance.now();
    for (let e = i; e < Math.min(plan.stats.events, i + INSERT_EVENTS_PER_CHUNK); e++) {
      const parsed = parseMispEvent(baseEvent(e, plan, templates, rnd, counter), { skipInvalidAttributes: true });
      skipped += parsed.skipped.length;
      drafts.push(parsed.draft);
    }
    parseMs += performance.now() - t0;
    stored += await insertBaseChunk(pool, drafts, orgId, orgcIds, rnd);
    plan.shared.fill([], i, i + INSERT_EVENTS_PER_CHUNK);
    if ((i / INSERT_EVENTS_PER_CHUNK) % 20 === 0) log(`base: ${stored} attributes in ${i + drafts.length} events`);
  }
  await pool.query("ANALYZE events");
  await pool.query("ANALYZE attributes");
  return { plan: plan.stats, stored, skipped, orgId, parseSeconds: round(parseMs / 1000, 1) };
}

// ---------------------------------------------------------------- database figures

async function tableFigures(pool: pg.Pool) {
  const { rows } = await pool.query<Json>(
    `SELECT (SELECT count(*)::int FROM correlations) AS pairs,
            (SELECT count(*)::int FROM attributes) AS attributes,
            (SELECT count(*)::int FROM events) AS events,
            (SELECT count(*)::int FROM change_records) AS change_records,
            pg_total_relation_size('correlations') AS correlations_bytes,
            pg_total_relation_size('attributes') AS attributes_bytes,
            pg_total_relation_size('change_records') AS change_records_bytes`,
  );
  const r = rows[0];
  return {
    pairs: r.pairs,
    attributes: r.attributes,
    events: r.events,
    change_records: r.change_records,
    correlations_table_mib: mib(Number(r.correlations_bytes)),
    attributes_table_mib: mib(Number(r.attributes_bytes)),
    change_records_table_mib: mib(Number(r.change_records_bytes)),
  };
}

const maxChangeId = async (pool: pg.Pool) => Number((await pool.query<{ id: string }>("SELECT coalesce(max(id), 0)::text AS id FROM change_records")).rows[0].id);

// ---------------------------------------------------------------- full rebuild

async function fullRebuild(pool: pg.Pool) {
  const before = await tableFigures(pool);
  let steps = 0;
  const m = await measured(async () => {
    const rebuild = await createRebuild(pool, null);
    while (await runRebuildStep(pool, rebuild.id)) {
      steps++;
      const row = await findRebuild(pool, rebuild.id);
      log(`rebuild: step ${steps}, ${row?.processed}/${row?.total} attributes, ${row?.created} pairs`);
    }
    steps++;
    return (await findRebuild(pool, rebuild.id))!;
  });
  const row = m.result;
  if (row.status !== "succeeded") throw new Error(`rebuild ended ${row.status}: ${row.error}`);
  await pool.query("ANALYZE correlations");
  const after = await tableFigures(pool);
  const byType = await pool.query<{ match_type: string; n: number }>("SELECT match_type, count(*)::int AS n FROM correlations GROUP BY 1 ORDER BY 1");
  return {
    attributes: row.processed,
    seconds: round(m.seconds, 1),
    attributes_per_second: Math.round(row.processed / m.seconds),
    steps,
    batches: Math.ceil(row.processed / CORRELATION_BATCH),
    pairs_created: row.created,
    pairs_removed: row.removed,
    pairs_by_match_type: Object.fromEntries(byType.rows.map((r) => [r.match_type, r.n])),
    change_records_written: after.change_records - before.change_records,
    peak_rss_mib: m.peakRssMiB,
    correlations_table_mib: after.correlations_table_mib,
    load: m.load,
    tables_after: after,
  };
}

// ---------------------------------------------------------------- incremental

interface IncrementalRun {
  import_seconds: number;
  change_records: number;
  attributes: number;
  seconds: number;
  attributes_per_second: number;
  pairs_created: number;
  pairs_removed: number;
  peak_rss_mib: number;
  load: { before: number[]; after: number[] };
  pairs_before: number;
  pairs_after_delete: number;
  pairs_restored: number;
}

/** Correlation is measured without warninglists (bench/warninglists.ts measures them). */
const NO_LISTS = new WarninglistBuilder().build();

async function importFeed(pool: pg.Pool, actor: Principal, feed: { body: string }[]) {
  let attributes = 0;
  for (const f of feed) {
    const { draft } = parseMispEvent(JSON.parse(f.body), { skipInvalidAttributes: true });
    const res = await withTransaction(pool, (client) => writeEventDraft(client, actor, draft, { ownerOrgId: actor.orgId!, assertCanUpdate: () => undefined, matcher: NO_LISTS, sharingGroups: NO_SHARING_GROUPS }));
    attributes += res.attributes.created;
  }
  return attributes;
}

/** Ids of base attributes holding one of these values (value1, or value2 of a composite). */
async function baseAttributesWithValues(pool: pg.Pool, values: string[]): Promise<number[]> {
  const { rows } = await pool.query<{ id: string }>(
    "SELECT id::text FROM attributes WHERE value1 = ANY($1::text[]) UNION SELECT id::text FROM attributes WHERE value2 = ANY($1::text[]) ORDER BY 1",
    [values],
  );
  return rows.map((r) => Number(r.id));
}

async function incrementalRun(pool: pg.Pool, actor: Principal, feed: { body: string }[], feedUuids: string[], feedValues: string[]): Promise<IncrementalRun> {
  const pairsBefore = (await tableFigures(pool)).pairs;
  const firstId = (await maxChangeId(pool)) + 1;
  const t0 = performance.now();
  const imported = await importFeed(pool, actor, feed);
  const importSeconds = (performance.now() - t0) / 1000;
  const lastId = await maxChangeId(pool);
  const m = await measured(() => correlateChangeRange(pool, firstId, lastId));
  const counts = m.result;
  if (counts.attributes < imported) throw new Error(`correlated ${counts.attributes} attributes, imported ${imported}`);

  // Back to the base: the feed events go (their pairs by cascade). Values that the import pushed over
  // the cap lost their pairs between base attributes; a DELETE in SQL writes no change records, so the
  // base attributes holding the feed's values are correlated again here (not measured).
  await pool.query("DELETE FROM events WHERE uuid = ANY($1::uuid[])", [feedUuids]);
  const pairsAfterDelete = (await tableFigures(pool)).pairs;
  const settings = await loadSettings(pool);
  const ids = await baseAttributesWithValues(pool, feedValues);
  let restored = 0;
  for (let i = 0; i < ids.length; i += CORRELATION_BATCH) restored += (await correlateInTransaction(pool, ids.slice(i, i + CORRELATION_BATCH), settings)).created.length;
  return {
    import_seconds: round(importSeconds, 2),
    change_records: lastId - firstId + 1,
    attributes: counts.attributes,
    seconds: round(m.seconds, 2),
    attributes_per_second: Math.round(counts.attributes / m.seconds),
    pairs_created: counts.created,
    pairs_removed: counts.removed,
    peak_rss_mib: m.peakRssMiB,
    load: m.load,
    pairs_before: pairsBefore,
    pairs_after_delete: pairsAfterDelete,
    pairs_restored: restored,
  };
}

// ---------------------------------------------------------------- main

function table(rows: [string, string, string][]): string {
  const widths = [0, 1, 2].map((c) => Math.max(...rows.map((r) => r[c].length)));
  return rows.map((r) => `| ${r.map((cell, c) => cell.padEnd(widths[c])).join(" | ")} |`).join("\n");
}

async function main() {
  const opts = options();
  // Which correlation code ran (other work may change it between runs): commit, and whether it was edited.
  const git = (...args: string[]) => execFileSync("git", args, { cwd: path.dirname(new URL(import.meta.url).pathname), encoding: "utf8" }).trim();
  const codeVersion = { commit: git("rev-parse", "--short", "HEAD"), correlations_modified: git("status", "--porcelain", "--", "../src/modules/correlations") !== "" };
  const fmt = (x: number) => x.toLocaleString("en-US");
  await setupTemplate();
  const feed = readEvents(FEED_DIR);
  const templates = loadTemplates(feed, readEvents(EVENTS_DIR));
  const db = await createTestDatabase("bench_correlate");
  const pool = new pg.Pool({ connectionString: db.url, max: 4 });
  pool.on("error", () => undefined);
  const loadStart = loadavg();
  try {
    const cap = (await loadSettings(pool)).maxEventsPerValue;
    // wb_try_inet has an EXCEPTION block (a subtransaction) but is declared PARALLEL SAFE: on
    // PostgreSQL 15 any parallel plan of the CIDR query then fails with "cannot start subtransactions
    // during a parallel operation". Until the migration says otherwise, this scratch database gets the fix.
    const workarounds: string[] = [];
    const inet = await pool.query<{ proparallel: string }>("SELECT proparallel FROM pg_proc WHERE proname = 'wb_try_inet'");
    if (inet.rows[0]?.proparallel === "s" && !opts.parallelSafeInet) {
      await pool.query("ALTER FUNCTION wb_try_inet(text) PARALLEL UNSAFE");
      workarounds.push("ALTER FUNCTION wb_try_inet(text) PARALLEL UNSAFE (scratch database only)");
    }
    log(`database ${db.name}; ${templates.length} real attributes as templates; cap ${cap} events per value`);

    const t0 = performance.now();
    const base = await buildBase(pool, opts.attributes, templates, cap);
    const baseSeconds = (performance.now() - t0) / 1000;
    log(`base: ${base.stored} attributes in ${round(baseSeconds, 1)} s`);

    const rebuild = await fullRebuild(pool);
    log(`rebuild: ${rebuild.seconds} s, ${rebuild.attributes_per_second} attributes/s, ${rebuild.pairs_created} pairs`);

    const org = await pool.query<{ id: number }>("INSERT INTO organisations (uuid, name, local) VALUES ($1, 'bench-corr-importer', true) RETURNING id", [crypto.randomUUID()]);
    const actor: Principal = { ...systemPrincipal(), orgId: org.rows[0].id };
    const feedUuids = feed.map((f) => String(f.doc.Event.uuid).toLowerCase());
    const feedValues = [
      ...new Set(
        feed.flatMap((f) => {
          const { draft } = parseMispEvent(f.doc, { skipInvalidAttributes: true });
          return [...draft.attributes, ...draft.objects.flatMap((o) => o.attributes)].flatMap((a) => (a.value2 ? [a.value1, a.value2] : [a.value1]));
        }),
      ),
    ];
    const runs: IncrementalRun[] = [];
    for (let i = 0; i < opts.runs; i++) {
      runs.push(await incrementalRun(pool, actor, feed, feedUuids, feedValues));
      const r = runs[runs.length - 1];
      log(`incremental ${i + 1}: ${r.attributes} attributes in ${r.seconds} s (${r.attributes_per_second}/s), +${r.pairs_created} -${r.pairs_removed} pairs`);
    }
    const med = (f: (r: IncrementalRun) => number) => median(runs.map(f));
    const result = {
      date: new Date().toISOString(),
      machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, node: process.version, loadavg_start: loadStart, loadavg_end: loadavg() },
      command: `npx tsx bench/correlate.ts --attributes ${opts.attributes}`,
      code: codeVersion,
      database: opts.keepDb ? db.url : db.name,
      postgresql: (await pool.query<{ v: string }>("SELECT current_setting('server_version') AS v")).rows[0].v,
      workarounds,
      base: {
        attributes_requested: opts.attributes,
        attributes_stored: base.stored,
        skipped_invalid: base.skipped,
        templates: templates.length,
        templates_not_mutable: templates.filter((t) => !t.mutable).length,
        load_seconds: round(baseSeconds, 1),
        parse_seconds: base.parseSeconds,
        max_events_per_value: cap,
        plan: base.plan,
      },
      full_rebuild: rebuild,
      incremental: {
        feed_events: feed.length,
        runs,
        median: {
          attributes: med((r) => r.attributes),
          seconds: round(med((r) => r.seconds), 2),
          attributes_per_second: med((r) => r.attributes_per_second),
          pairs_created: med((r) => r.pairs_created),
          pairs_removed: med((r) => r.pairs_removed),
          peak_rss_mib: round(med((r) => r.peak_rss_mib), 1),
          import_seconds: round(med((r) => r.import_seconds), 2),
        },
      },
      process_vm_hwm_mib: vmHwmMiB(),
    };
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    const inc = result.incremental.median;
    process.stderr.write(
      `\n${table([
        ["figure", "value", "detail"],
        ["base attributes / events", `${fmt(base.stored)} / ${fmt(base.plan.events)}`, `loaded in ${round(baseSeconds, 1)} s`],
        ["full rebuild, s", String(rebuild.seconds), `${fmt(rebuild.attributes_per_second)} attributes/s, ${fmt(rebuild.pairs_created)} pairs, peak RSS ${rebuild.peak_rss_mib} MiB, correlations ${rebuild.correlations_table_mib} MiB`],
        ["incremental, attributes/s (median)", fmt(inc.attributes_per_second), `runs ${runs.map((r) => fmt(r.attributes_per_second)).join(" / ")}; ${fmt(inc.attributes)} attributes in ${inc.seconds} s`],
        ["incremental, pairs (median)", `+${fmt(inc.pairs_created)} -${fmt(inc.pairs_removed)}`, `peak RSS ${inc.peak_rss_mib} MiB (runs ${runs.map((r) => r.peak_rss_mib).join(" / ")})`],
        ["load average", `${loadStart.join(" ")} -> ${loadavg().join(" ")}`, `${os.cpus().length} cpus`],
      ])}\n`,
    );
  } finally {
    await pool.end();
    if (!opts.keepDb) await db.drop();
    else log(`kept ${db.url}`);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
