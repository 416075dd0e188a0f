import { z } from "zod";
import type { TaxonomyEntry, TaxonomyPredicate } from "../../src/generated/prisma/client.ts";
import type { TaxonomyCounted, TaxonomyPage, TaxonomyUpdateResult, TaxonomyWithPredicates } from "../../src/modules/taxonomies/index.ts";
import { TAXONOMY_DOC as T, TAXONOMY_ENTRY_DOC as E, TAXONOMY_PREDICATE_DOC as P, TAXONOMY_TYPES_DOC, TAXONOMY_UPDATE_DOC as U } from "../../src/modules/taxonomies/index.ts";
import { named, pageObject, timestamp } from "../contract.ts";

export const TaxonomyEntrySchema = named(
  "TaxonomyEntry",
  z.object({
    id: z.int().describe(E.id),
    uuid: z.guid().nullable().describe(E.uuid),
    taxonomy_predicate_id: z.int().describe(E.taxonomyPredicateId),
    value: z.string().describe(E.value),
    expanded: z.string().nullable().describe(E.expanded),
    description: z.string().nullable().describe(E.description),
    colour: z.string().nullable().describe(E.colour),
    numerical_value: z.int().nullable().describe(E.numericalValue),
    tag_name: z.string().describe(E.tagName),
  }),
  TAXONOMY_TYPES_DOC.TaxonomyEntry,
);

export const TaxonomyPredicateSchema = named(
  "TaxonomyPredicate",
  z.object({
    id: z.int().describe(P.id),
    uuid: z.guid().nullable().describe(P.uuid),
    taxonomy_id: z.int().describe(P.taxonomyId),
    value: z.string().describe(P.value),
    expanded: z.string().nullable().describe(P.expanded),
    description: z.string().nullable().describe(P.description),
    colour: z.string().nullable().describe(P.colour),
    numerical_value: z.int().nullable().describe(P.numericalValue),
    exclusive: z.boolean().describe(P.exclusive),
    tag_name: z.string().describe(P.tagName),
    entries: z.array(TaxonomyEntrySchema).describe(P.entries),
  }),
  TAXONOMY_TYPES_DOC.TaxonomyPredicate,
);

export const TaxonomySchema = named(
  "Taxonomy",
  z.object({
    id: z.int().describe(T.id),
    uuid: z.guid().nullable().describe(T.uuid),
    namespace: z.string().describe(T.namespace),
    description: z.string().describe(T.description),
    expanded: z.string().nullable().describe(T.expanded),
    version: z.int().describe(T.version),
    enabled: z.boolean().describe(T.enabled),
    exclusive: z.boolean().describe(T.exclusive),
    required: z.boolean().describe(T.required),
    highlighted: z.boolean().describe(T.highlighted),
    predicate_count: z.int().min(0).describe(T.predicateCount),
    entry_count: z.int().min(0).describe(T.entryCount),
    created: timestamp,
    modified: timestamp,
    predicates: z.array(TaxonomyPredicateSchema).describe("Its predicates with their entries on GET /taxonomies/{id}; empty in lists"),
  }),
  TAXONOMY_TYPES_DOC.Taxonomy,
);

export function taxonomyEntryOut(e: TaxonomyEntry): z.output<typeof TaxonomyEntrySchema> {
  return {
    id: e.id,
    uuid: e.uuid,
    taxonomy_predicate_id: e.taxonomyPredicateId,
    value: e.value,
    expanded: e.expanded,
    description: e.description,
    colour: e.colour,
    numerical_value: e.numericalValue,
    tag_name: e.tagName,
  };
}

export function taxonomyPredicateOut(p: TaxonomyPredicate & { entries: TaxonomyEntry[] }): z.output<typeof TaxonomyPredicateSchema> {
  return {
    id: p.id,
    uuid: p.uuid,
    taxonomy_id: p.taxonomyId,
    value: p.value,
    expanded: p.expanded,
    description: p.description,
    colour: p.colour,
    numerical_value: p.numericalValue,
    exclusive: p.exclusive,
    tag_name: p.tagName,
    entries: p.entries.map(taxonomyEntryOut),
  };
}

/** Lists answer `predicates: []` with their counts; the item route carries every predicate and entry. */
export function taxonomyOut(t: TaxonomyCounted | TaxonomyWithPredicates): z.output<typeof TaxonomySchema> {
  const full = "predicates" in t;
  return {
    id: t.id,
    uuid: t.uuid,
    namespace: t.namespace,
    description: t.description,
    expanded: t.expanded,
    version: t.version,
    enabled: t.enabled,
    exclusive: t.exclusive,
    required: t.required,
    highlighted: t.highlighted,
    predicate_count: full ? t.predicates.length : t.predicateCount,
    entry_count: full ? t.predicates.reduce((n, p) => n + p.entries.length, 0) : t.entryCount,
    created: t.createdAt.toISOString(),
    modified: t.updatedAt.toISOString(),
    predicates: full ? t.predicates.map(taxonomyPredicateOut) : [],
  };
}

/** The peer's P2 envelope for taxonomies: P1's fields and `query: {enabled, filter}`. */
export const TaxonomyPageSchema = named(
  "TaxonomyPage",
  pageObject(TaxonomySchema).extend({
    query: z.object({ enabled: z.boolean().nullable(), filter: z.string().nullable() }).describe("The filters applied; null when not given"),
  }),
);

export function taxonomyPageOut(p: TaxonomyPage<TaxonomyCounted>): z.output<typeof TaxonomyPageSchema> {
  return { items: p.items.map(taxonomyOut), total: p.total, page: p.page, size: p.size, pages: p.pages, query: p.query };
}

export const TaxonomyUpdateSchema = named(
  "TaxonomyUpdate",
  z.object({
    taxonomies: z.int().min(0).describe(U.taxonomies),
    taxonomies_created: z.int().min(0).describe(U.taxonomies_created),
    predicates: z.int().min(0).describe(U.predicates),
    entries: z.int().min(0).describe(U.entries),
    took_ms: z.number().min(0).describe(U.took_ms),
  }),
  TAXONOMY_TYPES_DOC.TaxonomyUpdateResult,
);

export const taxonomyUpdateOut = (r: TaxonomyUpdateResult): z.output<typeof TaxonomyUpdateSchema> => ({ ...r });
