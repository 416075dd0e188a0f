import { z } from "zod";
import type { Galaxy, GalaxyCluster } from "../../src/generated/prisma/client.ts";
import type { AttackPattern, GalaxyUpdateResult, GalaxyWithClusters, P2Page } from "../../src/modules/galaxies/index.ts";
import { named, timestamp } from "../contract.ts";

export const GalaxyClusterSchema = named(
  "GalaxyCluster",
  z.object({
    id: z.int(),
    uuid: z.guid(),
    collection_uuid: z.guid().nullable(),
    type: z.string().describe("The galaxy's type (e.g. mitre-attack-pattern)"),
    value: z.string().describe("The cluster's name (e.g. Command and Scripting Interpreter - T1059)"),
    tag_name: z.string().describe("The tag that carries it: misp-galaxy:<type>=\"<value>\""),
    description: z.string(),
    galaxy_id: z.int(),
    source: z.string(),
    authors: z.array(z.string()),
    version: z.string(),
    external_ids: z.array(z.string()).describe("meta.external_id upper-cased (ATT&CK codes such as T1059, T1059.001)"),
    meta: z.record(z.string(), z.unknown()).describe("MISP's meta as imported (external_id, refs, kill_chain, ...): free-form, each galaxy has its own keys"),
    related: z.array(z.unknown()).describe("MISP's related clusters as imported ({dest-uuid, type, tags}): kept verbatim"),
  }),
  "A galaxy cluster in the peer's snake_case shape, with MISP's meta and related kept as imported",
);

export const GalaxySchema = named(
  "Galaxy",
  z.object({
    id: z.int(),
    uuid: z.guid(),
    name: z.string(),
    type: z.string(),
    description: z.string(),
    version: z.string(),
    icon: z.string(),
    namespace: z.string(),
    enabled: z.boolean().describe("Enabled galaxies have one tag per cluster"),
    local_only: z.boolean().describe("Its tags stay on this instance"),
    kill_chain_order: z.unknown().describe("MISP's kill_chain_order as imported (an object of phase lists by scope), or null"),
    default: z.boolean(),
    created: timestamp,
    modified: timestamp,
    clusters: z.array(GalaxyClusterSchema).describe("Its clusters on GET /galaxies/{id}; empty in lists"),
  }),
  "A galaxy (MISP's cluster collection)",
);

/**
 * Galaxies and clusters in the peer's snake_case shape. Our clusters keep MISP's `meta` and
 * `related` as imported (the peer splits them into `elements` and `relations` rows) and add
 * `external_ids`, the upper-cased `meta.external_id`. Timestamps are ISO 8601 with Z.
 */
export function galaxyClusterOut(c: GalaxyCluster): z.output<typeof GalaxyClusterSchema> {
  return {
    id: c.id,
    uuid: c.uuid,
    collection_uuid: c.collectionUuid,
    type: c.type,
    value: c.value,
    tag_name: c.tagName,
    description: c.description,
    galaxy_id: c.galaxyId,
    source: c.source,
    authors: c.authors,
    version: c.version,
    external_ids: c.externalIds,
    meta: c.meta as Record<string, unknown>,
    related: c.related as unknown[],
  };
}

/** Lists answer `clusters: []` as the peer does without `include_clusters`; the item route carries them all. */
export function galaxyOut(g: Galaxy | GalaxyWithClusters): z.output<typeof GalaxySchema> {
  return {
    id: g.id,
    uuid: g.uuid,
    name: g.name,
    type: g.type,
    description: g.description,
    version: g.version,
    icon: g.icon,
    namespace: g.namespace,
    enabled: g.enabled,
    local_only: g.localOnly,
    kill_chain_order: g.killChainOrder,
    default: g.default,
    created: g.createdAt.toISOString(),
    modified: g.updatedAt.toISOString(),
    clusters: "clusters" in g ? g.clusters.map(galaxyClusterOut) : [],
  };
}

/** The peer's P2 envelope: P1's fields and the filter applied. */
function p2PageSchema<T extends z.ZodType>(id: string, item: T) {
  return named(
    id,
    z.object({
      items: z.array(item),
      total: z.int().min(0),
      page: z.int().min(1),
      size: z.int().min(1),
      pages: z.int().min(0),
      query: z.object({ filter: z.string().nullable() }).describe("The filter applied; null without one"),
    }),
  );
}

export const GalaxyPageSchema = p2PageSchema("GalaxyPage", GalaxySchema);
export const GalaxyClusterPageSchema = p2PageSchema("GalaxyClusterPage", GalaxyClusterSchema);

export function galaxyPageOut(p: P2Page<Galaxy>): z.output<typeof GalaxyPageSchema> {
  return { items: p.items.map(galaxyOut), total: p.total, page: p.page, size: p.size, pages: p.pages, query: { filter: p.query.filter } };
}

export function galaxyClusterPageOut(p: P2Page<GalaxyCluster>): z.output<typeof GalaxyClusterPageSchema> {
  return { items: p.items.map(galaxyClusterOut), total: p.total, page: p.page, size: p.size, pages: p.pages, query: { filter: p.query.filter } };
}

export const GalaxyUpdateSchema = named(
  "GalaxyUpdate",
  z.object({
    galaxies: z.int().min(0).describe("Galaxies read from GALAXY_SOURCE"),
    clusters_created: z.int().min(0),
    clusters_updated: z.int().min(0),
    clusters_unchanged: z.int().min(0),
    took_ms: z.number().min(0).describe("Milliseconds the import took"),
  }),
  "What a galaxy import did",
);

export const galaxyUpdateOut = (r: GalaxyUpdateResult): z.output<typeof GalaxyUpdateSchema> => ({
  galaxies: r.galaxies,
  clusters_created: r.clusters_created,
  clusters_updated: r.clusters_updated,
  clusters_unchanged: r.clusters_unchanged,
  took_ms: r.took_ms,
});

export const AttackPatternSchema = named(
  "AttackPattern",
  z.object({
    uuid: z.guid().describe("The cluster's uuid"),
    value: z.string(),
    description: z.string(),
    external_id: z.string().nullable().describe("The ATT&CK code (T1059, T1059.001); null when the cluster has none"),
  }),
  "An ATT&CK technique of the mitre-attack-pattern galaxy",
);

export const attackPatternOut = (a: AttackPattern): z.output<typeof AttackPatternSchema> => ({ uuid: a.uuid, value: a.value, description: a.description, external_id: a.external_id });
