import { builder, caller } from "../../graphql/builder.ts";
import { cost } from "../../graphql/cost-limits.ts";
import { errors } from "../../platform/errors.ts";
import { MAX_PAGE_SIZE } from "../../platform/pagination.ts";
import type { EventView, OrgRef, TagView } from "./event-reader.ts";
import type { EventFields } from "./events.service.ts";
import { isCalendarDate } from "./misp-parse.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export function checkUuid(value: string, field: string): string {
  if (!UUID.test(value)) throw errors.invalidField(["args", field], "Invalid UUID", value.slice(0, 100));
  return value.toLowerCase();
}

export function checkPage(page: number | null | undefined, size: number | null | undefined): { page: number; size: number } {
  const p = page ?? 1;
  const s = size ?? 50;
  if (!Number.isInteger(p) || p < 1) throw errors.invalidField(["args", "page"], "must be at least 1", p);
  if (!Number.isInteger(s) || s < 1 || s > MAX_PAGE_SIZE) throw errors.invalidField(["args", "size"], `must be from 1 to ${MAX_PAGE_SIZE}`, s);
  return { page: p, size: s };
}

export const EventTagType = builder.objectRef<TagView>("EventTag").implement({
  description: "A tag as attached to an event or attribute (local: not shared beyond this instance)",
  fields: (t) => ({
    id: t.exposeInt("id"),
    name: t.exposeString("name"),
    colour: t.exposeString("colour"),
    exportable: t.exposeBoolean("exportable"),
    isGalaxy: t.exposeBoolean("isGalaxy"),
    local: t.exposeBoolean("local"),
  }),
});

export const OrgRefType = builder.objectRef<OrgRef>("OrganisationRef").implement({
  fields: (t) => ({ id: t.exposeInt("id"), uuid: t.exposeString("uuid"), name: t.exposeString("name") }),
});

export const EventType = builder.objectRef<EventView>("Event").implement({
  fields: (t) => ({
    uuid: t.exposeString("uuid"),
    info: t.exposeString("info"),
    date: t.exposeString("date"),
    threatLevel: t.exposeInt("threatLevel"),
    analysis: t.exposeInt("analysis"),
    distribution: t.exposeInt("distribution"),
    published: t.exposeBoolean("published"),
    publishTimestamp: t.exposeFloat("publishTimestamp"),
    timestamp: t.exposeFloat("timestamp"),
    sightingTimestamp: t.exposeFloat("sightingTimestamp", { nullable: true }),
    orgId: t.exposeInt("orgId"),
    orgcId: t.exposeInt("orgcId"),
    locked: t.exposeBoolean("locked"),
    protected: t.exposeBoolean("protected"),
    disableCorrelation: t.exposeBoolean("disableCorrelation"),
    extendsUuid: t.exposeString("extendsUuid", { nullable: true }),
    deleted: t.exposeBoolean("deleted", { description: "Soft-deleted: readable and restorable (restoreEvent), left out of search, hunts and correlations" }),
    deletedAt: t.string({ nullable: true, description: "When it was soft-deleted (ISO 8601)", resolve: (e) => e.deletedAt?.toISOString() ?? null }),
    attributeCount: t.exposeInt("attributeCount"),
    objectCount: t.exposeInt("objectCount"),
    org: t.field({ type: OrgRefType, resolve: (e) => e.org }),
    orgc: t.field({ type: OrgRefType, resolve: (e) => e.orgc }),
    tags: t.field({ type: [EventTagType], resolve: (e) => e.tags }),
  }),
});

const EventPage = builder
  .objectRef<{ items: EventView[]; total: number; page: number; size: number; pages: number }>("EventPage")
  .implement({
    fields: (t) => ({
      items: t.field({ type: [EventType], resolve: (p) => p.items }),
      total: t.exposeInt("total"),
      page: t.exposeInt("page"),
      size: t.exposeInt("size"),
      pages: t.exposeInt("pages"),
    }),
  });

const ImportCounts = builder.objectRef<{ created: number; updated: number; unchanged: number }>("ImportCounts").implement({
  fields: (t) => ({ created: t.exposeInt("created"), updated: t.exposeInt("updated"), unchanged: t.exposeInt("unchanged") }),
});

interface ImportOutcome {
  event: EventView;
  created: boolean;
  changed: boolean;
  attributes: { created: number; updated: number; unchanged: number };
  objects: { created: number; updated: number; unchanged: number };
  skipped: unknown[];
}

const ImportResult = builder.objectRef<ImportOutcome>("EventImportResult").implement({
  fields: (t) => ({
    event: t.field({ type: EventType, resolve: (r) => r.event }),
    created: t.exposeBoolean("created"),
    changed: t.exposeBoolean("changed"),
    attributes: t.field({ type: ImportCounts, resolve: (r) => r.attributes }),
    objects: t.field({ type: ImportCounts, resolve: (r) => r.objects }),
    skipped: t.field({ type: "JSON", description: "Invalid attributes dropped with onInvalid: SKIP", resolve: (r) => r.skipped }),
  }),
});

const OnInvalid = builder.enumType("ImportOnInvalid", { values: ["REJECT", "SKIP"] as const });

const EventInput = builder.inputType("EventInput", {
  fields: (t) => ({
    info: t.string(),
    date: t.string(),
    threatLevel: t.int(),
    analysis: t.int(),
    distribution: t.int(),
    published: t.boolean(),
    locked: t.boolean(),
    protected: t.boolean(),
    disableCorrelation: t.boolean(),
    extendsUuid: t.string(),
  }),
});

type EventInputShape = { [K in keyof EventFields]?: EventFields[K] | null };

/** The same bounds the REST shim's schema enforces. */
function checkFields(i: EventInputShape): EventFields {
  const range = (v: number | null | undefined, name: string, min: number, max: number) => {
    if (v != null && (!Number.isInteger(v) || v < min || v > max)) throw errors.invalidField(["input", name], `must be an integer from ${min} to ${max}`, v);
    return v ?? undefined;
  };
  if (i.info != null && (!i.info.trim() || i.info.length > 65_535)) throw errors.invalidField(["input", "info"], "must be 1 to 65535 characters");
  if (i.date != null && !isCalendarDate(i.date)) throw errors.invalidField(["input", "date"], "must be a date YYYY-MM-DD", i.date);
  return {
    info: i.info?.trim() ?? undefined,
    date: i.date ?? undefined,
    threatLevel: range(i.threatLevel, "threatLevel", 1, 4),
    analysis: range(i.analysis, "analysis", 0, 2),
    distribution: range(i.distribution, "distribution", 0, 4),
    published: i.published ?? undefined,
    locked: i.locked ?? undefined,
    protected: i.protected ?? undefined,
    disableCorrelation: i.disableCorrelation ?? undefined,
    extendsUuid: i.extendsUuid == null ? undefined : checkUuid(i.extendsUuid, "extendsUuid"),
  };
}

builder.queryFields((t) => ({
  events: t.field({
    extensions: cost.page("size", 50),
    type: EventPage,
    args: {
      page: t.arg.int(),
      size: t.arg.int(),
      info: t.arg.string(),
      uuid: t.arg.string(),
      published: t.arg.boolean(),
      deleted: t.arg.boolean({ description: "Omitted: soft-deleted events are listed too" }),
    },
    resolve: (_r, a, ctx) =>
      ctx.services.events.list(
        caller(ctx),
        { info: a.info ?? undefined, uuid: a.uuid ? checkUuid(a.uuid, "uuid") : undefined, published: a.published ?? undefined, deleted: a.deleted ?? undefined },
        checkPage(a.page, a.size),
      ),
  }),
  event: t.field({
    type: EventType,
    args: { uuid: t.arg.string({ required: true }) },
    resolve: (_r, a, ctx) => ctx.services.events.get(caller(ctx), checkUuid(a.uuid, "uuid")),
  }),
  eventMispExport: t.field({
    type: "JSON",
    description: "The event in MISP JSON form ({Event: {...}})",
    args: { uuid: t.arg.string({ required: true }) },
    resolve: (_r, a, ctx) => ctx.services.events.exportMisp(caller(ctx), checkUuid(a.uuid, "uuid")),
  }),
}));

builder.mutationFields((t) => ({
  createEvent: t.field({
    type: EventType,
    args: { input: t.arg({ type: EventInput, required: true }), uuid: t.arg.string() },
    resolve: (_r, a, ctx) => {
      const fields = checkFields(a.input);
      if (!fields.info) throw errors.invalidField(["input", "info"], "Field required");
      return ctx.services.events.create(caller(ctx), { ...fields, info: fields.info, uuid: a.uuid ? checkUuid(a.uuid, "uuid") : undefined });
    },
  }),
  updateEvent: t.field({
    type: EventType,
    args: { uuid: t.arg.string({ required: true }), input: t.arg({ type: EventInput, required: true }) },
    resolve: (_r, a, ctx) => ctx.services.events.update(caller(ctx), checkUuid(a.uuid, "uuid"), checkFields(a.input)),
  }),
  deleteEvent: t.boolean({
    description: "Soft delete (restorable by restoreEvent); force: true deletes the event and everything in it for good",
    args: { uuid: t.arg.string({ required: true }), force: t.arg.boolean({ defaultValue: false }) },
    resolve: async (_r, a, ctx) => {
      await ctx.services.events.delete(caller(ctx), checkUuid(a.uuid, "uuid"), { force: a.force ?? false });
      return true;
    },
  }),
  restoreEvent: t.field({
    type: EventType,
    description: "Undoes a soft delete: the event and its attributes are searchable and correlated again",
    args: { uuid: t.arg.string({ required: true }) },
    resolve: (_r, a, ctx) => ctx.services.events.restore(caller(ctx), checkUuid(a.uuid, "uuid")),
  }),
  setEventPublished: t.field({
    type: EventType,
    args: { uuid: t.arg.string({ required: true }), published: t.arg.boolean({ required: true }) },
    resolve: (_r, a, ctx) => ctx.services.events.setPublished(caller(ctx), checkUuid(a.uuid, "uuid"), a.published),
  }),
  tagEvent: t.boolean({
    args: { uuid: t.arg.string({ required: true }), tag: t.arg.string({ required: true }) },
    resolve: async (_r, a, ctx) => {
      if (!a.tag.trim() || a.tag.length > 255) throw errors.invalidField(["args", "tag"], "must be 1 to 255 characters");
      await ctx.services.events.tag(caller(ctx), checkUuid(a.uuid, "uuid"), a.tag);
      return true;
    },
  }),
  untagEvent: t.boolean({
    args: { uuid: t.arg.string({ required: true }), tag: t.arg.string({ required: true }) },
    resolve: async (_r, a, ctx) => {
      await ctx.services.events.untag(caller(ctx), checkUuid(a.uuid, "uuid"), a.tag);
      return true;
    },
  }),
  importMispEvent: t.field({
    type: ImportResult,
    args: { event: t.arg({ type: "JSON", required: true }), onInvalid: t.arg({ type: OnInvalid, defaultValue: "REJECT" }) },
    resolve: async (_r, a, ctx) => {
      const { result, skipped, event } = await ctx.services.events.importMisp(caller(ctx), a.event, { skipInvalidAttributes: a.onInvalid === "SKIP" });
      return { event, skipped, created: result.created, changed: result.changed, attributes: result.attributes, objects: result.objects };
    },
  }),
}));
