import type { AppContext } from "../../app-context.ts";
import { authorize, hasScope, type Principal } from "../../auth/principal.ts";
import { canReadInEvent, DISTRIBUTION, searchAccessOf, type EventAccessFields } from "../../auth/distribution.ts";
import { ownerEventCounts } from "../../indexing/documents.ts";
import { staleDocumentIds } from "../../indexing/stale-access.ts";
import { errors } from "../../platform/errors.ts";
import { AUDIENCE_FIELD, INDEX_FIELDS, type FieldType } from "../../search/fields.ts";
import { LuceneSyntaxError } from "../../search/lucene/errors.ts";
import { parseLucene } from "../../search/lucene/parse.ts";
import type { LuceneAst } from "../../search/lucene/ast.ts";
import { SearchQueryError, type IndexName, type SearchHit } from "../../search/search-index.ts";
import { searchLimiterOf, type SearchLimiter } from "./search-limiter.ts";
import { openExport, type ExportInput, type ExportPages, type ExportTarget } from "./explore-export.ts";
import { detectIndicator, refang } from "../feeds/index.ts";
import { parseInput } from "../../platform/errors.ts";
import { findValues, type FoundValue } from "./lookup-store.ts";
import { searchHistogram, type SearchHistogram } from "./search-histogram.ts";
import { indicatorLookupContract, searchHistogramContract } from "./search.contracts.ts";
import type { z } from "zod";

/** The searchable indices, by the name of their routes. */
export type SearchTarget = "events" | "attributes" | "correlations";

const INDEX_OF: Record<SearchTarget, IndexName> = { events: "svc-events", attributes: "svc-attributes", correlations: "svc-correlations" };

/** OpenSearch's max_result_window: deeper pages need search_after, which Explore does not offer. */
export const MAX_SEARCH_WINDOW = 10_000;
export const MAX_SEARCH_PAGE_SIZE = 100;

export interface SearchInput {
  query: string;
  page: number;
  size: number;
  sortBy: "@timestamp" | "_score";
  sortOrder: "asc" | "desc";
  /** Events and attributes only (correlation documents have no `deleted`). */
  includeDeleted: boolean;
  /** Exact filters ANDed to the query (e.g. the peer's `/correlations/` filters). */
  filters?: Record<string, string>;
  /** Count every match (hunts report the full count); otherwise exact up to 10 000. */
  exactTotal?: boolean;
  /**
   * Attributes only: leave out those on an enabled warninglist, as the query
   * `NOT _exists_:warnings.name` would (MISP's `enforceWarninglist`).
   */
  excludeWarninglisted?: boolean;
  /**
   * Events only: the owners' and administrators' hits carry the full counts of their events (a
   * read per page); false leaves the documents' counts, for a caller who reads the events again.
   */
  ownersCounts?: boolean;
}

/** A field a query may name (Explore's field-name completion). */
export interface SearchField {
  index: "events" | "attributes";
  name: string;
  type: FieldType;
}

/** One value of a bulk lookup: refanged as feeds refang, and where readable attributes hold it. */
export interface IndicatorLookup {
  /** The value as given. */
  input: string;
  /** Refanged, and normalised as feeds store it (a hash or domain in lower case). */
  value: string;
  /** The indicator type a feed would give it; null when it is none. */
  detectedType: string | null;
  /** Where it was found; null when no attribute the caller may read holds it. */
  found: FoundValue | null;
}

export interface SearchPage {
  page: number;
  size: number;
  /** Exact up to 10 000 (`totalRelation` "eq"); beyond, 10 000 and "gte" (as the peer's OpenSearch). */
  total: number;
  totalRelation: "eq" | "gte";
  took: number;
  timedOut: false;
  maxScore: number | null;
  hits: SearchHit[];
}

/** Parses a user's Lucene query; a rejected query is a 400 with the parser's message and position. */
export function parseUserQuery(query: string): LuceneAst {
  try {
    return parseLucene(query);
  } catch (err) {
    if (err instanceof LuceneSyntaxError) {
      throw errors.invalidQuery(err.message, err.code, { offset: err.offset, line: err.line, column: err.column });
    }
    throw err;
  }
}

/** A failed search as an API error: too slow or backend down are 503s with a code saying which. */
export function searchFailure(err: unknown): unknown {
  if (!(err instanceof SearchQueryError)) return err;
  if (err.kind === "timeout") return errors.searchTimeout(`${err.message}. Narrow the query (fields, time range) and try again.`);
  if (err.kind === "unavailable") return errors.searchUnavailable("The search backend is unavailable; try again shortly");
  return errors.badRequest(err.message);
}

/** How long after a check of `hasStaleDocuments` that found some the next one may start. */
const STALE_RECHECK_MS = 30_000;
/** A check reads every document of an index on the PostgreSQL backend: it runs beside the requests, as the worker's pass does. */
const STALE_CHECK_TIMEOUT_MS = 120_000;

/**
 * Explore search over the events and attributes indices. Visibility is the data core's: a caller
 * who is not an administrator sees documents of events their organisation may read, nothing else.
 * Every search, and every search-like read run through `limited`, counts against its caller's
 * concurrent searches (`./search-limiter.ts`).
 */
export class SearchService {
  private readonly limiter: SearchLimiter;
  /** Indices known to hold no stale document: new documents never are, so this is not asked again. */
  private readonly upToDate = new Set<IndexName>();
  private readonly staleChecks = new Map<IndexName, { at: number; running: boolean; done: Promise<void> }>();

  constructor(private readonly ctx: AppContext) {
    this.limiter = searchLimiterOf(ctx);
  }

  /**
   * Runs `fn` as one of the caller's concurrent searches (429 beyond the limit); the searches it
   * makes for the same caller count as that one.
   */
  limited<T>(p: Principal, fn: () => Promise<T>): Promise<T> {
    return this.limiter.run(p, fn);
  }

  async search(p: Principal | null, target: SearchTarget, input: SearchInput): Promise<SearchPage> {
    authorize(p, `${target}:read`);
    // The slot is taken before parsing: a long query costs the event loop tens of milliseconds.
    return this.limited(p, () => this.searchParsed(p, target, parseUserQuery(input.query), input));
  }

  /** The same search with a query built as an AST (hunts build theirs from galaxy tags). */
  async searchParsed(p: Principal | null, target: SearchTarget, query: LuceneAst, input: Omit<SearchInput, "query">): Promise<SearchPage> {
    authorize(p, `${target}:read`);
    if (!Number.isSafeInteger(input.page) || input.page < 1) throw errors.invalidInput(["page"], "must be an integer ≥ 1", input.page);
    if (!Number.isSafeInteger(input.size) || input.size < 1 || input.size > MAX_SEARCH_PAGE_SIZE) {
      throw errors.invalidInput(["size"], `must be an integer from 1 to ${MAX_SEARCH_PAGE_SIZE}`, input.size);
    }
    const from = (input.page - 1) * input.size;
    if (from + input.size > MAX_SEARCH_WINDOW) {
      throw errors.invalidInput(["page"], `page × size must not exceed ${MAX_SEARCH_WINDOW}; narrow the query instead`, input.page);
    }
    if (input.excludeWarninglisted && target !== "attributes") {
      throw errors.invalidInput(["excludeWarninglisted"], "applies to attribute searches only (other documents carry no warninglist hits)", true);
    }
    const index = INDEX_OF[target];
    const result = await this.limited(p, () =>
      this.ctx.search.search({
        index,
        query: input.excludeWarninglisted ? withoutWarninglisted(query) : query,
        defaultFields: INDEX_FIELDS[index].defaultFields,
        access: searchAccessOf(p),
        filters: { ...(input.includeDeleted || target === "correlations" ? {} : { deleted: false }), ...input.filters },
        from,
        size: input.size,
        sort: { field: input.sortBy, order: input.sortOrder },
        timeoutMs: this.ctx.config.SEARCH_TIMEOUT_MS,
        ...(input.exactTotal ? { trackTotalHits: true as const } : {}),
      }),
    ).catch((err: unknown) => {
      throw searchFailure(err);
    });
    const byScore = input.sortBy === "_score";
    const scores = result.hits.map((h) => h.score).filter((s): s is number => s !== null);
    if (index === "svc-events" && input.ownersCounts !== false) await this.withOwnersCounts(p, result.hits);
    return {
      page: input.page,
      size: input.size,
      total: result.total,
      totalRelation: result.totalRelation,
      took: result.tookMs,
      timedOut: false,
      maxScore: byScore && scores.length ? Math.max(...scores) : null,
      hits: byScore ? result.hits : result.hits.map((h) => ({ ...h, score: null })),
    };
  }

  /**
   * Whether an index may still hold documents an older indexer wrote (`STALE_DOCUMENTS`), as after
   * an upgrade until the worker has written them again (`src/indexing/stale-access.ts`): a query on
   * a newer field then also needs its older form. True until a check of the backend (with no caller:
   * whether any document is stale, not which) finds none, then false for good (new documents never
   * are). Checks run beside the requests, one at a time, at most every 30 s, and a request does not
   * wait for one (on the PostgreSQL backend it reads every document) unless `wait`: meanwhile the
   * older form answers, slower, never wrong.
   */
  async hasStaleDocuments(target: SearchTarget, opts: { wait?: boolean } = {}): Promise<boolean> {
    const index = INDEX_OF[target];
    if (this.upToDate.has(index)) return false;
    const last = this.staleChecks.get(index);
    const done = !last || (!last.running && Date.now() - last.at >= STALE_RECHECK_MS) ? this.checkStale(index) : last.done;
    if (opts.wait) await done;
    return !this.upToDate.has(index);
  }

  private checkStale(index: IndexName): Promise<void> {
    const check = { at: Date.now(), running: true, done: Promise.resolve() };
    check.done = staleDocumentIds(this.ctx.search, index, 1, STALE_CHECK_TIMEOUT_MS)
      .then((ids) => {
        if (ids.length === 0) this.upToDate.add(index);
      })
      // Unknown: asked again later.
      .catch(() => undefined)
      .finally(() => {
        check.running = false;
        check.at = Date.now();
      });
    this.staleChecks.set(index, check);
    return check.done;
  }

  /**
   * The fields of the Explore indices the caller may search (events:read, attributes:read), text
   * fields with their `.keyword` sub-fields; the audience field is the search layer's own access
   * marker, not something to query.
   */
  fields(p: Principal | null): SearchField[] {
    const targets = (["events", "attributes"] as const).filter((t) => p && hasScope(p, `${t}:read`));
    if (targets.length === 0) authorize(p, "events:read");
    // A text field's exact value is its `.keyword` sub-field (type.keyword:sha256), on both backends.
    return targets.flatMap((t) =>
      Object.entries(INDEX_FIELDS[INDEX_OF[t]].fields)
        .filter(([name]) => name !== AUDIENCE_FIELD)
        .flatMap(([name, type]): SearchField[] => [
          { index: t, name, type },
          ...(type === "text" ? [{ index: t, name: `${name}.keyword`, type: "keyword" as const }] : []),
        ]),
    );
  }

  /** Explore's histogram of a query's matches over `@timestamp` (`./search-histogram.ts`). */
  async histogram(p: Principal | null, given: z.input<typeof searchHistogramContract>): Promise<SearchHistogram> {
    authorize(p);
    const input = parseInput(searchHistogramContract, given);
    authorize(p, `${input.index}:read`);
    return this.limited(p, async () => {
      const query = parseUserQuery(input.query);
      return searchHistogram(this.ctx, p, input, query).catch((err: unknown) => {
        throw searchFailure(err);
      });
    });
  }

  /**
   * Explore's bulk lookup: each value refanged as feeds do, then all looked up at once among the
   * live attributes the caller may read (the distribution rule), answered in the order given.
   */
  async lookupIndicators(p: Principal | null, given: z.input<typeof indicatorLookupContract>): Promise<IndicatorLookup[]> {
    authorize(p, "attributes:read", "events:read");
    const { values } = parseInput(indicatorLookupContract, given);
    const refanged = values.map((input) => {
      const detected = detectIndicator(input);
      return { input, value: detected?.value ?? refang(input), detectedType: detected?.type ?? null };
    });
    const found = await this.limited(p, () =>
      findValues(this.ctx.db.searchPool, this.ctx.config.SEARCH_TIMEOUT_MS, p, [...new Set(refanged.map((r) => r.value).filter((v) => v !== ""))]),
    );
    return refanged.map((r) => ({ ...r, found: found.get(r.value) ?? null }));
  }

  /**
   * Explore export: every match the caller may read, page by page (`./explore-export.ts`); the
   * pages hold one of the caller's search slots until they are closed.
   */
  async exportPages(p: Principal | null, target: ExportTarget, input: ExportInput): Promise<ExportPages> {
    authorize(p, `${target}:read`);
    const complete = target === "events" ? (hits: SearchHit[]) => this.withOwnersCounts(p, hits) : undefined;
    return openExport({ ctx: this.ctx, limiter: this.limiter, principal: p, target, input, complete });
  }

  /**
   * An event document counts what every reader may see; the event's owners and administrators see
   * everything in it, so their hits get the full counts.
   */
  private async withOwnersCounts(p: Principal, hits: SearchHit[]): Promise<void> {
    const owned = hits.filter((h) => canReadInEvent(p, eventAccessOf(h.source), DISTRIBUTION.organisation));
    if (owned.length === 0) return;
    const counts = await ownerEventCounts(this.ctx.db.pool, owned.map((h) => h.id));
    for (const h of owned) Object.assign(h.source, counts.get(h.id) ?? {});
  }
}

/** The query without the attributes that carry a warninglist hit. */
const withoutWarninglisted = (query: LuceneAst): LuceneAst => ({ kind: "bool", must: [query], should: [], mustNot: [{ kind: "exists", field: "warnings.name" }] });

/** The access fields an event document copies from its event. */
function eventAccessOf(source: Record<string, unknown>): EventAccessFields {
  return { distribution: Number(source.event_distribution), orgId: Number(source.event_org_id), orgcId: Number(source.event_orgc_id) };
}
