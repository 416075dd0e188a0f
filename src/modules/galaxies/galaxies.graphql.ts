import { builder, caller } from "../../graphql/builder.ts";
import { cost } from "../../graphql/cost-limits.ts";
import type { Galaxy, GalaxyCluster } from "../../generated/prisma/client.ts";
import { errors } from "../../platform/errors.ts";
import { DOC } from "../../graphql/docs.ts";
import { PAGE_DOC, type FieldBuilderOf, type ObjectRefOf } from "../../graphql/page.ts";
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

const P2_SIZE = PAGE_DOC.size(P2_DEFAULT_SIZE, 1000);
const CLUSTER_FILTER = "Part of the value, tag name or external id, case-insensitive (at most 255 characters)";

export const GalaxyClusterType = builder.objectRef<GalaxyCluster>("GalaxyCluster").implement({
  description: "A galaxy cluster: one threat actor, technique, tool, ... of a galaxy, attached as a tag",
  fields: (t) => ({
    id: t.exposeInt("id", { description: "Numeric id of the cluster" }),
    uuid: t.exposeString("uuid", { description: "The cluster's UUID (the MISP galaxy's)" }),
    galaxyId: t.exposeInt("galaxyId", { description: "Numeric id of its galaxy (REST galaxy_id)" }),
    collectionUuid: t.exposeString("collectionUuid", { nullable: true, description: "UUID of the cluster collection it came from (REST collection_uuid)" }),
    type: t.exposeString("type", { description: "Its galaxy's type (for example mitre-attack-pattern, threat-actor)" }),
    value: t.exposeString("value", { description: "The cluster's name (for example APT28)" }),
    tagName: t.exposeString("tagName", { description: 'The tag that attaches it: misp-galaxy:<galaxy type>="<value>" (REST tag_name)' }),
    description: t.exposeString("description", { description: "What it is" }),
    source: t.exposeString("source", { description: "Where the cluster collection comes from" }),
    authors: t.exposeStringList("authors", { description: "The cluster collection's authors" }),
    version: t.exposeString("version", { description: "The cluster collection's version" }),
    externalIds: t.exposeStringList("externalIds", { description: "The cluster's meta.external_id upper-cased: ATT&CK technique codes (REST external_ids)" }),
    meta: t.expose("meta", { type: "JSON", description: "MISP's meta object of the cluster (synonyms, refs, country, ...): JSON because each galaxy has its own keys" }),
    related: t.expose("related", { type: "JSON", description: "MISP's related list ({dest-uuid, type, tags}), as the galaxy publishes it: JSON to keep MISP's own shape" }),
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

export const GalaxyType = builder.objectRef<Galaxy>("Galaxy").implement({
  description: "A MISP galaxy: a collection of clusters (threat actors, ATT&CK techniques, ...) that can be attached as tags once enabled",
  fields: (t) => ({
    id: t.exposeInt("id", { description: "Numeric id of the galaxy" }),
    uuid: t.exposeString("uuid", { description: "The galaxy's UUID (MISP's)" }),
    name: t.exposeString("name", { description: "The galaxy's name" }),
    type: t.exposeString("type", { description: "The galaxy's type, the middle of its clusters' tags (for example mitre-attack-pattern)" }),
    description: t.exposeString("description", { description: "What it holds" }),
    version: t.exposeString("version", { description: "The galaxy's version" }),
    icon: t.exposeString("icon", { description: "Font Awesome icon name" }),
    namespace: t.exposeString("namespace", { description: "The galaxy's namespace (for example mitre-attack, misp)" }),
    killChainOrder: t.expose("killChainOrder", {
      type: "JSON",
      nullable: true,
      description: "MISP's kill chain order, an object of kill chain name to ordered phases; null if none: JSON to keep MISP's own shape (REST kill_chain_order)",
    }),
    enabled: t.exposeBoolean("enabled", { description: "Enabled: its clusters' tags can be attached" }),
    localOnly: t.exposeBoolean("localOnly", { description: "Its tags are only attached locally (REST local_only)" }),
    default: t.exposeBoolean("default", { description: "A default galaxy, enabled at import" }),
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
  description: "One page of galaxies, with the filter asked for",
  fields: p2PageFields(GalaxyType),
});

const AttackPatternType = builder.objectRef<AttackPattern>("AttackPattern").implement({
  description: "A MITRE ATT&CK technique (a cluster of the mitre-attack-pattern galaxy)",
  fields: (t) => ({
    uuid: t.exposeString("uuid", { description: "The cluster's UUID" }),
    value: t.exposeString("value", { description: "The technique's name with its code (for example Phishing - T1566)" }),
    description: t.exposeString("description", { description: "What the technique is" }),
    externalId: t.exposeString("external_id", { nullable: true, description: "The ATT&CK code (for example T1566); null if none (REST external_id)" }),
  }),
});

const GalaxyUpdateResultType = builder.objectRef<GalaxyUpdateResult>("GalaxyUpdateResult").implement({
  description: "What a galaxy import did",
  fields: (t) => ({
    galaxies: t.exposeInt("galaxies", { description: "Galaxies imported or refreshed" }),
    clustersCreated: t.exposeInt("clusters_created", { description: "Clusters new (REST clusters_created)" }),
    clustersUpdated: t.exposeInt("clusters_updated", { description: "Clusters changed (REST clusters_updated)" }),
    clustersUnchanged: t.exposeInt("clusters_unchanged", { description: "Clusters already as published (REST clusters_unchanged)" }),
    tookMs: t.exposeInt("took_ms", { description: "How long it took, in milliseconds (REST took_ms)" }),
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
    args: { id: t.arg.int({ description: GALAXY_KEY.id }), uuid: t.arg.string({ description: GALAXY_KEY.uuid }) },
    resolve: (_r, a, ctx) => ctx.services.galaxies.get(caller(ctx), galaxyKey(a), { clusters: false }),
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
    args: { filter: t.arg.string({ description: "Part of the name or code, case-insensitive (at most 255 characters)" }) },
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
    args: {
      id: t.arg.int({ required: true, description: "Numeric id of the galaxy" }),
      enabled: t.arg.boolean({ required: true, description: "True enables, false disables" }),
      localOnly: t.arg.boolean({ description: "Its tags are only attached locally (REST local_only)" }),
      default: t.arg.boolean({ description: "Make it a default galaxy" }),
    },
    resolve: (_r, a, ctx) =>
      ctx.services.galaxies.setEnabled(caller(ctx), a.id, { enabled: a.enabled, localOnly: a.localOnly ?? undefined, default: a.default ?? undefined }),
  }),
}));
