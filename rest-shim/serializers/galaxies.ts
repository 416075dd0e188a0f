import { z } from "zod";
import type { Galaxy, GalaxyCluster } from "../../src/generated/prisma/client.ts";
import type { AttackPattern, GalaxyUpdateResult, GalaxyWithClusters, P2Page } from "../../src/modules/galaxies/index.ts";
import { ATTACK_PATTERN_DOC as AP, GALAXY_CLUSTER_DOC as GC, GALAXY_DOC as G, GALAXY_TYPES_DOC, GALAXY_UPDATE_DOC as GU } from "../../src/modules/galaxies/index.ts";
import { named, pageObject, timestamp } from "../contract.ts";

export const GalaxyClusterSchema = named(
  "GalaxyCluster",
  z.object({
    id: z.int().describe(GC.id),
    uuid: z.guid().describe(GC.uuid),
    collection_uuid: z.guid().nullable().describe(GC.collectionUuid),
    type: z.string().describe(GC.type),
    value: z.string().describe(GC.value),
    tag_name: z.string().describe(GC.tagName),
    description: z.string().describe(GC.description),
    galaxy_id: z.int().describe(GC.galaxyId),
    source: z.string().describe(GC.source),
    authors: z.array(z.string()).describe(GC.authors),
    version: z.string().describe(GC.version),
    external_ids: z.array(z.string()).describe(GC.externalIds),
    meta: z.record(z.string(), z.unknown()).describe(GC.meta),
    related: z.array(z.unknown()).describe(GC.related),
  }),
  GALAXY_TYPES_DOC.GalaxyCluster,
);

export const GalaxySchema = named(
  "Galaxy",
  z.object({
    id: z.int().describe(G.id),
    uuid: z.guid().describe(G.uuid),
    name: z.string().describe(G.name),
    type: z.string().describe(G.type),
    description: z.string().describe(G.description),
    version: z.string().describe(G.version),
    icon: z.string().describe(G.icon),
    namespace: z.string().describe(G.namespace),
    enabled: z.boolean().describe(G.enabled),
    local_only: z.boolean().describe(G.localOnly),
    kill_chain_order: z.unknown().describe(G.killChainOrder),
    default: z.boolean().describe(G.default),
    created: timestamp,
    modified: timestamp,
    clusters: z.array(GalaxyClusterSchema).describe("Its clusters on GET /galaxies/{id}; empty in lists"),
  }),
  GALAXY_TYPES_DOC.Galaxy,
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
  return named(id, pageObject(item).extend({ query: z.object({ filter: z.string().nullable() }).describe("The filter applied; null without one") }));
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
    galaxies: z.int().min(0).describe(GU.galaxies),
    clusters_created: z.int().min(0).describe(GU.clusters_created),
    clusters_updated: z.int().min(0).describe(GU.clusters_updated),
    clusters_unchanged: z.int().min(0).describe(GU.clusters_unchanged),
    took_ms: z.number().min(0).describe(GU.took_ms),
  }),
  GALAXY_TYPES_DOC.GalaxyUpdateResult,
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
    uuid: z.guid().describe(AP.uuid),
    value: z.string().describe(AP.value),
    description: z.string().describe(AP.description),
    external_id: z.string().nullable().describe(AP.external_id),
  }),
  GALAXY_TYPES_DOC.AttackPattern,
);

export const attackPatternOut = (a: AttackPattern): z.output<typeof AttackPatternSchema> => ({ uuid: a.uuid, value: a.value, description: a.description, external_id: a.external_id });
