import { z } from "zod";
import { containsFilter, storedText } from "../../platform/contract-fields.ts";
import { isKnownType, MAX_VALUE_LENGTH } from "../attributes/index.ts";
import { WARNINGLIST_TYPES } from "./matchers.ts";

/**
 * The input contracts of the warninglists, in the service's vocabulary: the service checks every
 * caller's input with them (REST derives its query string and body, GraphQL its arguments).
 */
export const WARNINGLIST_PAGE_MAX = 1000;
export const WARNINGLIST_PAGE_DEFAULT = 20;
export const ENTRY_PAGE_MAX = 10_000;
export const ENTRY_PAGE_DEFAULT = 100;

export const warninglistListContract = z
  .object({
    page: z.number().int().min(1).default(1).describe("Page number, from 1"),
    size: z.number().int().min(1).max(WARNINGLIST_PAGE_MAX).default(WARNINGLIST_PAGE_DEFAULT).describe(`Items per page, 1 to ${WARNINGLIST_PAGE_MAX} (default ${WARNINGLIST_PAGE_DEFAULT})`),
    name: containsFilter("name"),
    type: z.enum(WARNINGLIST_TYPES).optional().describe("Only lists of this type: string, substring, hostname, cidr or regex"),
    enabled: z.boolean().optional().describe("Only enabled (true) or disabled (false) lists; omitted: both"),
  })
  .strict();

/** `GET /warninglists/{id}`: one page of its entries, in the file's order (size 0: the count only). */
export const warninglistEntriesContract = z
  .object({
    page: z.number().int().min(1).default(1).describe("Page of entries, from 1"),
    size: z.number().int().min(0).max(ENTRY_PAGE_MAX).default(ENTRY_PAGE_DEFAULT).describe(`Entries per page, 0 to ${ENTRY_PAGE_MAX} (default ${ENTRY_PAGE_DEFAULT}; 0: none, the count only)`),
  })
  .strict();

/** `PATCH /warninglists/{id}` and GraphQL setWarninglistEnabled. */
export const warninglistFlagsContract = z
  .object({
    enabled: z.boolean().describe("True: values of the attribute types it applies to are matched against it; false: not. Existing attributes' hits are recomputed in the background"),
  })
  .strict();

export const WARNINGLIST_CHECK_MAX = 1000;

/** Which enabled lists values are on (MISP's /warninglists/checkValue). */
export const warninglistCheckContract = z
  .object({
    values: z
      .array(storedText(MAX_VALUE_LENGTH).min(1))
      .min(1)
      .max(WARNINGLIST_CHECK_MAX)
      .describe(`1 to ${WARNINGLIST_CHECK_MAX} values, as attributes store them (a composite value with its type, e.g. "8.8.8.8|53" as ip-dst|port)`),
    type: z
      .string()
      .refine(isKnownType, "not a known attribute type")
      .optional()
      .describe("Their attribute type: only lists that apply to it are checked, as on attribute writes, and a composite type's value is split at its |. Omitted: every enabled list, the value whole"),
  })
  .strict();

export type WarninglistListQuery = z.output<typeof warninglistListContract>;
export type WarninglistEntriesQuery = z.output<typeof warninglistEntriesContract>;
export type WarninglistFlags = z.output<typeof warninglistFlagsContract>;
export type WarninglistCheck = z.output<typeof warninglistCheckContract>;
