import { z } from "zod";
import { containsFilter } from "../../platform/contract-fields.ts";
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

export type WarninglistListQuery = z.output<typeof warninglistListContract>;
export type WarninglistEntriesQuery = z.output<typeof warninglistEntriesContract>;
export type WarninglistFlags = z.output<typeof warninglistFlagsContract>;
