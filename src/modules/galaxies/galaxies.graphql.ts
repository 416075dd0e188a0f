import { queryFromInfo } from "@pothos/plugin-prisma";
import { builder, caller } from "../../graphql/builder.ts";
import { cost } from "../../graphql/cost-limits.ts";
import { contractInput } from "../../graphql/inputs.ts";
import type { Galaxy, GalaxyCluster } from "../../generated/prisma/client.ts";
import { errors } from "../../platform/errors.ts";
import { pageOf } from "../../platform/pagination.ts";
import { DOC } from "../../graphql/docs.ts";
import { PAGE_DOC, type FieldBuilderOf, type ObjectRefOf } from "../../graphql/page.ts";
import { ATTACK_PATTERN_DOC as AP, GALAXY_CLUSTER_DOC as GC, GALAXY_DOC as G, GALAXY_TYPES_DOC, GALAXY_UPDATE_DOC as GU } from "./galaxies.docs.ts";
import { attackPatternQueryContract, clusterListContract, galaxyFlagsContract, galaxyListContract } from "./galaxies.contracts.ts";
import { CLUSTER_ORDER, P2_DEFAULT_SIZE, type AttackPattern, type GalaxyUpdateResult, type P2Page } from "./galaxies.service.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const galaxyKey = (a: { id?: number | null; uuid?: string | null }): number | string => {
  if (a.id != null) return a.id;
  if (a.uuid != null && UUID.test(a.uuid)) return a.uuid.toLowerCase();
  throw errors.invalidField(["args"], "Give id or a valid uuid");
};

const rest = (doc: string, name: string) => `${doc} (REST ${name})`;
const P2_SIZE = PAGE_DOC.size(P2_DEFAULT_SIZE, 1000);
const CLUSTER_FILTER = "Part of the value, tag name or external id, case-insensitive (at most 255 characters)";

export const GalaxyClusterType = builder.prismaObject("GalaxyCluster", {
  description: GALAXY_TYPES_DOC.GalaxyCluster,
  fields: (t) => ({
    id: t.exposeInt("id", { description: GC.id }),
    uuid: t.exposeString("uuid", { description: GC.uuid }),
    galaxyId: t.exposeInt("galaxyId", { description: rest(GC.galaxyId, "galaxy_id") }),
    collectionUuid: t.exposeString("collectionUuid", { nullable: true, description: rest(GC.collectionUuid, "collection_uuid") }),
    type: t.exposeString("type", { description: GC.type }),
    value: t.exposeString("value", { description: GC.value }),
    tagName: t.exposeString("tagName", { description: rest(GC.tagName, "tag_name") }),
    description: t.exposeString("description", { description: GC.description }),
    source: t.exposeString("source", { description: GC.source }),
    authors: t.exposeStringList("authors", { description: GC.authors }),
    version: t.exposeString("version", { description: GC.version }),
    externalIds: t.exposeStringList("externalIds", { description: rest(GC.externalIds, "external_ids") }),
    meta: t.expose("meta", { type: "JSON", description: GC.meta }),
    related: t.expose("related", { type: "JSON", description: `${GC.related}: JSON to keep MISP's own shape` }),
  }),
});

/** A P2 page (the galaxies' paging) also echoes its filter. */
function p2PageFields<T>(item: ObjectRefOf<T>) {
  return (t: FieldBuilderOf<P2Page<T>>) => ({
    items: t.field({ type: [item], description: PAGE_DOC.items, resolve: (p) => p.items }),
    total: t.exposeInt("total", { description: PAGE_DOC.total }),
    page: t.exposeInt("page", { description: PAGE_DOC.pageField }),
    size: t.exposeInt("size", { description: PAGE_DOC.sizeField }),
    pages: t.exposeInt("pages", { description: PAGE_DOC.pages }),
    filter: t.string({ nullable: true, description: "The filter asked for; null if none", resolve: (p) => p.query.filter ?? null }),
  });
}

const GalaxyClusterPage = builder.objectRef<P2Page<GalaxyCluster>>("GalaxyClusterPage").implement({
  description: "One page of a galaxy's clusters, with the filter asked for",
  fields: p2PageFields(GalaxyClusterType),
});

export const GalaxyType = builder.prismaObject("Galaxy", {
  description: GALAXY_TYPES_DOC.Galaxy,
  fields: (t) => ({
    id: t.exposeInt("id", { description: G.id }),
    uuid: t.exposeString("uuid", { description: G.uuid }),
    name: t.exposeString("name", { description: G.name }),
    type: t.exposeString("type", { description: G.type }),
    description: t.exposeString("description", { description: G.description }),
    version: t.exposeString("version", { description: G.version }),
    icon: t.exposeString("icon", { description: G.icon }),
    namespace: t.exposeString("namespace", { description: G.namespace }),
    killChainOrder: t.expose("killChainOrder", {
      type: "JSON",
      nullable: true,
      description: rest(`${G.killChainOrder}: JSON to keep MISP's own shape`, "kill_chain_order"),
    }),
    enabled: t.exposeBoolean("enabled", { description: G.enabled }),
    localOnly: t.exposeBoolean("localOnly", { description: rest(G.localOnly, "local_only") }),
    default: t.exposeBoolean("default", { description: G.default }),
    createdAt: t.expose("createdAt", { type: "DateTime", description: DOC.createdAt }),
    updatedAt: t.expose("updatedAt", { type: "DateTime", description: DOC.updatedAt }),
    clusters: t.field({
      extensions: cost.page("size"),
      type: GalaxyClusterPage,
      description: "Its clusters, page by page",
      args: {
        page: t.arg.int({ defaultValue: 1, description: PAGE_DOC.page }),
        size: t.arg.int({ defaultValue: P2_DEFAULT_SIZE, description: P2_SIZE }),
        filter: t.arg.string({ description: CLUSTER_FILTER }),
      },
      // Without a filter, a page of galaxies reads each one's cluster page and count in its own
      // statement (a LATERAL join per galaxy); a filter also matches inside the external ids,
      // which only SQL can say, so the service reads that galaxy's page.
      select: (a, ctx, nestedSelection) => {
        if (a.filter) return {};
        const q = contractInput(clusterListContract, a);
        const items: unknown = nestedSelection(true, ["items"]);
        return {
          clusters: { ...(typeof items === "object" ? items : {}), orderBy: CLUSTER_ORDER, take: q.size, skip: (q.page - 1) * q.size },
          _count: { select: { clusters: true } },
        };
      },
      resolve: (g, a, ctx, info) => {
        const q = contractInput(clusterListContract, a);
        const loaded = g as Galaxy & { clusters?: GalaxyCluster[]; _count?: { clusters: number } };
        if (!q.filter && loaded.clusters && loaded._count) return { ...pageOf(loaded.clusters, loaded._count.clusters, q), query: { filter: null } };
        return ctx.services.galaxies.clusters(caller(ctx), g.id, q, queryFromInfo({ context: ctx, info, path: ["items"] }));
      },
    }),
  }),
});

const GalaxyPage = builder.objectRef<P2Page<Galaxy>>("GalaxyPage").implement({
  description: "One page of galaxies, with the filter asked for",
  fields: p2PageFields(GalaxyType),
});

const AttackPatternType = builder.objectRef<AttackPattern>("AttackPattern").implement({
  description: GALAXY_TYPES_DOC.AttackPattern,
  fields: (t) => ({
    uuid: t.exposeString("uuid", { description: AP.uuid }),
    value: t.exposeString("value", { description: AP.value }),
    description: t.exposeString("description", { description: AP.description }),
    externalId: t.exposeString("external_id", { nullable: true, description: rest(AP.external_id, "external_id") }),
  }),
});

const GalaxyUpdateResultType = builder.objectRef<GalaxyUpdateResult>("GalaxyUpdateResult").implement({
  description: GALAXY_TYPES_DOC.GalaxyUpdateResult,
  fields: (t) => ({
    galaxies: t.exposeInt("galaxies", { description: GU.galaxies }),
    clustersCreated: t.exposeInt("clusters_created", { description: rest(GU.clusters_created, "clusters_created") }),
    clustersUpdated: t.exposeInt("clusters_updated", { description: rest(GU.clusters_updated, "clusters_updated") }),
    clustersUnchanged: t.exposeInt("clusters_unchanged", { description: rest(GU.clusters_unchanged, "clusters_unchanged") }),
    tookMs: t.exposeInt("took_ms", { description: rest(GU.took_ms, "took_ms") }),
  }),
});

const GALAXY_KEY = { id: "Numeric id of the galaxy (give id or uuid)", uuid: "UUID of the galaxy (give id or uuid)" } as const;

builder.queryFields((t) => ({
  galaxies: t.field({
    extensions: cost.page("size"),
    type: GalaxyPage,
    description: "Galaxies (GET /galaxies/): filter is a substring of the name or type",
    args: {
      page: t.arg.int({ defaultValue: 1, description: PAGE_DOC.page }),
      size: t.arg.int({ defaultValue: P2_DEFAULT_SIZE, description: P2_SIZE }),
      filter: t.arg.string({ description: "Part of the name or type, case-insensitive (at most 255 characters)" }),
      enabled: t.arg.boolean({ description: "Only enabled (true) or disabled (false) galaxies; omitted: both" }),
    },
    resolve: (_r, a, ctx, info) =>
      ctx.services.galaxies.list(caller(ctx), contractInput(galaxyListContract, a), queryFromInfo({ context: ctx, info, path: ["items"] })),
  }),
  galaxy: t.prismaField({
    type: "Galaxy",
    description: "One galaxy by id or uuid; page through its clusters with the clusters field",
    args: { id: t.arg.int({ description: GALAXY_KEY.id }), uuid: t.arg.string({ description: GALAXY_KEY.uuid }) },
    resolve: (query, _r, a, ctx) => ctx.services.galaxies.getSelected(caller(ctx), galaxyKey(a), query),
  }),
  galaxyClusters: t.field({
    extensions: cost.page("size"),
    type: GalaxyClusterPage,
    description: "A galaxy's clusters (GET /galaxies/{id}/clusters): filter matches value, tag name or external id",
    args: {
      galaxyId: t.arg.int({ description: GALAXY_KEY.id }),
      galaxyUuid: t.arg.string({ description: GALAXY_KEY.uuid }),
      page: t.arg.int({ defaultValue: 1, description: PAGE_DOC.page }),
      size: t.arg.int({ defaultValue: P2_DEFAULT_SIZE, description: P2_SIZE }),
      filter: t.arg.string({ description: CLUSTER_FILTER }),
    },
    resolve: (_r, a, ctx, info) =>
      ctx.services.galaxies.clusters(
        caller(ctx),
        galaxyKey({ id: a.galaxyId, uuid: a.galaxyUuid }),
        contractInput(clusterListContract, { page: a.page, size: a.size, filter: a.filter }),
        queryFromInfo({ context: ctx, info, path: ["items"] }),
      ),
  }),
  mitreAttackPatterns: t.field({
    extensions: cost.list(1000),
    type: [AttackPatternType],
    description: "ATT&CK techniques (GET /galaxies/mitre-attack-patterns), at most 1000, by external id",
    args: { filter: t.arg.string({ description: "Part of the name or code, case-insensitive (at most 255 characters)" }) },
    resolve: (_r, a, ctx) => ctx.services.galaxies.attackPatterns(caller(ctx), contractInput(attackPatternQueryContract, a)),
  }),
}));

builder.mutationFields((t) => ({
  updateGalaxies: t.field({
    type: GalaxyUpdateResultType,
    description: "Import or refresh every galaxy of GALAXY_SOURCE (POST /galaxies/update)",
    resolve: (_r, _a, ctx) => ctx.services.galaxies.update(caller(ctx)),
  }),
  setGalaxyEnabled: t.prismaField({
    type: "Galaxy",
    description: "Enable (creates one tag per cluster) or disable (hides them) a galaxy (PATCH /galaxies/{id})",
    args: {
      id: t.arg.int({ required: true, description: "Numeric id of the galaxy" }),
      enabled: t.arg.boolean({ required: true, description: "True enables, false disables" }),
      localOnly: t.arg.boolean({ description: rest(G.localOnly, "local_only") }),
      default: t.arg.boolean({ description: "Make it a default galaxy" }),
    },
    resolve: (query, _r, { id, ...flags }, ctx) => ctx.services.galaxies.setEnabled(caller(ctx), id, contractInput(galaxyFlagsContract, flags), query),
  }),
}));
