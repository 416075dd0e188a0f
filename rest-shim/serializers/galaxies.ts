import type { Galaxy, GalaxyCluster } from "../../src/generated/prisma/client.ts";
import type { GalaxyWithClusters } from "../../src/modules/galaxies/galaxies.service.ts";

/**
 * Galaxies and clusters in the peer's snake_case shape. Our clusters keep MISP's `meta` and
 * `related` as imported (the peer splits them into `elements` and `relations` rows) and add
 * `external_ids`, the upper-cased `meta.external_id`. Timestamps are ISO 8601 with Z.
 */
export function galaxyClusterOut(c: GalaxyCluster) {
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
    meta: c.meta,
    related: c.related,
  };
}

/** Lists answer `clusters: []` as the peer does without `include_clusters`; the item route carries them all. */
export function galaxyOut(g: Galaxy | GalaxyWithClusters) {
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
