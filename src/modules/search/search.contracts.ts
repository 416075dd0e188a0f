import { z } from "zod";
import { timeBound } from "./explore-export-input.ts";

/**
 * The input contracts of Explore's histogram and bulk lookup, in the service's vocabulary: the
 * service checks every caller's input with them (GraphQL passes its arguments through them).
 */
export const EXPLORE_INDICES = ["events", "attributes"] as const;

export const searchHistogramContract = z
  .object({
    index: z.enum(EXPLORE_INDICES).describe("The index whose matches are counted"),
    query: z.string().describe("A Lucene query, as the searches take it"),
    from: timeBound(false).optional().describe("Lower bound of @timestamp, inclusive (epoch seconds, YYYY-MM-DD or ISO 8601); omitted: the earliest match"),
    to: timeBound(true).optional().describe("Upper bound of @timestamp, inclusive; omitted: now"),
  })
  .strict()
  .refine((q) => !q.from || !q.to || q.from.getTime() <= q.to.getTime(), { message: "from must not be after to", path: ["from"] });

export type SearchHistogramInput = z.output<typeof searchHistogramContract>;

export const MAX_LOOKUP_VALUES = 1_000;
export const MAX_LOOKUP_VALUE_LENGTH = 1_024;

export const indicatorLookupContract = z
  .object({
    values: z
      .array(
        z
          .string()
          .max(MAX_LOOKUP_VALUE_LENGTH)
          .refine((s) => !s.includes("\0"), "must not contain NUL bytes")
          .describe(`An indicator, defanged or not (at most ${MAX_LOOKUP_VALUE_LENGTH} characters)`),
      )
      .max(MAX_LOOKUP_VALUES)
      .describe(`The indicators to look up, at most ${MAX_LOOKUP_VALUES}`),
  })
  .strict();

export type IndicatorLookupInput = z.output<typeof indicatorLookupContract>;
