import { z } from "zod";
import type { Page } from "../../src/platform/pagination.ts";
import { named } from "../contract.ts";
import { defineMispRoute } from "./misp-route.ts";

/**
 * The shared knowledge MISP lists: galaxies, taxonomies and warninglists, each whole (read a page
 * of 1000 at a time from its service) in MISP's envelopes.
 */
const PAGE = 1000;
const MAX_ITEMS = 100_000;

async function all<T>(read: (page: number) => Promise<Page<T>>): Promise<T[]> {
  const out: T[] = [];
  for (let page = 1; out.length < MAX_ITEMS; page++) {
    const batch = await read(page);
    out.push(...batch.items);
    if (page >= batch.pages) break;
  }
  return out;
}

const item = (key: string, fields: z.ZodRawShape) => z.object({ [key]: z.object(fields).loose() }).loose();

export const mispKnowledgeRoutes = [
  defineMispRoute({
    method: "GET", path: "/misp/galaxies/index", operationId: "mispGalaxyIndex", summary: "MISP galaxies/index: every galaxy, each as {\"Galaxy\": {...}}",
    scopes: ["galaxies:read"], status: 200, misp: { notFound: "Invalid galaxy." },
    response: named("MispGalaxyIndex", z.array(item("Galaxy", { id: z.string(), uuid: z.uuid(), name: z.string(), type: z.string(), enabled: z.boolean() })), "Galaxies as MISP lists them"),
    handler: async ({ principal, services }) =>
      (await all((page) => services.galaxies.list(principal, { page, size: PAGE }))).map((g) => ({
        Galaxy: {
          id: String(g.id), uuid: g.uuid, name: g.name, type: g.type, description: g.description, version: g.version, icon: g.icon, namespace: g.namespace,
          kill_chain_order: g.killChainOrder ?? null, enabled: g.enabled, local_only: g.localOnly, default: g.default,
        },
      })),
  }),
  defineMispRoute({
    method: "GET", path: "/misp/taxonomies/index", operationId: "mispTaxonomyIndex",
    summary: "MISP taxonomies/index: every taxonomy, each as {\"Taxonomy\": {...}, \"total_count\": its entries (a predicate without entries counts one)}",
    scopes: ["taxonomies:read"], status: 200, misp: { notFound: "Invalid taxonomy." },
    response: named("MispTaxonomyIndex", z.array(item("Taxonomy", { id: z.string(), namespace: z.string(), enabled: z.boolean() })), "Taxonomies as MISP lists them"),
    handler: async ({ principal, services }) =>
      (await all((page) => services.taxonomies.list(principal, { page, size: PAGE }))).map((t) => ({
        Taxonomy: { id: String(t.id), namespace: t.namespace, description: t.description, version: String(t.version), enabled: t.enabled, exclusive: t.exclusive, required: t.required, highlighted: t.highlighted },
        total_count: t.entryCount || t.predicateCount,
      })),
  }),
  defineMispRoute({
    method: "GET", path: "/misp/warninglists/index", operationId: "mispWarninglistIndex", summary: "MISP warninglists/index: every warninglist, as {\"Warninglists\": [{\"Warninglist\": {...}}]}",
    scopes: ["warninglists:read"], status: 200, misp: { notFound: "Invalid warninglist." },
    response: named("MispWarninglistIndex", z.object({ Warninglists: z.array(item("Warninglist", { id: z.string(), name: z.string(), type: z.string(), enabled: z.boolean() })) }), "Warninglists as MISP lists them"),
    handler: async ({ principal, services }) => ({
      Warninglists: (await all((page) => services.warninglists.list(principal, { page, size: PAGE }))).map((w) => ({
        Warninglist: {
          id: String(w.id), name: w.name, type: w.type, description: w.description, version: String(w.version), enabled: w.enabled,
          warninglist_entry_count: String(w.entryCount), valid_attributes: w.matchingAttributes.join(", "),
        },
      })),
    }),
  }),
];
