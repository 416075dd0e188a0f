import { z } from "zod";

/** The input contract of adding a correlation exclusion, in the service's vocabulary (REST derives its body, GraphQL checks its arguments). */
export const MAX_EXCLUSION_LENGTH = 1024;
const noNul = (s: string) => !s.includes("\0");

export const exclusionCreateContract = z
  .object({
    value: z
      .string()
      .min(1, `must be 1 to ${MAX_EXCLUSION_LENGTH} characters`)
      .max(MAX_EXCLUSION_LENGTH, `must be 1 to ${MAX_EXCLUSION_LENGTH} characters`)
      .refine(noNul, "must not contain NUL bytes")
      .refine((v) => v === "" || !/^%*$/.test(v), "an exclusion of only wildcards would stop all correlation")
      .describe(`A value that never correlates, 1 to ${MAX_EXCLUSION_LENGTH} characters; % matches any run of characters (not only wildcards)`),
    comment: z.string().max(10_000).refine(noNul, "must not contain NUL bytes").default("").describe("Why it is excluded, at most 10,000 characters"),
  })
  .strict();

export type ExclusionCreate = z.input<typeof exclusionCreateContract>;
