import { z } from "zod";
import type { Warninglist } from "../../src/generated/prisma/client.ts";
import type { WarninglistPage, WarninglistUpdateResult, WarninglistWithEntries } from "../../src/modules/warninglists/index.ts";
import { WARNING_DOC as W, WARNINGLIST_DOC as L, WARNINGLIST_TYPES, WARNINGLIST_TYPES_DOC, WARNINGLIST_UPDATE_DOC as U } from "../../src/modules/warninglists/index.ts";
import { named, pageObject, timestamp } from "../contract.ts";

/** A hit shown on an attribute (`warnings`). */
export const WarningSchema = named("Warning", z.object({ id: z.int().describe(W.id), name: z.string().describe(W.name) }), WARNINGLIST_TYPES_DOC.Warning);
export const warningsField = z.array(WarningSchema).describe(W.warnings);

const listFields = {
  id: z.int().describe(L.id),
  name: z.string().describe(L.name),
  version: z.int().describe(L.version),
  description: z.string().describe(L.description),
  type: z.enum(WARNINGLIST_TYPES).describe(L.type),
  matching_attributes: z.array(z.string()).describe(L.matchingAttributes),
  enabled: z.boolean().describe(L.enabled),
  entry_count: z.int().min(0).describe(L.entryCount),
  created: timestamp,
  modified: timestamp,
};

export const WarninglistSummarySchema = named("WarninglistSummary", z.object(listFields), WARNINGLIST_TYPES_DOC.Warninglist);
export const WarninglistSchema = named(
  "Warninglist",
  z.object({
    ...listFields,
    entries: z.array(z.string()).describe(`${L.entries} (query page and size)`),
    entries_page: z.object({ page: z.int().min(1), size: z.int().min(0) }).describe("The page of entries given"),
  }),
  WARNINGLIST_TYPES_DOC.Warninglist,
);

export function warninglistSummaryOut(w: Warninglist): z.output<typeof WarninglistSummarySchema> {
  return {
    id: w.id,
    name: w.name,
    version: w.version,
    description: w.description,
    type: w.type as z.output<typeof WarninglistSummarySchema>["type"],
    matching_attributes: w.matchingAttributes,
    enabled: w.enabled,
    entry_count: w.entryCount,
    created: w.createdAt.toISOString(),
    modified: w.updatedAt.toISOString(),
  };
}

export const warninglistOut = (w: WarninglistWithEntries): z.output<typeof WarninglistSchema> => ({ ...warninglistSummaryOut(w), entries: w.entries, entries_page: w.entriesPage });

export const WarninglistPageSchema = named(
  "WarninglistPage",
  pageObject(WarninglistSummarySchema).extend({
    query: z.object({ enabled: z.boolean().nullable(), type: z.string().nullable(), name: z.string().nullable() }).describe("The filters applied; null when not given"),
  }),
);

export function warninglistPageOut(p: WarninglistPage): z.output<typeof WarninglistPageSchema> {
  return { items: p.items.map(warninglistSummaryOut), total: p.total, page: p.page, size: p.size, pages: p.pages, query: p.query };
}

export const WarninglistUpdateSchema = named(
  "WarninglistUpdate",
  z.object({
    lists: z.int().min(0).describe(U.lists),
    lists_created: z.int().min(0).describe(U.lists_created),
    lists_changed: z.int().min(0).describe(U.lists_changed),
    entries: z.int().min(0).describe(U.entries),
    entries_refused: z.int().min(0).describe(U.entries_refused),
    refused: z.array(z.object({ list: z.string(), entry: z.string(), reason: z.string() })).describe(U.refused),
    took_ms: z.number().min(0).describe(U.took_ms),
  }),
  WARNINGLIST_TYPES_DOC.WarninglistUpdateResult,
);

export const warninglistUpdateOut = (r: WarninglistUpdateResult): z.output<typeof WarninglistUpdateSchema> => ({ ...r });
