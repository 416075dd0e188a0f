import { builder, caller } from "../../graphql/builder.ts";
import { cost } from "../../graphql/cost-limits.ts";
import type { Galaxy, GalaxyCluster } from "../../generated/prisma/client.ts";
import { errors } from "../../platform/errors.ts";
import { P2_DEFAULT_SIZE, checkP2Page, type AttackPattern, type GalaxyUpdateResult, type P2Page } from "./galaxies.service.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const galaxyKey = (a: { id?: number | null; uuid?: string | null }): number | string => {
  if (a.id != null) return a.id;
  if (a.uuid != null && UUID.test(a.uuid)) return a.uuid.toLowerCase();
  throw errors.invalidField(["args"], "Give id or a valid uuid");
};
const checkFilter = (filter: string | null | undefined) => {
  if (filter && filter.length > 255) throw errors.invalidField(["args", "filter"], "must be at most 255 characters");
  return filter ?? undefined;
};

export const GalaxyClusterType = builder.objectRef<GalaxyCluster>("GalaxyCluster").implement({
  fields: (t) => ({
    id: t.exposeInt("id"),
    uuid: t.exposeString("uuid"),
    galaxyId: t.exposeInt("galaxyId"),
    collectionUuid: t.exposeString("collectionUuid", { nullable: true }),
    type: t.exposeString("type"),
    value: t.exposeString("value"),
    tagName: t.exposeString("tagName", { description: 'misp-galaxy:<galaxy type>="<value>"' }),
    description: t.exposeString("description"),
    source: t.exposeString("source"),
    authors: t.exposeStringList("authors"),
    version: t.exposeString("version"),
    externalIds: t.exposeStringList("externalIds", { description: "meta.external_id upper-cased (ATT&CK technique codes)" }),
    meta: t.expose("meta", { type: "JSON" }),
    related: t.expose("related", { type: "JSON" }),
  }),
});

const GalaxyClusterPage = builder.objectRef<P2Page<GalaxyCluster>>("GalaxyClusterPage").implement({
  fields: (t) => ({
    items: t.field({ type: [GalaxyClusterType], resolve: (p) => p.items }),
    total: t.exposeInt("total"),
    page: t.exposeInt("page"),
    size: t.exposeInt("size"),
    pages: t.exposeInt("pages"),
    filter: t.string({ nullable: true, resolve: (p) => p.query.filter }),
  }),
});

export const GalaxyType = builder.objectRef<Galaxy>("Galaxy").implement({
  fields: (t) => ({
    id: t.exposeInt("id"),
    uuid: t.exposeString("uuid"),
    name: t.exposeString("name"),
    type: t.exposeString("type"),
    description: t.exposeString("description"),
    version: t.exposeString("version"),
    icon: t.exposeString("icon"),
    namespace: t.exposeString("namespace"),
    killChainOrder: t.expose("killChainOrder", { type: "JSON", nullable: true }),
    enabled: t.exposeBoolean("enabled"),
    localOnly: t.exposeBoolean("localOnly"),
    default: t.exposeBoolean("default"),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime" }),
    clusters: t.field({
      extensions: cost.page("size"),
      type: GalaxyClusterPage,
      args: { page: t.arg.int({ defaultValue: 1 }), size: t.arg.int({ defaultValue: P2_DEFAULT_SIZE }), filter: t.arg.string() },
      resolve: (g, a, ctx) => {
        const page = a.page ?? 1;
        const size = a.size ?? P2_DEFAULT_SIZE;
        checkP2Page(page, size);
        return ctx.services.galaxies.clusters(caller(ctx), g.id, { page, size, filter: checkFilter(a.filter) });
      },
    }),
  }),
});

const GalaxyPage = builder.objectRef<P2Page<Galaxy>>("GalaxyPage").implement({
  fields: (t) => ({
    items: t.field({ type: [GalaxyType], resolve: (p) => p.items }),
    total: t.exposeInt("total"),
    page: t.exposeInt("page"),
    size: t.exposeInt("size"),
    pages: t.exposeInt("pages"),
    filter: t.string({ nullable: true, resolve: (p) => p.query.filter }),
  }),
});

const AttackPatternType = builder.objectRef<AttackPattern>("AttackPattern").implement({
  fields: (t) => ({
    uuid: t.exposeString("uuid"),
    value: t.exposeString("value"),
    description: t.exposeString("description"),
    externalId: t.exposeString("external_id", { nullable: true }),
  }),
});

const GalaxyUpdateResultType = builder.objectRef<GalaxyUpdateResult>("GalaxyUpdateResult").implement({
  fields: (t) => ({
    galaxies: t.exposeInt("galaxies"),
    clustersCreated: t.exposeInt("clusters_created"),
    clustersUpdated: t.exposeInt("clusters_updated"),
    clustersUnchanged: t.exposeInt("clusters_unchanged"),
    tookMs: t.exposeInt("took_ms"),
  }),
});

builder.queryFields((t) => ({
  galaxies: t.field({
    extensions: cost.page("size"),
    type: GalaxyPage,
    description: "Galaxies (GET /galaxies/): filter is a substring of the name or type",
    args: {
      page: t.arg.int({ defaultValue: 1 }),
      size: t.arg.int({ defaultValue: P2_DEFAULT_SIZE }),
      filter: t.arg.string(),
      enabled: t.arg.boolean(),
    },
    resolve: (_r, a, ctx) => {
      const page = a.page ?? 1;
      const size = a.size ?? P2_DEFAULT_SIZE;
      checkP2Page(page, size);
      return ctx.services.galaxies.list(caller(ctx), { page, size, filter: checkFilter(a.filter), enabled: a.enabled ?? undefined });
    },
  }),
  galaxy: t.field({
    type: GalaxyType,
    description: "One galaxy by id or uuid; page through its clusters with the clusters field",
    args: { id: t.arg.int(), uuid: t.arg.string() },
    resolve: (_r, a, ctx) => ctx.services.galaxies.get(caller(ctx), galaxyKey(a), { clusters: false }),
  }),
  galaxyClusters: t.field({
    extensions: cost.page("size"),
    type: GalaxyClusterPage,
    description: "A galaxy's clusters (GET /galaxies/{id}/clusters): filter matches value, tag name or external id",
    args: {
      galaxyId: t.arg.int(),
      galaxyUuid: t.arg.string(),
      page: t.arg.int({ defaultValue: 1 }),
      size: t.arg.int({ defaultValue: P2_DEFAULT_SIZE }),
      filter: t.arg.string(),
    },
    resolve: (_r, a, ctx) => {
      const page = a.page ?? 1;
      const size = a.size ?? P2_DEFAULT_SIZE;
      checkP2Page(page, size);
      return ctx.services.galaxies.clusters(caller(ctx), galaxyKey({ id: a.galaxyId, uuid: a.galaxyUuid }), {
        page,
        size,
        filter: checkFilter(a.filter),
      });
    },
  }),
  mitreAttackPatterns: t.field({
    extensions: cost.list(1000),
    type: [AttackPatternType],
    description: "ATT&CK techniques (GET /galaxies/mitre-attack-patterns), at most 1000, by external id",
    args: { filter: t.arg.string() },
    resolve: (_r, a, ctx) => ctx.services.galaxies.attackPatterns(caller(ctx), checkFilter(a.filter)),
  }),
}));

builder.mutationFields((t) => ({
  updateGalaxies: t.field({
    type: GalaxyUpdateResultType,
    description: "Import or refresh every galaxy of GALAXY_SOURCE (POST /galaxies/update)",
    resolve: (_r, _a, ctx) => ctx.services.galaxies.update(caller(ctx)),
  }),
  setGalaxyEnabled: t.field({
    type: GalaxyType,
    description: "Enable (creates one tag per cluster) or disable (hides them) a galaxy (PATCH /galaxies/{id})",
    args: { id: t.arg.int({ required: true }), enabled: t.arg.boolean({ required: true }), localOnly: t.arg.boolean(), default: t.arg.boolean() },
    resolve: (_r, a, ctx) =>
      ctx.services.galaxies.setEnabled(caller(ctx), a.id, { enabled: a.enabled, localOnly: a.localOnly ?? undefined, default: a.default ?? undefined }),
  }),
}));
