import { queryFromInfo } from "@pothos/plugin-prisma";
import { builder, caller } from "../../graphql/builder.ts";
import { cost } from "../../graphql/cost-limits.ts";
import { contractInput } from "../../graphql/inputs.ts";
import { checkPageSize } from "../../platform/paging.ts";
import { peerScheduleValue, scheduleOfRecord, scheduleOut } from "../tasks/index.ts";
import { exportCreateContract, exportScheduleContract } from "./exports.contracts.ts";
import { EXPORT_FORMATS, EXPORT_STATUSES, EXPORT_TARGETS, type ExportFileFormat, type ExportIndexTarget, type ExportStatus } from "./export-store.ts";
import { DOC } from "../../graphql/docs.ts";
import { enumValues } from "../../graphql/enums.ts";
import { PAGE_DOC, pageType } from "../../graphql/page.ts";
import { EXPORT_DOC, EXPORT_TYPES_DOC } from "./exports.docs.ts";

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

/** The schedule argument: the peer's document, as JSON. */
const SCHEDULE_ARG =
  "The peer's schedule object: {type: interval, every: seconds} or {type: crontab, minute, hour, day_of_week, day_of_month, month_of_year}: JSON to take the peer's document as it is";
const EXPORT_ID = EXPORT_DOC.id;
const rest = (doc: string, name: string) => `${doc} (REST ${name})`;

/** An export record (the service loads the caller's, with the selection's query); its schedule is its scheduled task's. */
const ExportObject = builder.prismaObject("Export", {
  description: `${EXPORT_TYPES_DOC.Export}; the file of its last complete run is downloaded from downloadUrl`,
  fields: (t) => ({
    id: t.exposeInt("id", { description: EXPORT_ID }),
    userId: t.exposeInt("userId", { description: rest(EXPORT_DOC.userId, "user_id") }),
    name: t.exposeString("name", { description: EXPORT_DOC.name }),
    query: t.exposeString("query", { description: EXPORT_DOC.query }),
    indexTarget: t.field({ type: TargetEnum, description: rest(EXPORT_DOC.indexTarget, "index_target"), resolve: (e) => e.indexTarget as ExportIndexTarget }),
    format: t.field({ type: FormatEnum, description: EXPORT_DOC.format, resolve: (e) => e.format as ExportFileFormat }),
    distribution: t.exposeInt("distribution", { nullable: true, description: EXPORT_DOC.distribution }),
    status: t.field({ type: StatusEnum, description: EXPORT_DOC.status, resolve: (e) => e.status as ExportStatus }),
    recordCount: t.exposeInt("recordCount", { nullable: true, description: rest(EXPORT_DOC.recordCount, "record_count") }),
    fileSize: t.float({ nullable: true, description: rest(EXPORT_DOC.fileSize, "file_size"), resolve: (e) => (e.fileSize === null ? null : Number(e.fileSize)) }),
    error: t.exposeString("error", { nullable: true, description: EXPORT_DOC.error }),
    taskRunId: t.exposeString("taskRunId", { nullable: true, description: `${EXPORT_DOC.taskRunId}: taskRun(id) shows its attempts (REST task_run_id)` }),
    schedule: t.field({
      type: "JSON",
      nullable: true,
      description: `${EXPORT_DOC.schedule} (JSON to take the peer's document as it is)`,
      select: { scheduledTask: true },
      resolve: (e) => (e.scheduledTask ? scheduleOut(scheduleOfRecord(e.scheduledTask)) : null),
    }),
    scheduleEnabled: t.boolean({ description: rest(EXPORT_DOC.scheduleEnabled, "schedule_enabled"), select: { scheduledTask: true }, resolve: (e) => e.scheduledTask?.enabled ?? false }),
    scheduledTaskId: t.exposeString("scheduledTaskId", { nullable: true, description: rest(EXPORT_DOC.scheduledTaskId, "scheduled_task_name") }),
    downloadUrl: t.string({ nullable: true, description: "GET this (with your credentials) for the file; null until completed", resolve: (e) => (e.status === "completed" ? `/exports/${e.id}/download` : null) }),
    lastRunAt: t.expose("lastRunAt", { type: "DateTime", nullable: true, description: rest(EXPORT_DOC.lastRunAt, "last_run_at") }),
    startedAt: t.expose("startedAt", { type: "DateTime", nullable: true, description: rest(EXPORT_DOC.startedAt, "started_at") }),
    finishedAt: t.expose("finishedAt", { type: "DateTime", nullable: true, description: rest(EXPORT_DOC.finishedAt, "finished_at") }),
    createdAt: t.expose("createdAt", { type: "DateTime", description: DOC.createdAt }),
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
    schedule: t.field({ type: "JSON", description: SCHEDULE_ARG }),
    scheduleEnabled: t.boolean({ defaultValue: false, description: rest(EXPORT_DOC.scheduleEnabled, "schedule_enabled") }),
  }),
});

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
    resolve: (_r, a, ctx, info) =>
      ctx.services.exports.page(caller(ctx), { name: a.filter ?? undefined, all: a.all ?? undefined }, checkPageSize(a, 50), queryFromInfo({ context: ctx, info, path: ["items"] })),
  }),
  export: t.prismaField({
    type: "Export",
    description: "One export (yours; administrators: any)",
    args: { id: t.arg.int({ required: true, description: EXPORT_ID }) },
    resolve: (query, _r, a, ctx) => ctx.services.exports.record(caller(ctx), a.id, query),
  }),
}));

builder.mutationFields((t) => ({
  createExport: t.prismaField({
    type: "Export",
    description: "Save an export and run it now (as POST /exports/)",
    args: { input: t.arg({ type: CreateExportInput, required: true, description: "The new export" }) },
    resolve: async (query, _r, { input }, ctx) => {
      const e = await ctx.services.exports.create(caller(ctx), contractInput(exportCreateContract, { ...input, schedule: peerScheduleValue(input.schedule) }));
      return ctx.services.exports.record(caller(ctx), e.id, query);
    },
  }),
  runExport: t.prismaField({
    type: "Export",
    description: "Run the export again now",
    args: { id: t.arg.int({ required: true, description: EXPORT_ID }) },
    resolve: async (query, _r, a, ctx) => ctx.services.exports.record(caller(ctx), (await ctx.services.exports.run(caller(ctx), a.id)).id, query),
  }),
  setExportSchedule: t.prismaField({
    type: "Export",
    description: "Change the export's schedule; schedule: null removes it, omitted keeps it",
    args: {
      id: t.arg.int({ required: true, description: EXPORT_ID }),
      schedule: t.arg({ type: "JSON", description: SCHEDULE_ARG }),
      scheduleEnabled: t.arg.boolean({ description: rest(EXPORT_DOC.scheduleEnabled, "schedule_enabled") }),
    },
    resolve: async (query, _r, a, ctx) => {
      const e = await ctx.services.exports.setSchedule(caller(ctx), a.id, contractInput(exportScheduleContract, { schedule: peerScheduleValue(a.schedule), scheduleEnabled: a.scheduleEnabled }));
      return ctx.services.exports.record(caller(ctx), e.id, query);
    },
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
