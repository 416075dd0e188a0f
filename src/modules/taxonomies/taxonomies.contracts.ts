import { z } from "zod";

/**
 * The input contracts of the taxonomies, in the service's vocabulary: the service checks every
 * caller's input with them (REST derives its query string and body, GraphQL its arguments).
 */
export const P2_MAX_SIZE = 1000;
export const P2_DEFAULT_SIZE = 20;

export const taxonomyListContract = z
  .object({
    page: z.number().int().min(1).default(1).describe("Page number, from 1"),
    size: z.number().int().min(1).max(P2_MAX_SIZE).default(P2_DEFAULT_SIZE).describe(`Items per page, 1 to ${P2_MAX_SIZE} (default ${P2_DEFAULT_SIZE})`),
    filter: z
      .string()
      .max(255)
      .refine((s) => !s.includes("\0"), "must not contain NUL bytes")
      .optional()
      .describe("Part of the namespace, case-insensitive (at most 255 characters)"),
    enabled: z.boolean().optional().describe("Only enabled (true) or disabled (false) taxonomies; omitted: both"),
  })
  .strict();

/** `PATCH /taxonomies/{id}` and GraphQL setTaxonomyFlags: only the keys given change. */
export const taxonomyFlagsContract = z
  .object({
    enabled: z.boolean().optional().describe("True enables the taxonomy (one tag per predicate or entry, exclusivity enforced), false disables it (its tags are hidden); omitted: unchanged"),
    required: z.boolean().optional().describe("Marks the taxonomy as required on this instance (stored and shown; not enforced yet); omitted: unchanged"),
    highlighted: z.boolean().optional().describe("Highlight its tags in the interface; omitted: unchanged"),
  })
  .strict();

/** The taxonomies of tags by name (MISP's getTaxonomyForTag for a whole answer at once). */
export const MAX_TAGS_PER_TAXONOMY_LOOKUP = 100_000;
export const taxonomiesOfTagsContract = z
  .object({
    names: z
      .array(z.string().max(1024).refine((s) => !s.includes("\0"), "must not contain NUL bytes"))
      .max(MAX_TAGS_PER_TAXONOMY_LOOKUP)
      .describe("Tag names; those that are not machine tags are left out"),
  })
  .strict();

export type TaxonomyListQuery = z.output<typeof taxonomyListContract>;
export type TaxonomyFlags = z.output<typeof taxonomyFlagsContract>;
