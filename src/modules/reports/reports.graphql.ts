import { queryFromInfo } from "@pothos/plugin-prisma";
import type { GraphQLResolveInfo } from "graphql";
import { builder, caller, type GraphQLContext } from "../../graphql/builder.ts";
import { contractInput } from "../../graphql/inputs.ts";
import { EventType, checkUuid } from "../events/events.graphql.ts";
import { reportCreateContract, reportPatchContract, type ReportCreate, type ReportPatch } from "./reports.contracts.ts";
import { REPORT_DOC } from "./reports.docs.ts";

const EventReportType = builder.prismaObject("EventReport", {
  description: REPORT_DOC.type,
  fields: (t) => ({
    uuid: t.exposeString("uuid", { description: REPORT_DOC.uuid }),
    eventUuid: t.string({ description: `${REPORT_DOC.eventUuid} (REST event_uuid)`, select: { event: { select: { uuid: true } } }, resolve: (r) => r.event.uuid }),
    name: t.exposeString("name", { description: REPORT_DOC.name }),
    content: t.exposeString("content", { description: REPORT_DOC.content }),
    distribution: t.exposeInt("distribution", { description: REPORT_DOC.distribution }),
    sharingGroupId: t.exposeInt("sharingGroupId", { nullable: true, description: `${REPORT_DOC.sharingGroupId} (REST sharing_group_id)` }),
    timestamp: t.float({ description: REPORT_DOC.timestamp, resolve: (r) => Number(r.timestamp) }),
    deleted: t.exposeBoolean("deleted", { description: REPORT_DOC.deleted }),
    deletedAt: t.string({ nullable: true, description: `${REPORT_DOC.deletedAt} (ISO 8601)`, resolve: (r) => r.deletedAt?.toISOString() ?? null }),
  }),
});

builder.prismaObjectField(EventType, "reports", (t) =>
  t.relation("reports", {
    description: "Its live event reports you may read (each needs its own distribution to reach you), oldest first",
    query: (_a, ctx) => ctx.services.reports.reportsOfEventRelation(caller(ctx)),
  }),
);

const EventReportInput = builder.inputType("EventReportInput", {
  description: "Event report fields. Create: all optional (name defaults to \"Event report (<Unix time>)\"). Update: the fields given (null clears sharingGroupId)",
  fields: (t) => ({
    name: t.string({ description: REPORT_DOC.nameInput }),
    content: t.string({ description: REPORT_DOC.content }),
    distribution: t.int({ description: REPORT_DOC.distribution }),
    sharingGroupId: t.int({ description: REPORT_DOC.sharingGroupId }),
    deleted: t.boolean({ description: "Update only: true soft-deletes it, false restores it" }),
  }),
});

type InputShape = { name?: string | null; content?: string | null; distribution?: number | null; sharingGroupId?: number | null; deleted?: boolean | null };
const toCreate = (i: InputShape | null | undefined, uuid: string | undefined): ReportCreate => {
  const { deleted, ...fields } = i ?? {};
  // `deleted` on creation is not a field of the contract: named where it was given.
  return contractInput(reportCreateContract, { ...fields, ...(deleted != null ? { deleted } : {}), ...(uuid ? { uuid } : {}) });
};
const toPatch = (i: InputShape | null | undefined): ReportPatch => contractInput(reportPatchContract, i ?? {});

/** A written report as GraphQL returns it: read again with the selection. */
const asStored = (ctx: GraphQLContext, info: GraphQLResolveInfo, uuid: string) => ctx.services.reports.findOne(caller(ctx), uuid, queryFromInfo({ context: ctx, info }));

builder.queryFields((t) => ({
  eventReports: t.prismaField({
    type: ["EventReport"],
    description: "An event's reports you may read, oldest first (REST GET /reports/{event_uuid})",
    args: {
      eventUuid: t.arg.string({ required: true, description: "The event's UUID" }),
      deleted: t.arg.boolean({ defaultValue: false, description: "true: only soft-deleted ones; false or omitted: only live ones" }),
    },
    resolve: (query, _r, a, ctx) => ctx.services.reports.findOfEvent(caller(ctx), checkUuid(a.eventUuid, "eventUuid"), { deleted: a.deleted ?? false }, query),
  }),
  eventReport: t.prismaField({
    type: "EventReport",
    description: "One event report you may read (a soft-deleted one too)",
    args: { uuid: t.arg.string({ required: true, description: REPORT_DOC.uuid }) },
    resolve: (query, _r, a, ctx) => ctx.services.reports.findOne(caller(ctx), checkUuid(a.uuid, "uuid"), query),
  }),
}));

builder.mutationFields((t) => ({
  createEventReport: t.field({
    type: EventReportType,
    description: "Add a markdown report to an event you may change (REST POST /reports/{event_uuid})",
    args: {
      eventUuid: t.arg.string({ required: true, description: "The event's UUID" }),
      uuid: t.arg.string({ description: "Its UUID; omitted: a new one" }),
      input: t.arg({ type: EventReportInput, description: "The report's fields" }),
    },
    resolve: async (_r, a, ctx, info) => {
      const created = await ctx.services.reports.create(caller(ctx), checkUuid(a.eventUuid, "eventUuid"), toCreate(a.input, a.uuid == null ? undefined : checkUuid(a.uuid, "uuid")));
      return asStored(ctx, info, created.uuid);
    },
  }),
  updateEventReport: t.field({
    type: EventReportType,
    description: "Change an event report's fields given; deleted: false restores a soft-deleted one (REST PUT /reports/{report_uuid})",
    args: {
      uuid: t.arg.string({ required: true, description: REPORT_DOC.uuid }),
      input: t.arg({ type: EventReportInput, required: true, description: "The fields to change" }),
    },
    resolve: async (_r, a, ctx, info) => {
      const updated = await ctx.services.reports.update(caller(ctx), checkUuid(a.uuid, "uuid"), toPatch(a.input));
      return asStored(ctx, info, updated.uuid);
    },
  }),
  deleteEventReport: t.boolean({
    description: "Soft-deletes an event report (updateEventReport with deleted: false restores it); force: true deletes it for good",
    args: { uuid: t.arg.string({ required: true, description: REPORT_DOC.uuid }), force: t.arg.boolean({ defaultValue: false, description: "Delete for good instead of soft-deleting" }) },
    resolve: async (_r, a, ctx) => {
      await ctx.services.reports.delete(caller(ctx), checkUuid(a.uuid, "uuid"), { force: a.force ?? false });
      return true;
    },
  }),
}));
