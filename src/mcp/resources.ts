import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { DISTRIBUTION } from "../auth/distribution.ts";
import { getAttributeCatalogue } from "../modules/attributes/index.ts";
import { AUDIENCE_FIELD, INDEX_FIELDS } from "../search/fields.ts";
import type { IndexName } from "../search/search-index.ts";
import type { Runtime } from "../runtime.ts";
import { ANALYSIS_LEVELS, THREAT_LEVELS } from "./levels.ts";
import { registerGalaxyResources } from "./resources-galaxies.ts";
import { registerTaxonomyResources } from "./resources-taxonomies.ts";
import { registerWarninglistResources } from "./resources-warninglists.ts";

const json = (uri: string, value: unknown) => ({ contents: [{ uri, mimeType: "application/json", text: JSON.stringify(value, null, 1) }] });

const DISTRIBUTION_TEXT: Record<keyof typeof DISTRIBUTION, string> = {
  organisation: "Your organisation only",
  community: "This community (every organisation of this instance)",
  connected: "Connected communities",
  all: "All communities",
  sharingGroup: "A sharing group (today: the owning organisations only)",
  inherit: "Inherit the event's distribution (attributes and objects only)",
};

function fieldsOf(index: IndexName): string {
  const { fields, defaultFields } = INDEX_FIELDS[index];
  const lines = Object.entries(fields)
    .filter(([name]) => name !== AUDIENCE_FIELD)
    .map(([name, type]) => `- ${name} (${type})`);
  return `Default field (a term without a field): ${defaultFields.join(", ")}\n${lines.join("\n")}`;
}

/** The Lucene subset both search backends answer the same way (docs/search-conformance.md). */
export function querySyntaxText(): string {
  return `# Query syntax (search_events, search_attributes)

Lucene query string syntax, the subset both search backends answer identically:
- terms and fields: \`8.8.8.8\`, \`value:"8.8.8.8"\`, \`type:ip-dst\`; text fields match words, \`field.keyword\` is not needed for exact uuids (keyword fields)
- phrases: \`info:"cobalt strike"\`
- boolean: \`AND\`, \`OR\`, \`NOT\`, \`+\`/\`-\`, parentheses: \`type:(ip-src OR ip-dst) AND NOT tags.name:"tlp:white"\`
- wildcards and regexes: \`value:*.example.com\`, \`value:evil?\`, \`value:/ba[rz]/\`
- ranges, with date math: \`@timestamp:[now-7d TO *]\`, \`threat_level:[1 TO 2]\`, \`timestamp:>1700000000\`
- IP fields: CIDR blocks \`expanded.ip:"10.0.0.0/8"\`
- a value in any case, or either half of a composite value: \`expanded.value:"evil.example"\` (the value and its halves, lower-cased)
- existence: \`_exists_:comment\`
- typo-tolerant terms: \`info:emotte~\` (up to 2 edits, at most 50 matching terms), word proximity: \`info:"remote administration"~3\`
- regexes on text fields are lower-cased; not supported: regex \`&\`, \`~\` and \`<1-100>\`
Totals are exact up to 10 000 (total_relation "eq"), then "gte". page × size ≤ 10 000. Soft-deleted documents are left out.
Tags: \`tags.name:"tlp:red"\`, ATT&CK: \`tags.name:"misp-galaxy:mitre-attack-pattern=\\"Phishing - T1566\\""\`.

## Attribute fields
${fieldsOf("svc-attributes")}

## Event fields
${fieldsOf("svc-events")}
`;
}

/**
 * Reference data a model needs to write queries and read answers: the same for every caller,
 * but galaxies and taxonomies, which are read as their tools read them (`./resources-galaxies.ts`,
 * `./resources-taxonomies.ts`).
 */
export function registerResources(server: McpServer, runtime: Runtime): void {
  server.registerResource(
    "attribute-types",
    "workbench://attribute-types",
    { title: "Attribute types", description: "MISP attribute types (describeTypes): default category, to_ids default, allowed categories, composite or not.", mimeType: "application/json" },
    (uri) => {
      const c = getAttributeCatalogue();
      return json(uri.href, c.typeNames.map((name) => {
        const t = c.types.get(name);
        return { type: name, default_category: t?.defaultCategory ?? null, to_ids: t?.toIds ?? false, categories: t?.categories ?? [], composite: t?.composite ?? false };
      }));
    },
  );
  server.registerResource(
    "attribute-categories",
    "workbench://attribute-categories",
    { title: "Attribute categories", description: "MISP attribute categories and the types each allows.", mimeType: "application/json" },
    (uri) => {
      const c = getAttributeCatalogue();
      return json(uri.href, c.categories.map((category) => ({ category, types: c.categoryTypes.get(category) ?? [] })));
    },
  );
  server.registerResource(
    "distribution-levels",
    "workbench://distribution-levels",
    { title: "Distribution levels", description: "MISP distribution levels (0-5) and who may read each.", mimeType: "application/json" },
    (uri) =>
      json(uri.href, Object.entries(DISTRIBUTION).map(([name, level]) => ({ level, name, meaning: DISTRIBUTION_TEXT[name as keyof typeof DISTRIBUTION] }))),
  );
  server.registerResource(
    "threat-levels",
    "workbench://threat-levels",
    { title: "Threat levels", description: "MISP threat levels of events (threat_level 1-4).", mimeType: "application/json" },
    (uri) => json(uri.href, THREAT_LEVELS),
  );
  server.registerResource(
    "analysis-levels",
    "workbench://analysis-levels",
    { title: "Analysis levels", description: "MISP analysis states of events (analysis 0-2).", mimeType: "application/json" },
    (uri) => json(uri.href, ANALYSIS_LEVELS),
  );
  server.registerResource(
    "query-syntax",
    "workbench://query-syntax",
    { title: "Query syntax", description: "The Lucene subset search_events and search_attributes accept, with every field name and type.", mimeType: "text/markdown" },
    (uri) => ({ contents: [{ uri: uri.href, mimeType: "text/markdown", text: querySyntaxText() }] }),
  );
  registerGalaxyResources(server, runtime);
  registerTaxonomyResources(server, runtime);
  registerWarninglistResources(server, runtime);
}
