/**
 * Explore's histogram (`SearchIndex.histogram`) on both backends, over the documents a
 * `bench/search.ts --keep` run left (its synthetic attributes and events): for a few Explore
 * queries, the histogram at the interval the service would choose for the documents' range, against
 * a baseline in the same run: the same query as Explore's first page (size 10, `@timestamp` desc,
 * exact total). Interleaved, medians of `--runs` (default 10), as an administrator and as a user of
 * organisation 1 (access filter). Both backends must count the same buckets.
 *
 *   npx tsx bench/search.ts --attributes 100000 --keep          # prints the database and prefix it keeps
 *   npx tsx bench/explore-histogram.ts bench_search_123 bench-search-123-abcdef- [--runs 10]
 *
 * Reads only; prints one JSON document on stdout and a table on stderr.
 */
import pg from "pg";
import { intervalFor } from "../src/modules/search/search-histogram.ts";
import { INDEX_FIELDS } from "../src/search/fields.ts";
import { parseLucene } from "../src/search/lucene/parse.ts";
import { OpenSearchSearchIndex } from "../src/search/opensearch/index.ts";
import { PostgresSearchIndex } from "../src/search/postgres/index.ts";
import type { HistogramRequest, IndexName, SearchAccess, SearchIndex } from "../src/search/search-index.ts";
import { databaseUrl } from "../test/support/databases.ts";
import { median, round } from "./lib.ts";

const QUERIES: { label: string; index: IndexName; q: string }[] = [
  { label: "match all", index: "svc-attributes", q: "" },
  { label: "type:ip-dst", index: "svc-attributes", q: "type:ip-dst" },
  { label: "value:*.top", index: "svc-attributes", q: "value:*.top" },
  { label: "events: info:ransomware", index: "svc-events", q: "info:ransomware" },
];
const ACCESS: Record<string, SearchAccess> = { admin: { admin: true, orgId: null }, org1: { admin: false, orgId: 1 } };
const TIMEOUT_MS = 60_000;

async function timed<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const started = performance.now();
  const value = await fn();
  return [performance.now() - started, value];
}

async function main() {
  const [db, prefix] = process.argv.slice(2);
  if (!db?.startsWith("bench_search_") || !prefix?.startsWith("bench-search-")) throw new Error("usage: explore-histogram.ts <database> <index prefix> [--runs n]");
  const r = process.argv.indexOf("--runs");
  const runs = r < 0 ? 10 : Number(process.argv[r + 1]);
  const pool = new pg.Pool({ connectionString: databaseUrl(db), max: 4 });
  const backends: [string, SearchIndex][] = [
    ["postgres", new PostgresSearchIndex(pool)],
    ["opensearch", new OpenSearchSearchIndex([(process.env.OPENSEARCH_URL ?? "http://127.0.0.1:9200").split(",")[0]!], { prefix })],
  ];
  const rows: Record<string, unknown>[] = [];
  try {
    for (const { label, index, q } of QUERIES) {
      for (const [who, access] of Object.entries(ACCESS)) {
        const base = { index, query: parseLucene(q), defaultFields: INDEX_FIELDS[index].defaultFields, access, filters: { deleted: false }, timeoutMs: TIMEOUT_MS };
        const range = await backends[1]![1].histogram({ ...base, interval: "1y" });
        const interval = intervalFor((range.max ?? 0) - (range.min ?? 0));
        const req: HistogramRequest = { ...base, interval };
        const times: Record<string, { histogram: number[]; page: number[] }> = { postgres: { histogram: [], page: [] }, opensearch: { histogram: [], page: [] } };
        const answers: Record<string, string> = {};
        for (let i = 0; i <= runs; i++) {
          for (const [name, backend] of backends) {
            const [h, answer] = await timed(() => backend.histogram(req));
            const [p] = await timed(() => backend.search({ ...base, from: 0, size: 10, sort: { field: "@timestamp", order: "desc" }, trackTotalHits: true }));
            answers[name] = JSON.stringify(answer.buckets);
            if (i === 0) continue; // warm-up
            times[name]!.histogram.push(h);
            times[name]!.page.push(p);
          }
        }
        const row = {
          query: label,
          as: who,
          interval,
          buckets: JSON.parse(answers.postgres!).length,
          same_buckets: answers.postgres === answers.opensearch,
          pg_histogram_ms: round(median(times.postgres!.histogram), 1),
          pg_first_page_ms: round(median(times.postgres!.page), 1),
          os_histogram_ms: round(median(times.opensearch!.histogram), 1),
          os_first_page_ms: round(median(times.opensearch!.page), 1),
        };
        rows.push(row);
        console.error(Object.values(row).join("\t"));
      }
    }
    console.log(JSON.stringify({ db, runs, rows }, null, 2));
  } finally {
    await pool.end();
    await backends[1]![1].close();
  }
}

await main();
