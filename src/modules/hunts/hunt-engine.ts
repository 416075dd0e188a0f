import type { AppContext } from "../../app-context.ts";
import type { Principal } from "../../auth/principal.ts";
import type { LuceneAst } from "../../search/lucene/ast.ts";
import { timestampMillis } from "../../search/timestamps.ts";
import { errors } from "../../platform/errors.ts";
import { searchCpe } from "../../integrations/vulnerability-lookup.ts";
import { searchRulesByVulnerability } from "../../integrations/rules-service.ts";
import type { HttpJsonOptions } from "../../integrations/http-json.ts";
import type { RuntimeSettingValue } from "../settings/index.ts";
import { splitAttackPatternQuery, type GalaxiesService } from "../galaxies/index.ts";
import type { SearchService, SearchTarget } from "../search/index.ts";
import type { HuntType, IndexTarget } from "./hunt-definition.ts";
import type { Hit } from "./hit-keys.ts";

/** Spec 8: a search hunt returns at most this many documents per run. */
export const SEARCH_HUNT_MAX_HITS = 100;

export interface HuntQuestion {
  huntType: HuntType;
  indexTarget: IndexTarget | null;
  query: string;
}

export interface HuntAnswer {
  total: number;
  hits: Hit[];
}

export type HuntSettings = RuntimeSettingValue<"hunts">;

/**
 * Asks one hunt's question: the search layer for search and fw-attack-pattern hunts (with the
 * access of `principal`, the hunt's owner or their credential), the external services for cpe and
 * rules. Every failure throws (a catalogue error): a failed question never reads as "no results".
 */
export class HuntEngine {
  constructor(
    private readonly ctx: AppContext,
    private readonly search: SearchService,
    private readonly galaxies: GalaxiesService,
  ) {}

  async answer(p: Principal, q: HuntQuestion, settings: HuntSettings, signal: AbortSignal): Promise<HuntAnswer> {
    switch (q.huntType) {
      case "search":
        return this.searchIndex(p, q.indexTarget as SearchTarget, q.query);
      case "fw-attack-pattern":
        return this.attackPatterns(p, q.indexTarget ?? "events", q.query);
      case "cpe": {
        const { hits } = await searchCpe(this.ctx.config.VULN_DB_URL, q.query, { http: httpOptions(settings, signal), maxPages: settings.max_cpe_pages });
        return { total: hits.length, hits: hits as unknown as Hit[] };
      }
      case "rules": {
        const rules = await searchRulesByVulnerability(this.ctx.config.RULES_URL, q.query, httpOptions(settings, signal));
        return { total: rules.length, hits: rules };
      }
    }
  }

  private async searchIndex(p: Principal, target: SearchTarget, query: string): Promise<HuntAnswer> {
    const page = await this.search.search(p, target, { ...SEARCH_PAGE, query });
    return { total: page.total, hits: page.hits.map((h) => h.source) };
  }

  /**
   * Hits carry at least one of the techniques' galaxy tags (exact tag names). Codes resolve against
   * the imported and enabled ATT&CK galaxy at run time; anything unresolved is a 400 naming it.
   */
  private async attackPatterns(p: Principal, target: IndexTarget, query: string): Promise<HuntAnswer> {
    const resolved = await this.galaxies.resolveClusters(p, splitAttackPatternQuery(query));
    if (resolved.galaxy !== "ready" || resolved.unresolved.length) {
      const why =
        resolved.galaxy === "not_imported"
          ? "the mitre-attack-pattern galaxy is not imported (POST /galaxies/update)"
          : resolved.galaxy === "disabled"
            ? "the mitre-attack-pattern galaxy is not enabled (PATCH /galaxies/{id})"
            : "no cluster of the enabled mitre-attack-pattern galaxy has these codes, uuids or tags";
      const shown = resolved.unresolved.slice(0, 50).join(", ");
      throw errors.badRequest(`Unknown MITRE ATT&CK technique(s): ${shown}${resolved.unresolved.length > 50 ? ` and ${resolved.unresolved.length - 50} more` : ""}: ${why}`, {
        unresolved: resolved.unresolved.slice(0, 1000),
      });
    }
    const tags = [...new Set(resolved.clusters.map((c) => c.tagName))];
    const ast: LuceneAst = { kind: "bool", must: [], mustNot: [], should: tags.map((value) => ({ kind: "term", field: "tags.name.keyword", value, wildcard: false })) };
    const kinds: ("event" | "attribute")[] = target === "attributes_and_events" ? ["event", "attribute"] : [target === "events" ? "event" : "attribute"];
    const pages = await Promise.all(
      kinds.map(async (kind) => {
        const page = await this.search.searchParsed(p, kind === "event" ? "events" : "attributes", ast, SEARCH_PAGE);
        return { kind, total: page.total, hits: page.hits.map((h) => h.source) };
      }),
    );
    if (pages.length === 1) return { total: pages[0].total, hits: pages[0].hits };
    // Both indices: newest first across them, each hit saying what it is (spec 2.2).
    const hits = pages
      .flatMap((pg) => pg.hits.map((h): Hit => ({ ...h, _doc_kind: pg.kind })))
      .sort((a, b) => (timestampMillis(b["@timestamp"]) ?? 0) - (timestampMillis(a["@timestamp"]) ?? 0))
      .slice(0, SEARCH_HUNT_MAX_HITS);
    return { total: pages.reduce((n, pg) => n + pg.total, 0), hits };
  }
}

/** Newest first, every match counted, deleted attributes left out (as Explore shows them). */
const SEARCH_PAGE = { page: 1, size: SEARCH_HUNT_MAX_HITS, sortBy: "@timestamp", sortOrder: "desc", includeDeleted: false, exactTotal: true } as const;

function httpOptions(s: HuntSettings, signal: AbortSignal): Omit<HttpJsonOptions, "service"> {
  return { timeoutMs: s.request_timeout_seconds * 1000, maxAttempts: s.max_attempts, maxBytes: s.max_response_bytes, signal };
}
