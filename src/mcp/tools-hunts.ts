import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import type { Runtime } from "../runtime.ts";
import { AUDIENCE_FIELD } from "../search/fields.ts";
import type { Hit } from "../modules/hunts/index.ts";
import { MAX_QUERY_LENGTH, huntCreateContract } from "../modules/hunts/index.ts";
import { huntOut, huntRunOut } from "../../rest-shim/serializers/hunts.ts";
import { toolResult } from "./results.ts";
import { ADDS_DATA, ID, MAX_ITEMS, pageArg, pageSummary, READ_ONLY, sizeArg, wrap } from "./tool-kit.ts";

const HUNT_ID = ID.describe("The hunt's id, from list_hunts.");
/** Explore's save-as-hunt saves search hunts over these indices. */
const SEARCH_TARGETS = ["attributes", "events", "correlations"] as const;

/** Search hunts cache whole index documents: their audience list is access bookkeeping, not data. */
const huntHits = (hits: Hit[]) => hits.slice(0, MAX_ITEMS).map((h) => Object.fromEntries(Object.entries(h).filter(([k]) => k !== AUDIENCE_FIELD)));

/** list_hunts, get_hunt_results, get_hunt_history, run_hunt and create_hunt: the REST /hunts/ routes' service calls. */
export function registerHuntTools(server: McpServer, runtime: Runtime): void {
  server.registerTool(
    "list_hunts",
    {
      title: "List your hunts",
      description: "Lists your saved hunts (saved queries run on a schedule): id, name, query, hunt_type, status, last run and match count. 1 to 100 per page.",
      inputSchema: { name: z.string().max(255).optional().describe("Part of the hunt's name."), page: pageArg, size: sizeArg(20) },
      annotations: READ_ONLY,
    },
    wrap(runtime, "list_hunts", async (args: { name?: string; page: number; size: number }, { services, principal }) => {
      const page = await services.hunts.list(principal, { filter: args.name, page: args.page, size: args.size });
      return toolResult(pageSummary("hunts", page, page.items.length), { total: page.total, page: page.page, size: page.size, hunts: page.items.map(huntOut) });
    }),
  );

  server.registerTool(
    "get_hunt_results",
    {
      title: "Get a hunt's last results",
      description:
        `The cached result of a hunt's last successful run: total, run_at and up to ${MAX_ITEMS} hits (search documents, CVEs or rules by hunt type). ` +
        "An error when the hunt never ran or is not yours.",
      inputSchema: { hunt_id: HUNT_ID },
      annotations: READ_ONLY,
    },
    wrap(runtime, "get_hunt_results", async ({ hunt_id }: { hunt_id: number }, { services, principal }) => {
      const { hunt, result } = await services.hunts.results(principal, hunt_id);
      const hits = huntHits(result.hits);
      return toolResult(`Hunt ${hunt.id}: ${result.total} results at ${result.runAt.toISOString()}; ${hits.length} shown.`, {
        hunt: huntOut(hunt),
        total: result.total,
        run_at: result.runAt,
        hits,
      });
    }),
  );

  server.registerTool(
    "get_hunt_history",
    {
      title: "Get a hunt's run history",
      description:
        "A hunt's runs, newest first: run_at, status (succeeded or failed, with the error), trigger (manual or schedule), match_count, " +
        "new_hit_count (hits not in the previous run), duration_ms. 1 to 100 runs per page. Not found when the hunt is not yours.",
      inputSchema: { hunt_id: HUNT_ID, page: pageArg, size: sizeArg(20) },
      annotations: READ_ONLY,
    },
    wrap(runtime, "get_hunt_history", async (args: { hunt_id: number; page: number; size: number }, { services, principal }) => {
      const runs = await services.hunts.history(principal, args.hunt_id, (args.page - 1) * args.size, args.size);
      const more = runs.length === args.size ? ` Older runs: page ${args.page + 1}.` : "";
      return toolResult(`Hunt ${args.hunt_id}: ${runs.length} runs on page ${args.page}.${more}`, { hunt_id: args.hunt_id, page: args.page, size: args.size, runs: runs.map(huntRunOut) });
    }),
  );

  server.registerTool(
    "run_hunt",
    {
      title: "Run a hunt now",
      description:
        "CHANGES DATA: runs one of your saved hunts now, records the run in its history, replaces its cached results and may notify you of new hits. " +
        `Returns total and up to ${MAX_ITEMS} hits, each with is_new (not in the previous run). cpe and rules hunts ask the vulnerability and ` +
        "rules services. Needs the hunts:run scope in your credential itself; a failed run is recorded and answered as an error.",
      inputSchema: { hunt_id: HUNT_ID },
      annotations: { ...ADDS_DATA, openWorldHint: true },
    },
    wrap(runtime, "run_hunt", async ({ hunt_id }: { hunt_id: number }, { services, principal }) => {
      const r = await services.hunts.run(principal, hunt_id);
      const hits = huntHits(r.hits);
      return toolResult(`Hunt ${r.hunt.id} ran: ${r.total} results, ${r.run.newHitCount ?? 0} new; ${hits.length} shown.`, {
        hunt: huntOut(r.hunt),
        total: r.total,
        run_at: r.run.runAt,
        hits,
      });
    }),
  );

  server.registerTool(
    "create_hunt",
    {
      title: "Save a search as a hunt",
      description:
        "CHANGES DATA: saves a Lucene query as a new search hunt of yours (as Explore's save-as-hunt; no schedule, active), to run with run_hunt. " +
        'Example: {"name": "Cobalt Strike beacons", "query": "tags.name:\\"cobalt strike\\" AND type:ip-dst", "index_target": "attributes"}. ' +
        "Test the query with search_attributes or search_events first. Needs the hunts:create scope in your credential itself. Returns the hunt.",
      inputSchema: {
        // The hunt contract's fields, described for a model.
        name: huntCreateContract.shape.name.describe("A name to find it by, 1 to 255 characters."),
        query: huntCreateContract.shape.query.describe(`Lucene query (the query-syntax resource), at most ${MAX_QUERY_LENGTH} characters.`),
        index_target: z.enum(SEARCH_TARGETS).default("attributes").describe("The index the hunt searches (default attributes)."),
        description: huntCreateContract.shape.description.describe("What it looks for, at most 10,000 characters."),
      },
      annotations: ADDS_DATA,
    },
    wrap(runtime, "create_hunt", async (args: { name: string; query: string; index_target: (typeof SEARCH_TARGETS)[number]; description?: string | null }, { services, principal }) => {
      const hunt = await services.hunts.create(principal, { name: args.name, query: args.query, huntType: "search", indexTarget: args.index_target, description: args.description ?? null });
      return toolResult(`Hunt ${hunt.id} created; run it with run_hunt.`, { hunt: huntOut(hunt) });
    }),
  );
}
