import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import type { Runtime } from "../runtime.ts";
import { MAX_SEARCH_PAGE_SIZE, MAX_SEARCH_WINDOW, parseUserQuery, type SearchTarget } from "../modules/search/index.ts";
import { withTimeRange } from "../modules/search/index.ts";
import { detectIndicator, refang } from "../modules/feeds/index.ts";
import { getAttributeCatalogue } from "../modules/attributes/index.ts";
import { attributeOut } from "../../rest-shim/serializers/attributes.ts";
import { tagRecordOut } from "../../rest-shim/serializers/tags.ts";
import { parseMachineTag } from "../modules/tags/index.ts";
import { EVENT_ATTRIBUTES, EVENT_OBJECTS, eventOf, getEventShape, OBJECT_ATTRIBUTES, RELATED_EVENTS } from "./event-of.ts";
import { toolResult } from "./results.ts";
import { timeRangeOf, timeRangeShape } from "./time-range.ts";
import { hitOut, READ_ONLY, UUID, wrap, type ToolContext } from "./tool-kit.ts";
import { registerHuntTools } from "./tools-hunts.ts";
import { registerIntelTools } from "./tools-intel.ts";
import { registerServerTools } from "./tools-servers.ts";
import { registerUserTools } from "./tools-user.ts";
import { registerWriteTools } from "./tools-write.ts";

const searchShape = (target: SearchTarget, examples: string) => ({
  query: z
    .string()
    .min(1)
    .max(10_000)
    .describe(
      `Lucene query over the ${target} index (read the query-syntax resource for the fields). ${examples} ` +
        "Invalid syntax answers an error naming the position.",
    ),
  size: z.number().int().min(1).max(MAX_SEARCH_PAGE_SIZE).default(10).describe(`Hits per page, 1 to ${MAX_SEARCH_PAGE_SIZE} (default 10).`),
  page: z.number().int().min(1).max(MAX_SEARCH_WINDOW).default(1).describe(`Page number from 1; page × size may not exceed ${MAX_SEARCH_WINDOW}.`),
  sort_order: z.enum(["desc", "asc"]).default("desc").describe("By @timestamp: newest first (desc, default) or oldest first."),
  ...timeRangeShape,
});

interface SearchArgs {
  query: string;
  size: number;
  page: number;
  sort_order: "asc" | "desc";
  from?: string | number;
  to?: string | number;
}

/**
 * The search REST and GraphQL make, with the time range ANDed to the query as the Explore export
 * does (`withTimeRange`); parsed inside the caller's search slot, as `SearchService.search` does.
 */
async function search(ctx: ToolContext, target: SearchTarget, args: SearchArgs) {
  const { from, to } = timeRangeOf(args);
  const { search: searchService } = ctx.services;
  const page = await searchService.limited(ctx.principal, () =>
    searchService.searchParsed(ctx.principal, target, withTimeRange(parseUserQuery(args.query), from, to), {
      page: args.page,
      size: args.size,
      sortBy: "@timestamp",
      sortOrder: args.sort_order,
      includeDeleted: false,
    }),
  );
  const hits = page.hits.map(hitOut);
  const more = page.page * page.size < page.total;
  const summary =
    `${page.total}${page.totalRelation === "gte" ? "+" : ""} ${target} match; page ${page.page} holds ${hits.length}.` +
    (more ? ` Next: page ${page.page + 1}.` : "");
  const range = from || to ? { from: from?.toISOString() ?? null, to: to?.toISOString() ?? null } : null;
  return toolResult(summary, { total: page.total, total_relation: page.totalRelation, page: page.page, size: page.size, time_range: range, hits });
}

export function registerTools(server: McpServer, runtime: Runtime): void {
  server.registerTool(
    "search_attributes",
    {
      title: "Search attributes (indicators)",
      description:
        "Searches the attributes (indicators: IPs, domains, hashes, URLs...) you may read, newest first. Returns total, " +
        "total_relation (eq, or gte past 10 000) and one page of hits, each with uuid, type, category, value, event_uuid, tags. " +
        "At most 100 hits per call: page through with `page`. `from` / `to` keep hits whose @timestamp (last change) lies in the range.",
      inputSchema: searchShape(
        "attributes",
        'Examples: `value:"8.8.8.8"`, `type:ip-dst AND tags.name:"tlp:red"`, `type:sha256 AND @timestamp:[now-7d TO *]`, `value:*.example.com`.',
      ),
      annotations: READ_ONLY,
    },
    wrap(runtime, "search_attributes", (args, ctx) => search(ctx, "attributes", args)),
  );

  server.registerTool(
    "search_events",
    {
      title: "Search events",
      description:
        "Searches the events (reports grouping indicators) you may read, newest first. Returns total, total_relation and one " +
        "page of hits, each with uuid, info (title), date, threat_level, tags, organisation. At most 100 hits per call. " +
        "`from` / `to` keep events whose @timestamp (last change) lies in the range.",
      inputSchema: searchShape("events", 'Examples: `info:ransomware`, `tags.name:"tlp:amber" AND threat_level:1`, `published:true`.'),
      annotations: READ_ONLY,
    },
    wrap(runtime, "search_events", (args, ctx) => search(ctx, "events", args)),
  );

  server.registerTool(
    "get_event",
    {
      title: "Get an event",
      description:
        "Reads one event by uuid: its fields (info, date, threat_level, analysis, distribution, organisation), tags, the retention badge " +
        "(expired / expiring, or null), its galaxies (threat actors, tools, ATT&CK... with their clusters' tag_name), related_events (the " +
        `${RELATED_EVENTS} events with most correlating attributes), one page of ${EVENT_ATTRIBUTES} attributes outside objects ` +
        `(attribute_total, next_attribute_page: call again with attribute_page) and one page of ${EVENT_OBJECTS} objects, each with its first ` +
        `${OBJECT_ATTRIBUTES} attributes (object_total, next_object_page). Long values are cut with a "…[truncated N characters]" marker. ` +
        "Only what you may read is there; not found when you may not read the event.",
      inputSchema: getEventShape,
      annotations: READ_ONLY,
    },
    wrap(runtime, "get_event", eventOf),
  );

  server.registerTool(
    "get_attribute",
    {
      title: "Get an attribute",
      description: "Reads one attribute (indicator) by uuid: type, category, value, to_ids, tags, its event's uuid. Not found when you may not read it.",
      inputSchema: { attribute_uuid: UUID },
      annotations: READ_ONLY,
    },
    wrap(runtime, "get_attribute", async ({ attribute_uuid }: { attribute_uuid: string }, { services, principal }) => {
      const a = await services.attributes.get(principal, attribute_uuid.toLowerCase());
      return toolResult(`Attribute ${a.uuid}: ${a.type}.`, { attribute: attributeOut(a) });
    }),
  );

  server.registerTool(
    "get_tags",
    {
      title: "List tags",
      description:
        "Lists tag definitions (TLP markings, taxonomies, galaxy clusters such as ATT&CK techniques), by name, 1 to 100 per page. " +
        "Use a tag's name in queries as tags.name:\"<name>\". With suggest_for, answers instead the tags whose name, predicate or value " +
        "starts with that text, enabled taxonomies' tags with their meaning and numerical value (to pick a tag such as tlp:amber or admiralty-scale).",
      inputSchema: {
        suggest_for: z.string().min(1).max(255).optional().describe('Suggest tags for this start of a name, predicate or value, e.g. "amber" or "admiralty".'),
        filter: z.string().max(255).optional().describe('Case-insensitive part of the name, e.g. "tlp" or "mitre-attack-pattern".'),
        page: z.number().int().min(1).max(10_000).default(1),
        size: z.number().int().min(1).max(100).default(50),
      },
      annotations: READ_ONLY,
    },
    wrap(runtime, "get_tags", async (args: { suggest_for?: string; filter?: string; page: number; size: number }, { services, principal }) => {
      if (args.suggest_for !== undefined) {
        const suggestions = await services.tags.suggest(principal, { text: args.suggest_for, limit: args.size });
        return toolResult(`${suggestions.length} suggested tags.`, {
          suggestions: suggestions.map((s) => ({
            name: s.name,
            colour: s.colour,
            taxonomy: s.taxonomy,
            meaning: s.expanded,
            description: s.description,
            numerical_value: s.numericalValue,
            machine_tag: parseMachineTag(s.name),
          })),
        });
      }
      const page = await services.tags.list(principal, { filter: args.filter, page: args.page, size: args.size });
      return toolResult(`${page.total} tags; page ${page.page} holds ${page.items.length}.`, { total: page.total, page: page.page, size: page.size, tags: page.items.map(tagRecordOut) });
    }),
  );

  server.registerTool(
    "detect_indicator_type",
    {
      title: "Detect an indicator's type",
      description:
        "Refangs a value (hxxp, [.], (dot), [at]) and detects its MISP attribute type as feeds do: ip-dst, ip-dst|port, md5/sha1/sha256..., " +
        "url, domain, hostname, email-src, vulnerability, AS. Reads no data. Returns {refanged, type, value, categories} or type null.",
      inputSchema: { value: z.string().min(1).max(4096).describe('One indicator, e.g. "hxxps://evil[.]example/x" or "1.2.3[.]4".') },
      annotations: READ_ONLY,
    },
    wrap(runtime, "detect_indicator_type", async ({ value }: { value: string }) => {
      const detected = detectIndicator(value);
      const categories = detected ? (getAttributeCatalogue().types.get(detected.type)?.categories ?? []) : [];
      return toolResult(detected ? `Detected ${detected.type}.` : "No indicator type recognised.", {
        refanged: refang(value),
        type: detected?.type ?? null,
        value: detected?.value ?? null,
        categories,
      });
    }),
  );

  registerIntelTools(server, runtime);
  registerHuntTools(server, runtime);
  registerUserTools(server, runtime);
  registerWriteTools(server, runtime);
  registerServerTools(server, runtime);
}
