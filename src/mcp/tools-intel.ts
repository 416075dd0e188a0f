import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import type { Runtime } from "../runtime.ts";
import type { GalaxyCluster } from "../generated/prisma/client.ts";
import type { SearchPage } from "../modules/search/index.ts";
import { ATTACK_PATTERN_TYPE } from "../modules/galaxies/index.ts";
import { SIGHTING_TYPES } from "../modules/sightings/index.ts";
import { WARNINGLIST_CHECK_MAX, warninglistCheckContract } from "../modules/warninglists/index.ts";
import { statisticsContract, type KeyCount, type TopKeys } from "../platform/statistics.ts";
import { galaxyOfType } from "./resources-galaxies.ts";
import { toolResult } from "./results.ts";
import { sightingsOf } from "./sightings-of.ts";
import { timeRangeOf, timeRangeShape } from "./time-range.ts";
import { hitOut, oneOf, pageArg, pageSummary, READ_ONLY, sizeArg, UUID, wrap, type ToolContext } from "./tool-kit.ts";

interface CorrelationArgs {
  value?: string;
  attribute_uuid?: string;
  event_uuid?: string;
  page: number;
  size: number;
}

/**
 * The correlation documents (each pair in both directions) whose source is the attribute, the
 * event or an attribute with exactly that value: the REST `/correlations/` list and
 * `/correlations/events/{uuid}/top`, and for a value the correlations search. Pairs with an
 * attribute the caller may not read are never in the index's answer to them.
 */
async function correlations(args: CorrelationArgs, { services, principal }: ToolContext) {
  const mode = oneOf(args, ["value", "attribute_uuid", "event_uuid"] as const);
  const paging = { page: args.page, size: args.size };
  let page: SearchPage;
  let relatedEvents: { event_uuid: string; correlations: number }[] | null = null;
  if (mode === "attribute_uuid") {
    // 404 for an attribute the caller may not read, as GET /attributes/{uuid}.
    const a = await services.attributes.get(principal, args.attribute_uuid!.toLowerCase());
    page = await services.correlations.list(principal, { source_attribute_uuid: a.uuid }, paging);
  } else if (mode === "event_uuid") {
    const uuid = args.event_uuid!.toLowerCase();
    relatedEvents = (await services.correlations.topEvents(principal, uuid)).map((k) => ({ event_uuid: k.key, correlations: k.docCount }));
    page = await services.correlations.list(principal, { source_event_uuid: uuid }, paging);
  } else {
    // The exact value (the text field's keyword sub-field), as a term: no Lucene escaping to get wrong.
    const exact = { kind: "term" as const, field: "source_attribute_value.keyword", value: args.value!, wildcard: false as const };
    page = await services.search.searchParsed(principal, "correlations", exact, { ...paging, sortBy: "@timestamp", sortOrder: "desc", includeDeleted: true });
  }
  const hits = page.hits.map(hitOut);
  return toolResult(pageSummary("correlation documents (two per pair)", page, hits.length), {
    total: page.total,
    total_relation: page.totalRelation,
    page: page.page,
    size: page.size,
    ...(relatedEvents ? { related_events: relatedEvents } : {}),
    correlations: hits,
  });
}

/** A cluster as a model needs it: what to call it, its ids and the tag that marks data with it. */
function clusterOut(c: GalaxyCluster, galaxyType: string) {
  const meta = (c.meta ?? {}) as Record<string, unknown>;
  const strings = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string").slice(0, 50) : []);
  return {
    uuid: c.uuid,
    value: c.value,
    external_ids: c.externalIds,
    tag_name: c.tagName,
    galaxy_type: galaxyType,
    description: c.description,
    synonyms: strings(meta.synonyms),
    kill_chain: strings(meta.kill_chain),
  };
}

interface GalaxyArgs {
  query: string;
  galaxy: string;
  page: number;
  size: number;
}

/** The galaxy by its type, then GET /galaxies/{id}/clusters?filter=. */
async function searchGalaxy(args: GalaxyArgs, { services, principal }: ToolContext) {
  const galaxy = await galaxyOfType(services, principal, args.galaxy);
  const page = await services.galaxies.clusters(principal, galaxy.id, { filter: args.query, page: args.page, size: args.size });
  const clusters = page.items.map((c) => clusterOut(c, galaxy.type));
  return toolResult(`${pageSummary(`clusters of the galaxy "${galaxy.name}" match`, page, clusters.length)} Search data with tags.name:"<tag_name>".`, {
    galaxy: { id: galaxy.id, uuid: galaxy.uuid, name: galaxy.name, type: galaxy.type, enabled: galaxy.enabled },
    total: page.total,
    page: page.page,
    size: page.size,
    clusters,
  });
}

interface StatisticsArgs {
  from?: string | number;
  to?: string | number;
  top: number;
}

const keysOut = (k: TopKeys) => ({ distinct: k.distinct, top: k.top });
const listed = (k: KeyCount[]) => k.slice(0, 3).map((c) => `${c.key} ${c.count}`).join(", ");

/**
 * Counts of what the caller may read, from the events and attributes services (their distribution
 * rule), in one of the caller's search slots: counting every attribute is a search-like load.
 */
async function statistics(args: StatisticsArgs, { services, principal }: ToolContext) {
  const range = timeRangeOf(args);
  const input = { ...range, top: args.top };
  const [events, attributes] = await services.search.limited(principal, () =>
    Promise.all([services.events.statistics(principal, input), services.attributes.statistics(principal, input)]),
  );
  const summary =
    `${events.total} events and ${attributes.total} attributes you may read` +
    (range.from || range.to ? " changed in the range" : "") +
    `. Top types: ${listed(attributes.byType.top) || "none"}.`;
  return toolResult(summary, {
    time_range: { from: range.from?.toISOString() ?? null, to: range.to?.toISOString() ?? null },
    events: { total: events.total, published: events.published, by_threat_level: keysOut(events.byThreatLevel), by_tag: keysOut(events.byTag) },
    attributes: {
      total: attributes.total,
      events: attributes.events,
      by_type: keysOut(attributes.byType),
      by_category: keysOut(attributes.byCategory),
      by_tag: keysOut(attributes.byTag),
    },
  });
}

export function registerIntelTools(server: McpServer, runtime: Runtime): void {
  server.registerTool(
    "get_statistics",
    {
      title: "Count events and attributes",
      description:
        "Counts what you may read (other organisations' private data is never counted), optionally only what changed in a time range " +
        "(`from` / `to` on the last change, as the search tools). Returns events {total, published, by_threat_level (\"1\" high to \"4\" undefined), " +
        "by_tag} and attributes {total, events (how many events hold them), by_type, by_category, by_tag (the attributes' own tags)}; each by_* " +
        "lists the `top` most frequent keys as {key, count} plus `distinct` (how many keys there are). Soft-deleted data is not counted. " +
        'Examples: {"from": "2026-01-01"} (changed since), {"from": 1767225600, "to": 1769903999, "top": 5}. ' +
        "Search a key with search_attributes, e.g. `type:ip-dst` or `tags.name:\"tlp:amber\"`.",
      inputSchema: { ...timeRangeShape, top: statisticsContract.shape.top.describe("Keys listed per count, most frequent first, 1 to 100 (default 20).") },
      annotations: READ_ONLY,
    },
    wrap(runtime, "get_statistics", statistics),
  );

  server.registerTool(
    "get_correlations",
    {
      title: "Get correlations",
      description:
        "Correlations: other attributes (in other events) with the same or an overlapping value (term, composite halves, CIDR). Give exactly one of " +
        "`value` (an exact attribute value, e.g. \"8.8.8.8\"), `attribute_uuid` or `event_uuid`. Returns total and up to 100 correlation documents " +
        "per page (source_* is the given side, target_* the correlating attribute and its event); for an event also related_events, the 10 events " +
        "with most correlating pairs. Only pairs whose two attributes you may read. Not found for an attribute or event you may not read.",
      inputSchema: {
        value: z.string().min(1).max(4096).optional().describe("An attribute value, matched exactly (refang it first with detect_indicator_type)."),
        attribute_uuid: UUID.optional(),
        event_uuid: UUID.optional(),
        page: pageArg,
        size: sizeArg(20),
      },
      annotations: READ_ONLY,
    },
    wrap(runtime, "get_correlations", correlations),
  );

  server.registerTool(
    "get_sightings",
    {
      title: "Get sightings",
      description:
        "Sightings (someone saw the indicator: type sighting, false-positive or expiration, with time, organisation and source), newest first. " +
        "Give `attribute_uuid` (all its sightings, paged, with total) or `event_uuid` (the sightings of the event's 100 most recently changed " +
        "attributes, newest first, up to `size`; attributes_total says how many attributes the event has). Optional `type` filter. " +
        "Not found for an attribute or event you may not read.",
      inputSchema: {
        attribute_uuid: UUID.optional(),
        event_uuid: UUID.optional(),
        type: z.enum(SIGHTING_TYPES).optional().describe("Only this type of sighting."),
        page: pageArg.describe("Page number from 1 (attribute_uuid only)."),
        size: sizeArg(20),
      },
      annotations: READ_ONLY,
    },
    wrap(runtime, "get_sightings", sightingsOf),
  );

  server.registerTool(
    "search_galaxy",
    {
      title: "Search a galaxy (ATT&CK techniques, threat actors...)",
      description:
        "Searches the clusters of one galaxy (default mitre-attack-pattern: ATT&CK techniques) by part of the name, tag name or external id. " +
        'Examples: {"query": "T1059"} (the technique and its sub-techniques T1059.001...), {"query": "phishing"}. Returns total and up to 100 ' +
        "clusters per page: value, external_ids, tag_name (search data with tags.name:\"<tag_name>\"), description, synonyms, kill_chain. " +
        "Other galaxies by their type (the galaxies resource lists them).",
      inputSchema: {
        query: z.string().min(1).max(255).describe('Part of the name or an external id, e.g. "T1566" or "powershell".'),
        galaxy: z.string().min(1).max(255).default(ATTACK_PATTERN_TYPE).describe(`The galaxy's type (default ${ATTACK_PATTERN_TYPE}).`),
        page: pageArg,
        size: sizeArg(20),
      },
      annotations: READ_ONLY,
    },
    wrap(runtime, "search_galaxy", searchGalaxy),
  );

  server.registerTool(
    "check_warninglists",
    {
      title: "Check values against the warninglists",
      description:
        `Tells which enabled warninglists (known-good or noisy values: public DNS resolvers, cloud ranges, top domains, URL shorteners...) each of 1 to ${WARNINGLIST_CHECK_MAX} ` +
        "values is on, with the matcher attribute writes use: a listed value is probably not malicious by itself and takes no part in correlation. " +
        'Examples: {"values": ["8.8.8.8", "https://bit.ly/x"]}, {"values": ["1.1.1.1|53"], "type": "ip-dst|port"}. ' +
        "Returns listed (how many values are on a list) and results: {value, warninglists: [{id, name}]} in the order given. " +
        "The warninglists resource lists the enabled lists.",
      inputSchema: {
        values: warninglistCheckContract.shape.values,
        type: warninglistCheckContract.shape.type,
      },
      annotations: READ_ONLY,
    },
    wrap(runtime, "check_warninglists", async (args: { values: string[]; type?: string }, { services, principal }) => {
      const results = await services.warninglists.check(principal, args);
      const listed = results.filter((r) => r.warnings.length > 0).length;
      return toolResult(`${listed} of ${results.length} values on an enabled warninglist.`, {
        listed,
        results: results.map((r) => ({ value: r.value, warninglists: r.warnings.map((w) => ({ id: w.id, name: w.name })) })),
      });
    }),
  );
}
