import { builder, caller } from "../../graphql/builder.ts";
import { cost } from "../../graphql/cost-limits.ts";
import { errors, fromZodError } from "../../platform/errors.ts";
import { checkPageSize } from "../../platform/paging.ts";
import { fromPeer, peerSchedule, scheduleOut } from "../tasks/schedule-contract.ts";
import type { Schedule } from "../tasks/schedule.ts";
import { EXPORT_FORMATS, EXPORT_STATUSES, EXPORT_TARGETS } from "./export-store.ts";
import type { ExportView } from "./exports.service.ts";

const FormatEnum = builder.enumType("ExportFormat", { values: EXPORT_FORMATS });
const TargetEnum = builder.enumType("ExportIndexTarget", { values: EXPORT_TARGETS });
const StatusEnum = builder.enumType("ExportStatus", { values: EXPORT_STATUSES });

const ExportObject = builder.objectRef<ExportView>("Export").implement({
  description: "A saved export of a Lucene query (its owner's); the file of its last complete run is downloaded from downloadUrl",
  fields: (t) => ({
    id: t.exposeInt("id"),
    userId: t.exposeInt("userId"),
    name: t.exposeString("name"),
    query: t.exposeString("query"),
    indexTarget: t.field({ type: TargetEnum, resolve: (e) => e.indexTarget }),
    format: t.field({ type: FormatEnum, resolve: (e) => e.format }),
    distribution: t.exposeInt("distribution", { nullable: true }),
    status: t.field({ type: StatusEnum, resolve: (e) => e.status }),
    recordCount: t.exposeInt("recordCount", { nullable: true, description: "Documents written: the progress of a running export, the total of a completed one" }),
    fileSize: t.exposeFloat("fileSize", { nullable: true }),
    error: t.exposeString("error", { nullable: true }),
    taskRunId: t.exposeString("taskRunId", { nullable: true, description: "The run that writes (or wrote) the file: taskRun(id) shows its attempts" }),
    schedule: t.field({ type: "JSON", nullable: true, description: "The peer's schedule object", resolve: (e) => (e.schedule ? scheduleOut(e.schedule) : null) }),
    scheduleEnabled: t.exposeBoolean("scheduleEnabled"),
    scheduledTaskId: t.exposeString("scheduledTaskId", { nullable: true }),
    downloadUrl: t.string({ nullable: true, description: "GET this (with your credentials) for the file; null until completed", resolve: (e) => (e.status === "completed" ? `/exports/${e.id}/download` : null) }),
    lastRunAt: t.field({ type: "DateTime", nullable: true, resolve: (e) => e.lastRunAt }),
    startedAt: t.field({ type: "DateTime", nullable: true, resolve: (e) => e.startedAt }),
    finishedAt: t.field({ type: "DateTime", nullable: true, resolve: (e) => e.finishedAt }),
    createdAt: t.field({ type: "DateTime", resolve: (e) => e.createdAt }),
  }),
});

const ExportPage = builder.objectRef<{ items: ExportView[]; total: number; page: number; size: number; pages: number }>("ExportPage").implement({
  fields: (t) => ({
    items: t.field({ type: [ExportObject], resolve: (p) => p.items }),
    total: t.exposeInt("total"),
    page: t.exposeInt("page"),
    size: t.exposeInt("size"),
    pages: t.exposeInt("pages"),
  }),
});

const CreateExportInput = builder.inputType("CreateExportInput", {
  fields: (t) => ({
    name: t.string({ required: true }),
    query: t.string({ required: true }),
    indexTarget: t.field({ type: TargetEnum, defaultValue: "attributes" }),
    format: t.field({ type: FormatEnum, defaultValue: "json" }),
    distribution: t.int({ description: "Required for misp: the exported MISP event's distribution (0-4)" }),
    schedule: t.field({ type: "JSON", description: "The peer's schedule object: {type: interval, every: seconds} or {type: crontab, minute, hour, ...}" }),
    scheduleEnabled: t.boolean({ defaultValue: false }),
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
    args: { page: t.arg.int({ defaultValue: 1 }), size: t.arg.int({ defaultValue: 50 }), filter: t.arg.string(), all: t.arg.boolean() },
    resolve: (_r, a, ctx) => ctx.services.exports.list(caller(ctx), { name: a.filter ?? undefined, all: a.all ?? undefined }, checkPageSize(a, 50)),
  }),
  export: t.field({ type: ExportObject, args: { id: t.arg.int({ required: true }) }, resolve: (_r, a, ctx) => ctx.services.exports.get(caller(ctx), a.id) }),
}));

builder.mutationFields((t) => ({
  createExport: t.field({
    type: ExportObject,
    description: "Save an export and run it now (as POST /exports/)",
    args: { input: t.arg({ type: CreateExportInput, required: true }) },
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
  runExport: t.field({ type: ExportObject, description: "Run the export again now", args: { id: t.arg.int({ required: true }) }, resolve: (_r, a, ctx) => ctx.services.exports.run(caller(ctx), a.id) }),
  setExportSchedule: t.field({
    type: ExportObject,
    description: "Change the export's schedule; schedule: null removes it, omitted keeps it",
    args: { id: t.arg.int({ required: true }), schedule: t.arg({ type: "JSON" }), scheduleEnabled: t.arg.boolean() },
    resolve: (_r, a, ctx) =>
      ctx.services.exports.setSchedule(caller(ctx), a.id, {
        schedule: a.schedule === undefined ? undefined : scheduleArg(a.schedule, ["args", "schedule"]),
        scheduleEnabled: a.scheduleEnabled ?? undefined,
      }),
  }),
  deleteExport: t.boolean({
    args: { id: t.arg.int({ required: true }) },
    resolve: async (_r, a, ctx) => {
      await ctx.services.exports.delete(caller(ctx), a.id);
      return true;
    },
  }),
}));
