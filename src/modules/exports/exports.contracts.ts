import { z } from "zod";
import { scheduleContract } from "../tasks/index.ts";
import { EXPORT_FORMATS, EXPORT_TARGETS } from "./export-store.ts";
import { EXPORT_DOC } from "./exports.docs.ts";

/**
 * The input contracts of export writes, in the service's vocabulary: the service checks every
 * caller's input with them (REST, GraphQL, MCP); REST derives its bodies (the peer's schedule object
 * as a codec). Whether the query parses is the search area's to say, in the service.
 */
const SCHEDULE = "When it runs again (the REST body and GraphQL take the peer's schedule object); null: no schedule";

export const exportCreateContract = z
  .object({
    name: z.string().trim().min(1).max(255).describe(EXPORT_DOC.name),
    query: z.string().max(65_536).describe(EXPORT_DOC.query),
    indexTarget: z.enum(EXPORT_TARGETS).default("attributes").describe(`${EXPORT_DOC.indexTarget} (default attributes)`),
    format: z.enum(EXPORT_FORMATS).default("json").describe(`${EXPORT_DOC.format} (default json)`),
    distribution: z.int().min(0).max(4).nullable().optional().describe(`${EXPORT_DOC.distribution}: required for misp`),
    schedule: scheduleContract.nullable().optional().describe(SCHEDULE),
    scheduleEnabled: z.boolean().default(false).describe(`${EXPORT_DOC.scheduleEnabled} (default false)`),
  })
  .strict()
  .superRefine((e, ctx) => {
    if (e.format !== "misp") return;
    if (e.distribution === null || e.distribution === undefined) ctx.addIssue({ code: "custom", path: ["distribution"], message: "Field required when format is misp" });
    if (e.indexTarget !== "attributes") ctx.addIssue({ code: "custom", path: ["indexTarget"], message: "A misp export holds attributes: its index target must be attributes", input: e.indexTarget });
  });

export const exportScheduleContract = z
  .object({
    schedule: scheduleContract.nullable().optional().describe(`${SCHEDULE}; absent: unchanged`),
    scheduleEnabled: z.boolean().optional().describe(`${EXPORT_DOC.scheduleEnabled}; absent: unchanged`),
  })
  .strict();

export type ExportCreateInput = z.input<typeof exportCreateContract>;
export type ExportInput = z.output<typeof exportCreateContract>;
export type ExportScheduleInput = z.input<typeof exportScheduleContract>;
