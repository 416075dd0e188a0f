/**
 * The OpenSearch backend of `SearchIndex` (`../search-index.ts`).
 *
 * - Indices: one composable index template per index (so an index re-created by a write gets the
 *   same mappings) plus explicit creation at start; mappings come from `../fields.ts` (see
 *   `./mappings.ts`). Replicas: `auto_expand_replicas 0-1` by default (0 on one node, 1 on a cluster).
 * - Queries: the parsed AST is printed back to a `query_string` (`./ast-to-query-string.ts`), so
 *   OpenSearch applies its own per-field-type semantics to exactly what `parseLucene` accepted.
 *   An empty / match-all query is sent as `match_all` (an empty query_string matches nothing).
 * - Access and request filters are a bool `filter` next to the query (no effect on scores).
 * - Sort: `@timestamp` newest first (missing last) then `_id`, oldest first its exact reverse
 *   (missing first, `_id` descending), or `_score` then `_id`: stable paging.
 * - Scans (every match, Explore export): a point in time walked with `search_after` (`./scan.ts`).
 * - Histograms: a `date_histogram` on `@timestamp` (fixed or calendar interval, UTC) with min/max.
 * - Timeouts: the search `timeout` + `cancel_after_time_interval` + a client request timeout; a
 *   search that timed out (even with partial hits) raises `SearchQueryError(kind "timeout")`.
 * - The bare distribution has no `reindex` module, so `deleteByTerms` scrolls the matching ids
 *   and deletes them with `_bulk` instead of `_delete_by_query`.
 */
import { Client, errors } from "@opensearch-project/opensearch";
import { audienceFilter } from "../../auth/distribution.ts";
import { AUDIENCE_FIELD } from "../fields.ts";
import {
  INDEX_NAMES,
  SearchQueryError,
  type IndexName,
  type SearchDocument,
  type SearchHit,
  type SearchIndex,
  type SearchRequest,
  type SearchResult,
  type ScanRequest,
  DEFAULT_TRACK_TOTAL_HITS,
  type HistogramRequest,
  type HistogramResult,
} from "../search-index.ts";
import { FIXED_INTERVAL_MS } from "../time-buckets.ts";
import { printLucene } from "./ast-to-query-string.ts";
import { exactField, mappingsFor } from "./mappings.ts";
import { scanWithPit } from "./scan.ts";

export interface OpenSearchSearchIndexOptions {
  /** Prepended to every index and template name (tests: a unique prefix per file). */
  prefix?: string;
  /** Default: `auto_expand_replicas: "0-1"`; a number sets `number_of_replicas` instead. */
  replicas?: number;
  shards?: number;
  /** Client timeout for non-search requests (ms). Default 30 000. */
  requestTimeoutMs?: number;
  /** `wait_for_active_shards` for bulk writes (e.g. "all" on a cluster). Default: OpenSearch's (1). */
  waitForActiveShards?: number | "all";
  /** `refresh` for bulk writes/deletes: true or "wait_for" make them visible before returning. */
  refreshOnWrite?: boolean | "wait_for";
  /** Documents per `_bulk` request. Default 1 000. */
  bulkChunk?: number;
  /**
   * `_bulk` requests of one write in flight at once. Default 2: one request is indexed by one write
   * thread of the shard's node, so a second one keeps another core busy while the first is parsed,
   * analysed or fsynced.
   */
  bulkConcurrency?: number;
  /** Client retries on another node after a connection failure. Default 3. */
  maxRetries?: number;
}

export type AnyQuery = Record<string, unknown>;

const REASONS_SHOWN = 5;

export class OpenSearchSearchIndex implements SearchIndex {
  readonly backend = "opensearch" as const;
  readonly client: Client;
  private readonly prefix: string;
  private readonly requestTimeoutMs: number;

  constructor(
    nodes: string[],
    private readonly options: OpenSearchSearchIndexOptions = {},
  ) {
    if (nodes.length === 0) throw new Error("OpenSearchSearchIndex: no node URL");
    this.prefix = options.prefix ?? "";
    this.requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
    this.client = new Client({
      nodes,
      maxRetries: options.maxRetries ?? 3,
      requestTimeout: this.requestTimeoutMs,
      // A node that failed is retried after a while instead of being dropped for good.
      resurrectStrategy: "ping",
    });
  }

  /** The physical index name (prefix + logical name). */
  indexName(index: IndexName): string {
    return `${this.prefix}${index}`;
  }

  private indexSettings(): Record<string, unknown> {
    const replicas =
      this.options.replicas === undefined
        ? { auto_expand_replicas: "0-1" }
        : { number_of_replicas: this.options.replicas, auto_expand_replicas: false };
    return { number_of_shards: this.options.shards ?? 1, ...replicas };
  }

  async ensureIndices(): Promise<void> {
    for (const index of INDEX_NAMES) {
      const name = this.indexName(index);
      const body = { settings: this.indexSettings(), mappings: mappingsFor(index) };
      await this.call(`put template ${name}`, () =>
        this.client.indices.putIndexTemplate({ name, body: { index_patterns: [name], priority: 100, template: body } }),
      );
      await this.createIndex(name, body);
    }
  }

  private async createIndex(name: string, body: Record<string, unknown>): Promise<void> {
    const exists = await this.call(`exists ${name}`, () => this.client.indices.exists({ index: name }));
    if (exists.body) {
      // Idempotent: adding fields that fields.ts gained since the index was created.
      await this.call(`put mapping ${name}`, () => this.client.indices.putMapping({ index: name, body: body.mappings as never }));
      return;
    }
    try {
      await this.call(`create ${name}`, () => this.client.indices.create({ index: name, body, wait_for_active_shards: 1 }));
    } catch (err) {
      if (errorType(err) !== "resource_already_exists_exception") throw err;
    }
  }

  async bulkIndex(index: IndexName, docs: SearchDocument[]): Promise<void> {
    const name = this.indexName(index);
    await this.bulk(
      docs.map((d) => ({ id: d.id, lines: [{ index: { _index: name, _id: d.id } }, d.source] })),
      `bulk index into ${name}`,
    );
  }

  async deleteByIds(index: IndexName, ids: string[]): Promise<void> {
    const name = this.indexName(index);
    await this.bulk(
      ids.map((id) => ({ id, lines: [{ delete: { _index: name, _id: id } }] })),
      `bulk delete from ${name}`,
      true,
    );
  }

  async deleteByTerms(index: IndexName, field: string, values: string[]): Promise<void> {
    if (values.length === 0) return;
    const name = this.indexName(index);
    const ids: string[] = [];
    let res = await this.call(`scroll ${name}`, () =>
      this.client.search({
        index: name,
        scroll: "1m",
        body: { size: 1000, _source: false, query: { terms: { [exactField(index, field)]: values } }, sort: ["_doc"] },
      }),
    );
    let scrollId = res.body._scroll_id as string | undefined;
    try {
      while (res.body.hits.hits.length > 0) {
        for (const h of res.body.hits.hits) ids.push(h._id as string);
        if (!scrollId) break;
        const sid = scrollId;
        res = await this.call(`scroll ${name}`, () => this.client.scroll({ body: { scroll: "1m", scroll_id: sid } }));
        scrollId = (res.body._scroll_id as string | undefined) ?? scrollId;
      }
    } finally {
      if (scrollId) {
        const sid = scrollId;
        await this.client.clearScroll({ body: { scroll_id: sid } }).catch(() => undefined);
      }
    }
    await this.deleteByIds(index, ids);
  }

  async refresh(index?: IndexName): Promise<void> {
    const names = (index ? [index] : [...INDEX_NAMES]).map((i) => this.indexName(i));
    await this.call("refresh", () => this.client.indices.refresh({ index: names.join(","), ignore_unavailable: true }));
  }

  async clear(index: IndexName): Promise<void> {
    const name = this.indexName(index);
    await this.call(`delete ${name}`, () => this.client.indices.delete({ index: name }, { ignore: [404] }));
    await this.createIndex(name, { settings: this.indexSettings(), mappings: mappingsFor(index) });
  }

  async health(): Promise<{ ok: boolean; reason?: string }> {
    try {
      const res = await this.client.cluster.health({}, { requestTimeout: 5_000, maxRetries: 0 });
      const status = res.body.status as string;
      return status === "red" ? { ok: false, reason: "cluster status red" } : { ok: true };
    } catch (err) {
      return { ok: false, reason: describe(err) };
    }
  }

  async close(): Promise<void> {
    await this.client.close();
  }

  async search(req: SearchRequest): Promise<SearchResult> {
    const name = this.indexName(req.index);
    const sort: AnyQuery[] =
      req.sort.field === "@timestamp"
        ? req.sort.order === "asc"
          ? // The exact reverse of newest first, as the PostgreSQL backend reads its ts index backwards.
            [{ "@timestamp": { order: "asc", missing: "_first", unmapped_type: "date" } }, { _id: { order: "desc" } }]
          : [{ "@timestamp": { order: "desc", missing: "_last", unmapped_type: "date" } }, { _id: { order: "asc" } }]
        : [{ _score: { order: req.sort.order } }, { _id: { order: "asc" } }];
    const timeout = `${Math.max(1, Math.floor(req.timeoutMs))}ms`;
    let res;
    try {
      res = await this.client.search(
        {
          index: name,
          cancel_after_time_interval: timeout,
          body: {
            query: queryOf(req),
            from: req.from,
            size: req.size,
            sort: sort as never,
            track_total_hits: req.trackTotalHits ?? DEFAULT_TRACK_TOTAL_HITS,
            timeout,
          },
        },
        // The server-side timeout is checked between segments; the client gives up a little later.
        { requestTimeout: req.timeoutMs + 1_000, maxRetries: 1 },
      );
    } catch (err) {
      throw searchError(err, req.timeoutMs);
    }
    const body = res.body;
    if (body.timed_out) throw new SearchQueryError(`Search timed out after ${req.timeoutMs} ms`, "timeout");
    const total = body.hits.total as { value: number; relation?: string } | number;
    const hits: SearchHit[] = body.hits.hits.map((h) => ({
      index: req.index,
      id: h._id as string,
      score: typeof h._score === "number" ? h._score : null,
      source: (h._source ?? {}) as Record<string, unknown>,
    }));
    return {
      total: typeof total === "number" ? total : total.value,
      totalRelation: typeof total === "object" && total.relation === "gte" ? "gte" : "eq",
      hits,
      tookMs: body.took as number,
    };
  }

  async histogram(req: HistogramRequest): Promise<HistogramResult> {
    const timeout = `${Math.max(1, Math.floor(req.timeoutMs))}ms`;
    const interval = FIXED_INTERVAL_MS[req.interval] !== undefined ? { fixed_interval: req.interval } : { calendar_interval: req.interval };
    let res;
    try {
      res = await this.client.search(
        {
          index: this.indexName(req.index),
          cancel_after_time_interval: timeout,
          body: {
            size: 0,
            track_total_hits: false,
            query: queryOf(req),
            timeout,
            aggs: {
              buckets: { date_histogram: { field: "@timestamp", ...interval, min_doc_count: 1, time_zone: "UTC" } },
              min: { min: { field: "@timestamp" } },
              max: { max: { field: "@timestamp" } },
            } as never,
          },
        },
        { requestTimeout: req.timeoutMs + 1_000, maxRetries: 1 },
      );
    } catch (err) {
      throw searchError(err, req.timeoutMs);
    }
    if (res.body.timed_out) throw new SearchQueryError(`Search timed out after ${req.timeoutMs} ms`, "timeout");
    const aggs = res.body.aggregations as unknown as {
      buckets: { buckets: { key: number; doc_count: number }[] };
      min: { value: number | null };
      max: { value: number | null };
    };
    return {
      buckets: aggs.buckets.buckets.map((b) => ({ start: b.key, count: b.doc_count })),
      min: aggs.min.value,
      max: aggs.max.value,
    };
  }

  scan(req: ScanRequest): AsyncIterable<SearchHit[]> {
    return scanWithPit(
      { client: this.client, indexName: this.indexName(req.index), queryWith: (extra) => queryOf(req, extra), failure: searchError },
      req,
    );
  }

  /**
   * Sends the actions in chunks, several requests at once when no document appears twice (requests
   * in flight together may be applied in any order; a repeated id keeps them in sequence).
   */
  private async bulk(actions: { id: string; lines: object[] }[], what: string, ignoreNotFound = false): Promise<void> {
    const size = this.options.bulkChunk ?? 1000;
    const chunks: object[][] = [];
    for (let i = 0; i < actions.length; i += size) chunks.push(actions.slice(i, i + size).flatMap((a) => a.lines));
    const distinct = new Set(actions.map((a) => a.id)).size === actions.length;
    const width = distinct ? Math.max(1, this.options.bulkConcurrency ?? 2) : 1;
    let next = 0;
    let failed = false;
    // A failed request stops the other lanes: the write is retried whole (it is idempotent).
    const lane = async () => {
      try {
        while (next < chunks.length && !failed) await this.bulkRequest(chunks[next++], what, ignoreNotFound);
      } catch (err) {
        failed = true;
        throw err;
      }
    };
    await Promise.all(Array.from({ length: Math.min(width, chunks.length) }, lane));
  }

  private async bulkRequest(body: object[], what: string, ignoreNotFound: boolean): Promise<void> {
    const res = await this.call(what, () =>
      this.client.bulk({
        body,
        ...(this.options.refreshOnWrite !== undefined ? { refresh: this.options.refreshOnWrite } : {}),
        ...(this.options.waitForActiveShards !== undefined ? { wait_for_active_shards: this.options.waitForActiveShards } : {}),
      }),
    );
    if (!res.body.errors) return;
    const reasons: string[] = [];
    let failed = 0;
    for (const item of res.body.items) {
      const r = Object.values(item)[0];
      if (!r || !r.error) continue;
      if (ignoreNotFound && r.status === 404) continue;
      failed += 1;
      if (reasons.length < REASONS_SHOWN) {
        const e = r.error as { type?: string; reason?: string };
        reasons.push(`${r._id}: ${e.type ?? "error"}: ${e.reason ?? JSON.stringify(r.error)}`);
      }
    }
    if (failed > 0) throw new Error(`${what}: ${failed} of ${res.body.items.length} items failed: ${reasons.join("; ")}`);
  }

  /** Runs a client call; connection failures become `SearchQueryError(kind "unavailable")`. */
  private async call<T>(what: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (isUnavailable(err)) throw new SearchQueryError(`OpenSearch is unavailable (${what}): ${describe(err)}`, "unavailable");
      if (err instanceof errors.TimeoutError) throw new SearchQueryError(`OpenSearch timed out (${what})`, "timeout");
      throw err;
    }
  }
}

/** The fields of a request that make its query (shared by `search` and `scan`). */
export type QueryParts = Pick<SearchRequest, "index" | "query" | "defaultFields" | "access" | "filters">;

/**
 * The user's query as a query_string (an empty / match-all query as `match_all`), with the access
 * and request filters as a bool `filter` next to it, plus `extraFilter` (the scan's phases).
 */
export function queryOf(req: QueryParts, extraFilter: AnyQuery[] = []): AnyQuery {
  const query: AnyQuery =
    req.query.kind === "matchAll" && req.query.boost === undefined
      ? { match_all: {} }
      : {
          query_string: {
            query: printLucene(req.query),
            fields: req.defaultFields,
            default_operator: "OR",
            analyze_wildcard: false,
            allow_leading_wildcard: true,
          },
        };
  const filter = [...accessFilter(req), ...requestFilters(req), ...extraFilter];
  return filter.length ? { bool: { must: [query], filter } } : query;
}

function accessFilter(req: QueryParts): AnyQuery[] {
  const audience = audienceFilter(req.access);
  return audience === null ? [] : [{ terms: { [AUDIENCE_FIELD]: audience } }];
}

function requestFilters(req: QueryParts): AnyQuery[] {
  return Object.entries(req.filters ?? {}).map(([field, value]) => ({ term: { [exactField(req.index, field)]: value } }));
}

function errorType(err: unknown): string | undefined {
  if (err instanceof errors.ResponseError) {
    const body = err.meta.body as { error?: { type?: string } } | undefined;
    return body?.error?.type;
  }
  return undefined;
}

function isUnavailable(err: unknown): boolean {
  if (err instanceof errors.ConnectionError || err instanceof errors.NoLivingConnectionsError) return true;
  return err instanceof errors.ResponseError && [502, 503].includes(err.meta.statusCode ?? 0) && !isTimeoutBody(err);
}

function isTimeoutBody(err: errors.ResponseError): boolean {
  return /timed? ?out|cancel/i.test(JSON.stringify(err.meta.body ?? ""));
}

/** The innermost reasons OpenSearch gives (root_cause, caused_by), for messages. */
function describe(err: unknown): string {
  if (err instanceof errors.ResponseError) {
    const e = (err.meta.body as { error?: unknown } | undefined)?.error;
    if (typeof e === "string") return e;
    const parts: string[] = [];
    const visit = (x: unknown): void => {
      if (!x || typeof x !== "object") return;
      const o = x as { type?: string; reason?: string; root_cause?: unknown[]; caused_by?: unknown; failed_shards?: { reason?: unknown }[] };
      if (o.reason) parts.push(`${o.type ?? "error"}: ${o.reason}`);
      o.root_cause?.forEach(visit);
      o.failed_shards?.forEach((s) => visit(s.reason));
      visit(o.caused_by);
    };
    visit(e);
    return [...new Set(parts)].join("; ") || `HTTP ${err.meta.statusCode}`;
  }
  return err instanceof Error ? err.message : String(err);
}

export function searchError(err: unknown, timeoutMs: number): Error {
  if (err instanceof errors.TimeoutError) return new SearchQueryError(`Search timed out after ${timeoutMs} ms`, "timeout");
  if (err instanceof errors.ResponseError) {
    const text = JSON.stringify(err.meta.body ?? "");
    if (/task_cancelled_exception|cancelled|timed out|timeout/i.test(text) && !/parse_exception|query_shard_exception/.test(text)) {
      return new SearchQueryError(`Search timed out after ${timeoutMs} ms and was cancelled`, "timeout");
    }
    if (isUnavailable(err)) return new SearchQueryError(`OpenSearch is unavailable: ${describe(err)}`, "unavailable");
    // Memory or queue limits: the cluster is too busy for the search, not the query wrong (429, or 500 with shards failed).
    if (/circuit_breaking_exception|rejected_execution_exception/.test(text) || err.meta.statusCode === 429) {
      return new SearchQueryError(`OpenSearch is overloaded: ${describe(err)}`, "unavailable");
    }
    if ((err.meta.statusCode ?? 500) < 500 || /query_shard_exception|parse_exception|illegal_argument/.test(text)) {
      return new SearchQueryError(`Query rejected by OpenSearch: ${describe(err)}`, "invalid");
    }
    return new SearchQueryError(`OpenSearch failed the search: ${describe(err)}`, "unavailable");
  }
  if (isUnavailable(err)) return new SearchQueryError(`OpenSearch is unavailable: ${describe(err)}`, "unavailable");
  return err instanceof Error ? err : new Error(String(err));
}
