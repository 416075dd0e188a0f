import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import { WARNINGLIST_PAGE_MAX } from "../modules/warninglists/index.ts";
import type { Runtime } from "../runtime.ts";
import { answerResource, jsonResource } from "./resources-galaxies.ts";
import { principalOf } from "./results.ts";
import { toolPrincipal } from "./tool-access.ts";

/** `warninglists`: the enabled warninglists, read as check_warninglists reads them (warninglists:read). */
export function registerWarninglistResources(server: McpServer, runtime: Runtime): void {
  server.registerResource(
    "warninglists",
    "workbench://warninglists",
    {
      title: "Warninglists",
      description:
        "The enabled warninglists (known-good or noisy values: public DNS resolvers, cloud ranges, top domains...) that attribute values are " +
        "matched against: name, type (string, substring, hostname, cidr, regex), entry count and the attribute types each applies to (empty: all). " +
        "Listed values carry the list in warnings.name (searchable) and take no part in correlation; check values with check_warninglists.",
      mimeType: "application/json",
    },
    (uri, extra: { authInfo?: AuthInfo }) =>
      answerResource(runtime, async () => {
        const p = toolPrincipal(principalOf(extra.authInfo), "check_warninglists");
        const page = await runtime.services.warninglists.list(p, { enabled: true, page: 1, size: WARNINGLIST_PAGE_MAX });
        return jsonResource(uri.href, {
          total: page.total,
          warninglists: page.items.map((l) => ({ id: l.id, name: l.name, type: l.type, entry_count: l.entryCount, matching_attributes: l.matchingAttributes, description: l.description })),
        });
      }),
  );
}
