import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import { z } from "zod";
import type { Principal } from "../auth/principal.ts";
import type { Runtime } from "../runtime.ts";
import type { Services } from "../services.ts";
import { AUDIENCE_FIELD } from "../search/fields.ts";
import { MAX_SEARCH_PAGE_SIZE, MAX_SEARCH_WINDOW, type SearchTarget } from "../modules/search/search.service.ts";
import { detectIndicator, refang } from "../modules/feeds/ingest/detect-type.ts";
import { getAttributeCatalogue } from "../modules/attributes/catalogue/catalogue.ts";
import { eventOut } from "../../rest-shim/serializers/events.ts";
import { attributeOut } from "../../rest-shim/serializers/attributes.ts";
import { tagRecordOut } from "../../rest-shim/serializers/tags.ts";
import { huntOut } from "../../rest-shim/routes/hunts.ts";
import { checkArguments, principalOf, toolError, toolResult } from "./results.ts";
import { toolPrincipal } from "./tool-access.ts";
import type { McpToolName } from "./tool-names.ts";

/** Attributes get_event returns with an event; the rest are paged with search_attributes. */
const EVENT_ATTRIBUTES = 100;
const UUID = z.uuid().describe("A UUID, e.g. 5f8e0c59-2f4c-4a4e-9b1e-0c2b8e9d7a11");

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
});

interface ToolContext {
  services: Services;
  principal: Principal;
}

type Handler<A> = (args: A, ctx: ToolContext) => Promise<CallToolResult>;

/**
 * Every tool runs the same way: the caller authenticated by this very HTTP request, checked for
 * `mcp:<tool>` and the tool's workbench scopes, then one service call (the same the REST layer
 * makes, so distribution, organisation isolation and search limits apply unchanged).
 */
function wrap<A>(runtime: Runtime, tool: McpToolName, handler: Handler<A>) {
  return async (args: A, extra: { authInfo?: AuthInfo }): Promise<CallToolResult> => {
    try {
      checkArguments(args);
      const principal = toolPrincipal(principalOf(extra.authInfo), tool);
      return await handler(args, { services: runtime.services, principal });
    } catch (err) {
      return toolError(err, runtime.ctx.log, tool);
    }
  };
}

async function search(ctx: ToolContext, target: SearchTarget, args: { query: string; size: number; page: number; sort_order: "asc" | "desc" }) {
  const page = await ctx.services.search.search(ctx.principal, target, {
    query: args.query,
    page: args.page,
    size: args.size,
    sortBy: "@timestamp",
    sortOrder: args.sort_order,
    includeDeleted: false,
  });
  // The audience list is the index's access bookkeeping, not data.
  const hits = page.hits.map((h) => ({ id: h.id, ...Object.fromEntries(Object.entries(h.source).filter(([k]) => k !== AUDIENCE_FIELD)) }));
  const more = page.page * page.size < page.total;
  const summary =
    `${page.total}${page.totalRelation === "gte" ? "+" : ""} ${target} match; page ${page.page} holds ${hits.length}.` +
    (more ? ` Next: page ${page.page + 1}.` : "");
  return toolResult(summary, { total: page.total, total_relation: page.totalRelation, page: page.page, size: page.size, hits });
}

export function registerTools(server: McpServer, runtime: Runtime): void {
  server.registerTool(
    "search_attributes",
    {
      title: "Search attributes (indicators)",
      description:
        "Searches the attributes (indicators: IPs, domains, hashes, URLs...) you may read, newest first. Returns total, " +
        "total_relation (eq, or gte past 10 000) and one page of hits, each with uuid, type, category, value, event_uuid, tags. " +
        "At most 100 hits per call: page through with `page`.",
      inputSchema: searchShape(
        "attributes",
        'Examples: `value:"8.8.8.8"`, `type:ip-dst AND tags.name:"tlp:red"`, `type:sha256 AND @timestamp:[now-7d TO *]`, `value:*.example.com`.',
      ),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    wrap(runtime, "search_attributes", (args, ctx) => search(ctx, "attributes", args)),
  );

  server.registerTool(
    "search_events",
    {
      title: "Search events",
      description:
        "Searches the events (reports grouping indicators) you may read, newest first. Returns total, total_relation and one " +
        "page of hits, each with uuid, info (title), date, threat_level, tags, organisation. At most 100 hits per call.",
      inputSchema: searchShape("events", 'Examples: `info:ransomware`, `tags.name:"tlp:amber" AND threat_level:1`, `published:true`.'),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    wrap(runtime, "search_events", (args, ctx) => search(ctx, "events", args)),
  );

  server.registerTool(
    "get_event",
    {
      title: "Get an event",
      description:
        `Reads one event by uuid: its fields, tags, retention badge and its first ${EVENT_ATTRIBUTES} attributes outside objects ` +
        "(attribute_total says how many there are; search_attributes with `event_uuid:<uuid>` pages through all). Not found when you may not read it.",
      inputSchema: { event_uuid: UUID },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    wrap(runtime, "get_event", async ({ event_uuid }: { event_uuid: string }, { services, principal }) => {
      const event = await services.events.get(principal, event_uuid.toLowerCase());
      const attributes = await services.attributes.list(principal, { eventUuid: event.uuid }, { page: 1, size: EVENT_ATTRIBUTES });
      const { attributes: _none, objects: _noObjects, ...fields } = eventOut(event);
      return toolResult(`Event ${event.uuid} with ${attributes.total} attributes outside objects and ${event.objectCount} objects.`, {
        event: fields,
        attribute_total: attributes.total,
        attributes: attributes.items.map((a) => attributeOut(a)),
      });
    }),
  );

  server.registerTool(
    "get_attribute",
    {
      title: "Get an attribute",
      description: "Reads one attribute (indicator) by uuid: type, category, value, to_ids, tags, its event's uuid. Not found when you may not read it.",
      inputSchema: { attribute_uuid: UUID },
      annotations: { readOnlyHint: true, openWorldHint: false },
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
        "Use a tag's name in queries as tags.name:\"<name>\".",
      inputSchema: {
        filter: z.string().max(255).optional().describe('Case-insensitive part of the name, e.g. "tlp" or "mitre-attack-pattern".'),
        page: z.number().int().min(1).max(10_000).default(1),
        size: z.number().int().min(1).max(100).default(50),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    wrap(runtime, "get_tags", async (args: { filter?: string; page: number; size: number }, { services, principal }) => {
      const page = await services.tags.list(principal, { filter: args.filter ?? null, page: args.page, size: args.size });
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
      annotations: { readOnlyHint: true, openWorldHint: false },
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

  server.registerTool(
    "list_hunts",
    {
      title: "List your hunts",
      description: "Lists your saved hunts (saved queries run on a schedule): id, name, query, hunt_type, status, last run and match count. 1 to 100 per page.",
      inputSchema: {
        name: z.string().max(255).optional().describe("Part of the hunt's name."),
        page: z.number().int().min(1).max(10_000).default(1),
        size: z.number().int().min(1).max(100).default(20),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    wrap(runtime, "list_hunts", async (args: { name?: string; page: number; size: number }, { services, principal }) => {
      const page = await services.hunts.list(principal, { name: args.name }, { page: args.page, size: args.size });
      return toolResult(`${page.total} hunts; page ${page.page} holds ${page.items.length}.`, { total: page.total, page: page.page, size: page.size, hunts: page.items.map(huntOut) });
    }),
  );

  server.registerTool(
    "get_hunt_results",
    {
      title: "Get a hunt's last results",
      description:
        "The cached result of a hunt's last successful run: total, run_at and up to 100 hits (search documents, CVEs or rules by hunt type). " +
        "An error when the hunt never ran or is not yours.",
      inputSchema: { hunt_id: z.number().int().min(1).max(2_147_483_647).describe("The hunt's id, from list_hunts.") },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    wrap(runtime, "get_hunt_results", async ({ hunt_id }: { hunt_id: number }, { services, principal }) => {
      const { hunt, result } = await services.hunts.results(principal, hunt_id);
      const hits = result.hits.slice(0, 100);
      return toolResult(`Hunt ${hunt.id}: ${result.total} results at ${result.runAt.toISOString()}; ${hits.length} shown.`, {
        hunt: huntOut(hunt),
        total: result.total,
        run_at: result.runAt,
        hits,
      });
    }),
  );
}
