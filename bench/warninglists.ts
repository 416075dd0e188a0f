/**
 * Warninglists benchmark.
 *
 * 1. Ingest cost: every event of ../shared/data/misp-feed-sample through the ingest write path (MISP
 *    parsing and writeEventDraft, as POST /events/import and feed ingestion write), with every list
 *    of ../shared/data/misp-warninglists enabled versus none, in the same run: ROUNDS pairs, each
 *    side on a fresh database cloned from the template, the order alternating; the ratio of medians.
 *    The matcher is compiled once before (as a process does after a list change); its compile time
 *    is reported beside.
 * 2. Matching rate per list type: the matcher of the lists of one type alone against the feed
 *    sample's attribute values (their own types, as on write), repeated to about 200,000 values;
 *    values per second, median of 5.
 *
 *   npx tsx bench/warninglists.ts
 *
 * Needs the test PostgreSQL (TEST_DATABASE_URL, default postgresql://postgres@127.0.0.1:5432/postgres).
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import pg from "pg";
import setupTemplate from "../test/support/global-setup.ts";
import { createTestDatabase } from "../test/support/databases.ts";
import { SHARED_DATA } from "../test/support/shared-data.ts";
import { systemPrincipal } from "../src/auth/principal.ts";
import { parseMispEvent } from "../src/modules/events/misp-parse.ts";
import { writeEventDraft } from "../src/modules/events/event-writer.ts";
import { NO_SHARING_GROUPS } from "./no-sharing-groups.ts";
import { WARNINGLIST_TYPES, WarninglistBuilder, type WarninglistMatcher, type WarninglistType } from "../src/modules/warninglists/index.ts";
import { withTransaction } from "../src/platform/db/transaction.ts";
import { median, round } from "./lib.ts";

const ROUNDS = 5;
const FEED_DIR = path.join(SHARED_DATA, "misp-feed-sample");
const LISTS_DIR = path.join(SHARED_DATA, "misp-warninglists", "lists");

interface ListFile {
  name: string;
  type: WarninglistType;
  matching_attributes?: string[];
  list: string[];
}

const lists: ListFile[] = fs
  .readdirSync(LISTS_DIR)
  .sort()
  .filter((d) => fs.existsSync(path.join(LISTS_DIR, d, "list.json")))
  .map((d) => JSON.parse(fs.readFileSync(path.join(LISTS_DIR, d, "list.json"), "utf8")) as ListFile);

function compile(only?: WarninglistType): { matcher: WarninglistMatcher; ms: number; lists: number } {
  const started = performance.now();
  const b = new WarninglistBuilder();
  let n = 0;
  lists.forEach((l, i) => {
    if (only && l.type !== only) return;
    n++;
    b.addList({ id: i + 1, name: l.name, type: l.type, matchingAttributes: l.matching_attributes ?? [] })(l.list);
  });
  const matcher = b.build();
  return { matcher, ms: performance.now() - started, lists: n };
}

const feed = fs
  .readdirSync(FEED_DIR)
  .filter((f) => f.endsWith(".json") && f !== "manifest.json")
  .sort()
  .map((f) => fs.readFileSync(path.join(FEED_DIR, f), "utf8"));

/** One ingest of the whole sample on a fresh database: the write path's milliseconds and the hits stored. */
async function ingest(matcher: WarninglistMatcher, label: string): Promise<{ ms: number; attributes: number; withHits: number }> {
  const db = await createTestDatabase(label);
  const pool = new pg.Pool({ connectionString: db.url, max: 2 });
  try {
    const org = await pool.query<{ id: number }>("INSERT INTO organisations (uuid, name, local) VALUES ($1, 'bench', true) RETURNING id", [crypto.randomUUID()]);
    const actor = { ...systemPrincipal(), orgId: org.rows[0].id };
    let attributes = 0;
    const started = performance.now();
    for (const text of feed) {
      const { draft } = parseMispEvent(JSON.parse(text), { skipInvalidAttributes: true });
      const r = await withTransaction(pool, (client) => writeEventDraft(client, actor, draft, { ownerOrgId: actor.orgId, assertCanUpdate: () => undefined, matcher, sharingGroups: NO_SHARING_GROUPS }));
      attributes += r.attributes.created;
    }
    const ms = performance.now() - started;
    const hits = await pool.query<{ n: number }>("SELECT count(*)::int AS n FROM attributes WHERE warnings <> '[]'::jsonb");
    return { ms, attributes, withHits: hits.rows[0].n };
  } finally {
    await pool.end();
    await db.drop();
  }
}

/** The feed sample's attribute values as written (type, value1, value2). */
function sampleValues(): [string, string, string | null][] {
  const out: [string, string, string | null][] = [];
  for (const text of feed) {
    const { draft } = parseMispEvent(JSON.parse(text), { skipInvalidAttributes: true });
    for (const a of [...draft.attributes, ...draft.objects.flatMap((o) => o.attributes)]) out.push([a.type, a.value1, a.value2]);
  }
  return out;
}

async function main() {
  await setupTemplate();
  const none = new WarninglistBuilder().build();
  const all = compile();
  console.error(`compiled ${all.lists} lists in ${Math.round(all.ms)} ms`);

  await ingest(none, "bench_wl_warmup");
  const runs: { none: number; all: number }[] = [];
  let attributes = 0;
  let withHits = 0;
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 === 0 ? (["none", "all"] as const) : (["all", "none"] as const);
    const run = { none: 0, all: 0 };
    for (const side of order) {
      const res = await ingest(side === "none" ? none : all.matcher, `bench_wl_${r}_${side}`);
      run[side] = res.ms;
      attributes = res.attributes;
      if (side === "all") withHits = res.withHits;
    }
    runs.push(run);
    console.error(`round ${r + 1}: none ${Math.round(run.none)} ms, all ${Math.round(run.all)} ms`);
  }
  const noneMs = median(runs.map((r) => r.none));
  const allMs = median(runs.map((r) => r.all));

  const values = sampleValues();
  const corpus = Array.from({ length: Math.ceil(200_000 / values.length) }, () => values).flat();
  const rates: Record<string, { lists: number; compile_ms: number; values_per_second: number; values_with_hits: number }> = {};
  for (const type of WARNINGLIST_TYPES) {
    const { matcher, ms, lists: n } = compile(type);
    const samples: number[] = [];
    let hits = 0;
    for (let i = 0; i < 5; i++) {
      hits = 0;
      const t0 = performance.now();
      for (const [t, v1, v2] of corpus) if (matcher.match(t, v1, v2).length) hits++;
      samples.push(corpus.length / ((performance.now() - t0) / 1000));
    }
    rates[type] = { lists: n, compile_ms: Math.round(ms), values_per_second: Math.round(median(samples)), values_with_hits: Math.round((hits / corpus.length) * values.length) };
  }

  console.log(
    JSON.stringify(
      {
        feed_sample: { events: feed.length, attributes, attributes_with_hits_all_lists: withHits },
        ingest_ms: { none: runs.map((r) => Math.round(r.none)), all: runs.map((r) => Math.round(r.all)), median_none: Math.round(noneMs), median_all: Math.round(allMs) },
        ratio_all_over_none: round(allMs / noneMs, 3),
        compile_all_lists_ms: Math.round(all.ms),
        matching_rate_by_type: rates,
      },
      null,
      2,
    ),
  );
}

await main();
