import { queryFromInfo } from "@pothos/plugin-prisma";
import { builder, caller } from "../../graphql/builder.ts";
import { cost } from "../../graphql/cost-limits.ts";
import { contractInput } from "../../graphql/inputs.ts";
import type { Taxonomy } from "../../generated/prisma/client.ts";
import { errors } from "../../platform/errors.ts";
import { DOC } from "../../graphql/docs.ts";
import { PAGE_DOC } from "../../graphql/page.ts";
import { TAXONOMY_DOC as T, TAXONOMY_ENTRY_DOC as E, TAXONOMY_PREDICATE_DOC as P, TAXONOMY_TYPES_DOC, TAXONOMY_UPDATE_DOC as U } from "./taxonomies.docs.ts";
import { P2_DEFAULT_SIZE, P2_MAX_SIZE, taxonomyFlagsContract, taxonomyListContract } from "./taxonomies.contracts.ts";
import type { TaxonomyCounted, TaxonomyPage, TaxonomyUpdateResult } from "./taxonomies.service.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const taxonomyKey = (a: { id?: number | null; uuid?: string | null }): number | string => {
  if (a.id != null) return a.id;
  if (a.uuid != null && UUID.test(a.uuid)) return a.uuid.toLowerCase();
  throw errors.invalidField(["args"], "Give id or a valid uuid");
};
const rest = (doc: string, name: string) => `${doc} (REST ${name})`;
const BY_VALUE = [{ value: "asc" as const }, { id: "asc" as const }];

export const TaxonomyEntryType = builder.prismaObject("TaxonomyEntry", {
  description: TAXONOMY_TYPES_DOC.TaxonomyEntry,
  fields: (t) => ({
    id: t.exposeInt("id", { description: E.id }),
    uuid: t.exposeString("uuid", { nullable: true, description: E.uuid }),
    taxonomyPredicateId: t.exposeInt("taxonomyPredicateId", { description: rest(E.taxonomyPredicateId, "taxonomy_predicate_id") }),
    value: t.exposeString("value", { description: E.value }),
    expanded: t.exposeString("expanded", { nullable: true, description: E.expanded }),
    description: t.exposeString("description", { nullable: true, description: E.description }),
    colour: t.exposeString("colour", { nullable: true, description: E.colour }),
    numericalValue: t.exposeInt("numericalValue", { nullable: true, description: rest(E.numericalValue, "numerical_value") }),
    tagName: t.exposeString("tagName", { description: rest(E.tagName, "tag_name") }),
  }),
});

export const TaxonomyPredicateType = builder.prismaObject("TaxonomyPredicate", {
  description: TAXONOMY_TYPES_DOC.TaxonomyPredicate,
  fields: (t) => ({
    id: t.exposeInt("id", { description: P.id }),
    uuid: t.exposeString("uuid", { nullable: true, description: P.uuid }),
    taxonomyId: t.exposeInt("taxonomyId", { description: rest(P.taxonomyId, "taxonomy_id") }),
    value: t.exposeString("value", { description: P.value }),
    expanded: t.exposeString("expanded", { nullable: true, description: P.expanded }),
    description: t.exposeString("description", { nullable: true, description: P.description }),
    colour: t.exposeString("colour", { nullable: true, description: P.colour }),
    numericalValue: t.exposeInt("numericalValue", { nullable: true, description: rest(P.numericalValue, "numerical_value") }),
    exclusive: t.exposeBoolean("exclusive", { description: P.exclusive }),
    tagName: t.exposeString("tagName", { description: rest(P.tagName, "tag_name") }),
    entries: t.relation("entries", { description: P.entries, query: { orderBy: BY_VALUE } }),
    entryCount: t.relationCount("entries", { description: "How many entries it has" }),
  }),
});

export const TaxonomyType = builder.prismaObject("Taxonomy", {
  description: TAXONOMY_TYPES_DOC.Taxonomy,
  fields: (t) => ({
    id: t.exposeInt("id", { description: T.id }),
    uuid: t.exposeString("uuid", { nullable: true, description: T.uuid }),
    namespace: t.exposeString("namespace", { description: T.namespace }),
    description: t.exposeString("description", { description: T.description }),
    expanded: t.exposeString("expanded", { nullable: true, description: T.expanded }),
    version: t.exposeInt("version", { description: T.version }),
    enabled: t.exposeBoolean("enabled", { description: T.enabled }),
    exclusive: t.exposeBoolean("exclusive", { description: T.exclusive }),
    required: t.exposeBoolean("required", { description: T.required }),
    highlighted: t.exposeBoolean("highlighted", { description: T.highlighted }),
    createdAt: t.expose("createdAt", { type: "DateTime", description: DOC.createdAt }),
    updatedAt: t.expose("updatedAt", { type: "DateTime", description: DOC.updatedAt }),
    predicates: t.relation("predicates", { description: "Its predicates, by value", query: { orderBy: BY_VALUE } }),
    predicateCount: t.relationCount("predicates", { description: rest(T.predicateCount, "predicate_count") }),
  }),
});

const TaxonomyPageType = builder.objectRef<TaxonomyPage<TaxonomyCounted>>("TaxonomyPage").implement({
  description: "One page of taxonomies, with the filters asked for",
  fields: (t) => ({
    items: t.field({ type: [TaxonomyType], description: PAGE_DOC.items, resolve: (p) => p.items as Taxonomy[] }),
    total: t.exposeInt("total", { description: PAGE_DOC.total }),
    page: t.exposeInt("page", { description: PAGE_DOC.pageField }),
    size: t.exposeInt("size", { description: PAGE_DOC.sizeField }),
    pages: t.exposeInt("pages", { description: PAGE_DOC.pages }),
    filter: t.string({ nullable: true, description: "The filter asked for; null if none", resolve: (p) => p.query.filter }),
    enabled: t.boolean({ nullable: true, description: "The enabled filter asked for; null if none", resolve: (p) => p.query.enabled }),
  }),
});

const TaxonomyUpdateResultType = builder.objectRef<TaxonomyUpdateResult>("TaxonomyUpdateResult").implement({
  description: TAXONOMY_TYPES_DOC.TaxonomyUpdateResult,
  fields: (t) => ({
    taxonomies: t.exposeInt("taxonomies", { description: U.taxonomies }),
    taxonomiesCreated: t.exposeInt("taxonomies_created", { description: rest(U.taxonomies_created, "taxonomies_created") }),
    predicates: t.exposeInt("predicates", { description: U.predicates }),
    entries: t.exposeInt("entries", { description: U.entries }),
    tookMs: t.exposeInt("took_ms", { description: rest(U.took_ms, "took_ms") }),
  }),
});

builder.queryFields((t) => ({
  taxonomies: t.field({
    extensions: cost.page("size"),
    type: TaxonomyPageType,
    description: "Taxonomies (GET /taxonomies/): filter is a substring of the namespace; enabled filters on the flag",
    args: {
      page: t.arg.int({ defaultValue: 1, description: PAGE_DOC.page }),
      size: t.arg.int({ defaultValue: P2_DEFAULT_SIZE, description: PAGE_DOC.size(P2_DEFAULT_SIZE, P2_MAX_SIZE) }),
      filter: t.arg.string({ description: "Part of the namespace, case-insensitive (at most 255 characters)" }),
      enabled: t.arg.boolean({ description: "Only enabled (true) or disabled (false) taxonomies; omitted: both" }),
    },
    resolve: (_r, a, ctx, info) =>
      ctx.services.taxonomies.list(caller(ctx), contractInput(taxonomyListContract, a), queryFromInfo({ context: ctx, info, path: ["items"] })),
  }),
  taxonomy: t.prismaField({
    type: "Taxonomy",
    description: "One taxonomy by id or uuid (GET /taxonomies/{id}), with its predicates and entries",
    args: {
      id: t.arg.int({ description: "Numeric id of the taxonomy (give id or uuid)" }),
      uuid: t.arg.string({ description: "UUID of the taxonomy (give id or uuid)" }),
    },
    resolve: (query, _r, a, ctx) => ctx.services.taxonomies.getSelected(caller(ctx), taxonomyKey(a), query),
  }),
}));

builder.mutationFields((t) => ({
  updateTaxonomies: t.field({
    type: TaxonomyUpdateResultType,
    description: "Import or refresh every taxonomy of TAXONOMIES_SOURCE (POST /taxonomies/update)",
    resolve: (_r, _a, ctx) => ctx.services.taxonomies.update(caller(ctx)),
  }),
  setTaxonomyFlags: t.prismaField({
    type: "Taxonomy",
    description: "Enable (creates its tags, enforces its exclusivity) or disable (hides its tags) a taxonomy, mark it required or highlighted (PATCH /taxonomies/{id}); omitted flags are unchanged",
    args: {
      id: t.arg.int({ required: true, description: "Numeric id of the taxonomy" }),
      enabled: t.arg.boolean({ description: "True enables, false disables" }),
      required: t.arg.boolean({ description: T.required }),
      highlighted: t.arg.boolean({ description: T.highlighted }),
    },
    resolve: async (query, _r, { id, ...flags }, ctx) => {
      const p = caller(ctx);
      await ctx.services.taxonomies.setFlags(p, id, contractInput(taxonomyFlagsContract, flags));
      return ctx.services.taxonomies.getSelected(p, id, query);
    },
  }),
}));
