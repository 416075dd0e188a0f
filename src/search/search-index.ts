/**
 * The search indices behind Explore, hunts and correlations, as one interface with two backends:
 * OpenSearch (production scale; `OPENSEARCH_URL`) and PostgreSQL (the embedded default). Both take
 * the same Lucene query strings (parsed and validated by `./lucene/parse.ts` first, so both reject
 * the same input) and must return the same hits; a conformance suite runs both over the same data.
 */
import type { LuceneAst } from "./lucene/ast.ts";
import type { HistogramInterval } from "./time-buckets.ts";

/** Index names of the spec (the peer calls them misp-events, misp-attributes, misp-attribute-correlations). */
export const INDEX_NAMES = ["svc-events", "svc-attributes", "svc-correlations"] as const;
export type IndexName = (typeof INDEX_NAMES)[number];

/** A document as stored: `id` is the entity uuid (correlations: `<source>|<target>|<match_type>`). */
export interface SearchDocument {
  id: string;
  source: Record<string, unknown>;
}

/**
 * Who is searching. Documents a caller may not read never match: every document carries its
 * audience (`./fields.ts` AUDIENCE_FIELD, computed by the distribution rule of
 * `src/auth/distribution.ts`), and non-administrators only see those whose audience holds everyone,
 * their organisation or one of its sharing groups.
 */
export interface SearchAccess {
  admin: boolean;
  orgId: number | null;
  /** The sharing groups the caller's organisation reads through (their markers in audiences); none when absent. */
  sharingGroupIds?: readonly number[];
}

export interface SearchRequest {
  index: IndexName;
  /** The parsed user query (parse with `parseLucene`; an empty query is match-all). */
  query: LuceneAst;
  /** Default fields for terms written without a field (peer: events `info`, attributes `value`). */
  defaultFields: string[];
  access: SearchAccess;
  /** Extra exact filters ANDed to the query, e.g. `{ deleted: false }`. */
  filters?: Record<string, string | number | boolean>;
  from: number;
  size: number;
  sort: { field: "@timestamp" | "_score"; order: "asc" | "desc" };
  /** The search is cancelled after this long (statement_timeout / OpenSearch timeout). */
  timeoutMs: number;
  /**
   * Count matches exactly up to this many (default `DEFAULT_TRACK_TOTAL_HITS`, OpenSearch's own
   * default); beyond, `total` is the bound and `totalRelation` "gte". `true` counts them all.
   */
  trackTotalHits?: number | true;
}

export const DEFAULT_TRACK_TOTAL_HITS = 10_000;

export interface SearchHit {
  index: IndexName;
  id: string;
  score: number | null;
  source: Record<string, unknown>;
}

export interface SearchResult {
  /** Number of matching documents, exact up to `trackTotalHits`. */
  total: number;
  /** "gte" when there are more matches than `total` says (the count stopped at the bound). */
  totalRelation: "eq" | "gte";
  hits: SearchHit[];
  tookMs: number;
}

/**
 * A walk over EVERY match (Explore export), past the 10 000 window of `search`, in the order of
 * search's default sort: `@timestamp` descending, then id in code point order; documents without an
 * `@timestamp` come last, by id. Pages are bounded (`pageSize`); each page is one request or
 * statement, cancelled after `timeoutMs`. Nothing is held between pages but what the backend needs
 * to go on (OpenSearch: a point in time, closed when the walk ends or is abandoned; PostgreSQL: the
 * last key only, no connection and no transaction).
 */
export interface ScanRequest {
  index: IndexName;
  query: LuceneAst;
  defaultFields: string[];
  access: SearchAccess;
  filters?: Record<string, string | number | boolean>;
  pageSize: number;
  /** Per page (statement_timeout / OpenSearch timeout), not for the whole walk. */
  timeoutMs: number;
  /**
   * Runs each page's request in a turn (`./search-gate.ts` gives every page a turn at the process's
   * search gate, so a long export never holds one for its whole duration). Default: runs it at once.
   */
  turn?: <T>(timeoutMs: number, fn: (remainingMs: number) => Promise<T>) => Promise<T>;
}

/** Largest page a scan asks for (memory per page: this many sources). */
export const MAX_SCAN_PAGE_SIZE = 1_000;

/**
 * The matches of a query counted per `@timestamp` bucket (`./time-buckets.ts`), UTC; documents
 * without an `@timestamp` are not counted. Bound the time range in the query itself.
 */
export interface HistogramRequest {
  index: IndexName;
  query: LuceneAst;
  defaultFields: string[];
  access: SearchAccess;
  filters?: Record<string, string | number | boolean>;
  interval: HistogramInterval;
  timeoutMs: number;
}

export interface HistogramResult {
  /** The buckets holding matches, by start (epoch ms), ascending. */
  buckets: { start: number; count: number }[];
  /** The earliest and latest `@timestamp` (epoch ms) of the matches; null without any. */
  min: number | null;
  max: number | null;
}

export interface SearchIndex {
  readonly backend: "opensearch" | "postgres";
  /** Creates indices, templates or tables that are missing (idempotent; called at start). */
  ensureIndices(): Promise<void>;
  /** Inserts or replaces documents by id (a replay is harmless). */
  bulkIndex(index: IndexName, docs: SearchDocument[]): Promise<void>;
  deleteByIds(index: IndexName, ids: string[]): Promise<void>;
  /** Deletes every document whose `field` (a keyword field such as `event_uuid`) equals one of `values`. */
  deleteByTerms(index: IndexName, field: string, values: string[]): Promise<void>;
  search(req: SearchRequest): Promise<SearchResult>;
  /**
   * Every match, page by page (`ScanRequest`); hits carry `score: null`. Stopping the iteration
   * early (`return()`, e.g. a client gone) releases what the walk holds.
   */
  scan(req: ScanRequest): AsyncIterable<SearchHit[]>;
  /** Matches per time bucket (`HistogramRequest`), one request or statement. */
  histogram(req: HistogramRequest): Promise<HistogramResult>;
  /** Makes writes visible to search at once (tests; OpenSearch otherwise refreshes every second). */
  refresh(index?: IndexName): Promise<void>;
  /** Drops every document of an index (rebuilds). */
  clear(index: IndexName): Promise<void>;
  health(): Promise<{ ok: boolean; reason?: string }>;
  close(): Promise<void>;
}

/** Raised for a query the backend cannot run (too slow, bad field type); routes answer 400/503. */
export class SearchQueryError extends Error {
  constructor(
    message: string,
    readonly kind: "timeout" | "invalid" | "unavailable",
  ) {
    super(message);
  }
}
