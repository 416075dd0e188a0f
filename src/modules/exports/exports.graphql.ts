import { builder, caller } from "../../graphql/builder.ts";
import { cost } from "../../graphql/cost-limits.ts";
import { errors, fromZodError } from "../../platform/errors.ts";
import { checkPageSize } from "../../platform/paging.ts";
import { fromPeer, peerSchedule, scheduleOut } from "../tasks/index.ts";
import type { Schedule } from "../tasks/index.ts";
import { EXPORT_FORMATS, EXPORT_STATUSES, EXPORT_TARGETS } from "./export-store.ts";
import type { ExportView } from "./exports.service.ts";
import { DOC } from "../../graphql/docs.ts";
import { enumValues } from "../../graphql/enums.ts";
import { PAGE_DOC, pageType } from "../../graphql/page.ts";

const FormatEnum = builder.enumType("ExportFormat", {
  description: "The file format of an export",
  values: enumValues<(typeof EXPORT_FORMATS)[number]>({
    json: "A JSON array of the search documents",
    csv: "CSV, one row per document",
    stix: "A STIX 2.1 bundle",
    misp: "One MISP event holding the matching attributes (needs distribution)",
  }),
});
const TargetEnum = builder.enumType("ExportIndexTarget", {
  description: "The index an export's query runs over (REST index_target)",
  values: enumValues<(typeof EXPORT_TARGETS)[number]>({ attributes: "The attributes index", events: "The events index" }),
});
const StatusEnum = builder.enumType("ExportStatus", {
  description: "The state of an export's last run",
  values: enumValues<(typeof EXPORT_STATUSES)[number]>({
    queued: "Waiting for a worker",
    running: "Writing the file (recordCount shows the progress)",
    completed: "The file is ready at downloadUrl",
    failed: "The run failed: error says why",
  }),
});

const EXPORT_DOC = {
  name: "The export's name, 1 to 255 characters",
  query: "The Lucene query whose matches it exports (at most 65,536 characters)",
  distribution: "MISP format only: the exported MISP event's distribution (0-4)",
  schedule:
    "The peer's schedule object: {type: interval, every: seconds} or {type: crontab, minute, hour, day_of_week, day_of_month, month_of_year}: JSON to take the peer's document as it is",
  scheduleEnabled: "The schedule runs it when true (REST schedule_enabled)",
} as const;
const EXPORT_ID = "Numeric id of the export";

const ExportObject = builder.objectRef<ExportView>("Export").implement({
  description: "A saved export of a Lucene query (its owner's); the file of its last complete run is downloaded from downloadUrl",
  fields: (t) => ({
    id: t.exposeInt("id", { description: EXPORT_ID }),
    userId: t.exposeInt("userId", { description: "Numeric id of its owner (REST user_id)" }),
    name: t.exposeString("name", { description: EXPORT_DOC.name }),
    query: t.exposeString("query", { description: EXPORT_DOC.query }),
    indexTarget: t.field({ type: TargetEnum, description: "The index it reads (REST index_target)", resolve: (e) => e.indexTarget }),
    format: t.field({ type: FormatEnum, description: "The file format", resolve: (e) => e.format }),
    distribution: t.exposeInt("distribution", { nullable: true, description: `${EXPORT_DOC.distribution}; null for other formats` }),
    status: t.field({ type: StatusEnum, description: "The state of its last run", resolve: (e) => e.status }),
    recordCount: t.exposeInt("recordCount", { nullable: true, description: "Documents written: the progress of a running export, the total of a completed one" }),
    fileSize: t.exposeFloat("fileSize", { nullable: true, description: "Size of the file in bytes; null until completed (REST file_size)" }),
    error: t.exposeString("error", { nullable: true, description: "Why the last run failed; null otherwise" }),
    taskRunId: t.exposeString("taskRunId", { nullable: true, description: "The run that writes (or wrote) the file: taskRun(id) shows its attempts" }),
    schedule: t.field({ type: "JSON", nullable: true, description: `${EXPORT_DOC.schedule}; null without a schedule`, resolve: (e) => (e.schedule ? scheduleOut(e.schedule) : null) }),
    scheduleEnabled: t.exposeBoolean("scheduleEnabled", { description: EXPORT_DOC.scheduleEnabled }),
    scheduledTaskId: t.exposeString("scheduledTaskId", { nullable: true, description: "The scheduled task that reruns it; null without a schedule (REST scheduled_task_id)" }),
    downloadUrl: t.string({ nullable: true, description: "GET this (with your credentials) for the file; null until completed", resolve: (e) => (e.status === "completed" ? `/exports/${e.id}/download` : null) }),
    lastRunAt: t.field({ type: "DateTime", nullable: true, description: "When it last ran; null if never", resolve: (e) => e.lastRunAt }),
    startedAt: t.field({ type: "DateTime", nullable: true, description: "When the last run started", resolve: (e) => e.startedAt }),
    finishedAt: t.field({ type: "DateTime", nullable: true, description: "When the last run finished", resolve: (e) => e.finishedAt }),
    createdAt: t.field({ type: "DateTime", description: DOC.createdAt, resolve: (e) => e.createdAt }),
  }),
});

const ExportPage = pageType("ExportPage", ExportObject, "exports");

const CreateExportInput = builder.inputType("CreateExportInput", {
  description: "A new export (as POST /exports/)",
  fields: (t) => ({
    name: t.string({ required: true, description: EXPORT_DOC.name }),
    query: t.string({ required: true, description: EXPORT_DOC.query }),
    indexTarget: t.field({ type: TargetEnum, defaultValue: "attributes", description: "The index it reads (REST index_target)" }),
    format: t.field({ type: FormatEnum, defaultValue: "json", description: "The file format" }),
    distribution: t.int({ description: "Required for misp: the exported MISP event's distribution (0-4)" }),
    schedule: t.field({ type: "JSON", description: EXPORT_DOC.schedule }),
    scheduleEnabled: t.boolean({ defaultValue: false, description: EXPORT_DOC.scheduleEnabled }),
  }),
});

/** The same bounds as the REST body. */
function scheduleArg(value: unknown, where: string[]): Schedule | null {
  if (value === null || value === undefined) return null;
  const parsed = peerSchedule.safeParse(value);
  if (!parsed.success) throw fromZodError(parsed.error, where.join("."));
  return fromPeer(parsed.data, where);
}

function checkName(name: string): string {
  const trimmed = name.trim();
  if (!trimmed || trimmed.length > 255) throw errors.invalidField(["input", "name"], "must be 1 to 255 characters");
  return trimmed;
}

builder.queryFields((t) => ({
  exports: t.field({
    extensions: cost.page("size"),
    type: ExportPage,
    description: "Your exports, newest first; administrators: all for everyone's",
    args: {
      page: t.arg.int({ defaultValue: 1, description: PAGE_DOC.page }),
      size: t.arg.int({ defaultValue: 50, description: PAGE_DOC.size(50) }),
      filter: t.arg.string({ description: "Part of the name, case-insensitive" }),
      all: t.arg.boolean({ description: "Administrators: everyone's exports" }),
    },
    resolve: (_r, a, ctx) => ctx.services.exports.list(caller(ctx), { name: a.filter ?? undefined, all: a.all ?? undefined }, checkPageSize(a, 50)),
  }),
  export: t.field({ type: ExportObject, description: "One export (yours; administrators: any)", args: { id: t.arg.int({ required: true, description: EXPORT_ID }) }, resolve: (_r, a, ctx) => ctx.services.exports.get(caller(ctx), a.id) }),
}));

builder.mutationFields((t) => ({
  createExport: t.field({
    type: ExportObject,
    description: "Save an export and run it now (as POST /exports/)",
    args: { input: t.arg({ type: CreateExportInput, required: true, description: "The new export" }) },
    resolve: (_r, { input }, ctx) => {
      if (input.query.length > 65_536) throw errors.invalidField(["input", "query"], "must be at most 65536 characters");
      if (input.distribution != null && (!Number.isInteger(input.distribution) || input.distribution < 0 || input.distribution > 4)) {
        throw errors.invalidField(["input", "distribution"], "must be an integer from 0 to 4", input.distribution);
      }
      return ctx.services.exports.create(caller(ctx), {
        name: checkName(input.name),
        query: input.query,
        indexTarget: input.indexTarget ?? "attributes",
        format: input.format ?? "json",
        distribution: input.distribution ?? null,
        schedule: scheduleArg(input.schedule, ["input", "schedule"]),
        scheduleEnabled: input.scheduleEnabled ?? false,
      });
    },
  }),
  runExport: t.field({ type: ExportObject, description: "Run the export again now", args: { id: t.arg.int({ required: true, description: EXPORT_ID }) }, resolve: (_r, a, ctx) => ctx.services.exports.run(caller(ctx), a.id) }),
  setExportSchedule: t.field({
    type: ExportObject,
    description: "Change the export's schedule; schedule: null removes it, omitted keeps it",
    args: {
      id: t.arg.int({ required: true, description: EXPORT_ID }),
      schedule: t.arg({ type: "JSON", description: EXPORT_DOC.schedule }),
      scheduleEnabled: t.arg.boolean({ description: EXPORT_DOC.scheduleEnabled }),
    },
    resolve: (_r, a, ctx) =>
      ctx.services.exports.setSchedule(caller(ctx), a.id, {
        schedule: a.schedule === undefined ? undefined : scheduleArg(a.schedule, ["args", "schedule"]),
        scheduleEnabled: a.scheduleEnabled ?? undefined,
      }),
  }),
  deleteExport: t.boolean({
    description: "Delete an export, its file and its schedule; true when done",
    args: { id: t.arg.int({ required: true, description: EXPORT_ID }) },
    resolve: async (_r, a, ctx) => {
      await ctx.services.exports.delete(caller(ctx), a.id);
      return true;
    },
  }),
}));
