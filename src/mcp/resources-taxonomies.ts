import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import { WITH_PREDICATES, type TaxonomyWithPredicates } from "../modules/taxonomies/index.ts";
import type { Runtime } from "../runtime.ts";
import { answerResource, jsonResource } from "./resources-galaxies.ts";
import { principalOf } from "./results.ts";
import { toolPrincipal } from "./tool-access.ts";

/** Enabled taxonomies are a handful (tlp, pap, admiralty-scale...); more is not reference data a model reads whole. */
const MAX_TAXONOMIES = 100;

const taxonomyOut = (t: TaxonomyWithPredicates) => ({
  namespace: t.namespace,
  description: t.description,
  exclusive: t.exclusive,
  predicates: t.predicates.map((p) => ({
    tag: p.tagName,
    expanded: p.expanded,
    exclusive: p.exclusive,
    numerical_value: p.numericalValue,
    entries: p.entries.map((e) => ({ tag: e.tagName, expanded: e.expanded, numerical_value: e.numericalValue })),
  })),
});

/** `taxonomies`: the enabled machine-tag vocabularies, read as get_tags reads tags (with taxonomies:read). */
export function registerTaxonomyResources(server: McpServer, runtime: Runtime): void {
  server.registerResource(
    "taxonomies",
    "workbench://taxonomies",
    {
      title: "Taxonomies",
      description: `The enabled taxonomies (machine-tag vocabularies: tlp, pap, admiralty-scale...), at most ${MAX_TAXONOMIES}: each predicate's tag (namespace:predicate) and its entries' tags (namespace:predicate="entry") with their meanings and numerical values. An exclusive taxonomy or predicate allows one of its tags per event or attribute.`,
      mimeType: "application/json",
    },
    (uri, extra: { authInfo?: AuthInfo }) =>
      answerResource(runtime, async () => {
        const p = toolPrincipal(principalOf(extra.authInfo), "get_tags");
        const page = await runtime.services.taxonomies.list(p, { enabled: true, page: 1, size: MAX_TAXONOMIES }, { include: WITH_PREDICATES });
        // The list is typed for its own counts; the rows carry the predicates WITH_PREDICATES asked for.
        return jsonResource(uri.href, { total: page.total, taxonomies: (page.items as unknown as TaxonomyWithPredicates[]).map(taxonomyOut) });
      }),
  );
}
