import { builder, caller } from "../../graphql/builder.ts";
import { cost } from "../../graphql/cost-limits.ts";
import { errors } from "../../platform/errors.ts";
import { checkPageSize } from "../../platform/paging.ts";
import type { OrgRef, TagView } from "./event-reader.ts";
import type { EventRecord } from "./events.service.ts";
import { queryFromInfo } from "@pothos/plugin-prisma";
import type { GraphQLResolveInfo } from "graphql";
import type { GraphQLContext } from "../../graphql/builder.ts";
import type { Principal } from "../../auth/principal.ts";
import { readableAttributeWhere, readableObjectWhere } from "../../auth/distribution.ts";
import { MAX_TAG_FILTERS, eventCreateContract, eventUpdateContract } from "./events.contracts.ts";
import { contractInput } from "../../graphql/inputs.ts";
import { DOC } from "../../graphql/docs.ts";
import { PAGE_DOC, pageType } from "../../graphql/page.ts";
import { tagName } from "../tags/index.ts";

const EVENT_DOC = {
  info: "The event's title (MISP info), 1 to 65,535 characters",
  date: "The event's date, YYYY-MM-DD",
  published: "Published: shared and alerted on",
  locked: "Locked against changes from synchronisation",
  protected: "Protected (MISP's signed-event flag)",
  disableCorrelation: "Its attributes are left out of correlation when true (REST disable_correlation)",
  extendsUuid: "UUID of the event this one extends; null if none (REST extends_uuid)",
  tags: "Tags attached to it",
} as const;
const EVENT_UUID = "The event's UUID";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export function checkUuid(value: string, field: string): string {
  if (!UUID.test(value)) throw errors.invalidField(["args", field], "Invalid UUID", value.slice(0, 100));
  return value.toLowerCase();
}

/** A list's tag filter: tag names as tags are named, at most MAX_TAG_FILTERS. */
export function checkTagFilter(tags: readonly string[]): string[] {
  if (tags.length > MAX_TAG_FILTERS) throw errors.invalidField(["args", "tags"], `at most ${MAX_TAG_FILTERS} tags`, tags.length);
  return tags.map((t, i) => {
    const parsed = tagName.safeParse(t);
    if (!parsed.success) throw errors.invalidField(["args", "tags", String(i)], parsed.error.issues[0]?.message ?? "Invalid tag name", t.slice(0, 100));
    return parsed.data;
  });
}

export function checkPage(page: number | null | undefined, size: number | null | undefined): { page: number; size: number } {
  return checkPageSize({ page, size }, 50);
}

export const EventTagType = builder.objectRef<TagView>("EventTag").implement({
  description: "A tag as attached to an event or attribute (local: not shared beyond this instance)",
  fields: (t) => ({
    id: t.exposeInt("id", { description: "Numeric id of the tag" }),
    name: t.exposeString("name", { description: "The tag's name (for example tlp:amber, or misp-galaxy:<type>=\"<value>\")" }),
    colour: t.exposeString("colour", { description: "Display colour, #rrggbb" }),
    exportable: t.exposeBoolean("exportable", { description: "Included in exports" }),
    isGalaxy: t.exposeBoolean("isGalaxy", { description: "A galaxy cluster's tag (REST is_galaxy)" }),
    local: t.exposeBoolean("local", { description: "Attached locally: not shared beyond this instance" }),
  }),
});

export const OrgRefType = builder.objectRef<OrgRef>("OrganisationRef").implement({
  description: "An organisation as an event names it",
  fields: (t) => ({
    id: t.exposeInt("id", { description: DOC.orgId }),
    uuid: t.exposeString("uuid", { description: "The organisation's UUID" }),
    name: t.exposeString("name", { description: "The organisation's name" }),
  }),
});

/** An event's tags, as loaded with it: each tag with the link's local flag, by name. */
const TAGS_SELECTION = { tags: { include: { tag: true }, orderBy: { tag: { name: "asc" } } } } as const;
const tagViews = (links: { local: boolean; tag: Omit<TagView, "local"> }[]): TagView[] => links.map((l) => ({ ...l.tag, local: l.local }));

const ORG_REF = { select: { id: true, uuid: true, name: true } } as const;

export const EventType = builder.prismaObject("Event", {
  description: "A MISP event: a report holding attributes and objects, owned by an organisation",
  fields: (t) => ({
    uuid: t.exposeString("uuid", { description: EVENT_UUID }),
    info: t.exposeString("info", { description: EVENT_DOC.info }),
    date: t.string({ description: EVENT_DOC.date, resolve: (e) => e.date.toISOString().slice(0, 10) }),
    threatLevel: t.exposeInt("threatLevel", { description: DOC.threatLevel }),
    analysis: t.exposeInt("analysis", { description: DOC.analysis }),
    distribution: t.exposeInt("distribution", { description: DOC.eventDistribution }),
    sharingGroupId: t.exposeInt("sharingGroupId", { nullable: true, description: `${DOC.sharingGroupId} (REST sharing_group_id)` }),
    published: t.exposeBoolean("published", { description: EVENT_DOC.published }),
    publishTimestamp: t.float({ description: `When it was last published, ${DOC.epochSeconds}; 0 if never (REST publish_timestamp)`, resolve: (e) => Number(e.publishTimestamp) }),
    timestamp: t.float({ description: DOC.timestamp, resolve: (e) => Number(e.timestamp) }),
    sightingTimestamp: t.float({
      nullable: true,
      description: `Last sighting of one of its attributes, ${DOC.epochSeconds}; null if none (REST sighting_timestamp)`,
      resolve: (e) => (e.sightingTimestamp === null ? null : Number(e.sightingTimestamp)),
    }),
    orgId: t.exposeInt("orgId", { description: "Numeric id of the owning organisation (REST org_id)" }),
    orgcId: t.exposeInt("orgcId", { description: "Numeric id of the creating organisation (REST orgc_id)" }),
    locked: t.exposeBoolean("locked", { description: EVENT_DOC.locked }),
    protected: t.exposeBoolean("protected", { description: EVENT_DOC.protected }),
    disableCorrelation: t.exposeBoolean("disableCorrelation", { description: EVENT_DOC.disableCorrelation }),
    extendsUuid: t.exposeString("extendsUuid", { nullable: true, description: EVENT_DOC.extendsUuid }),
    deleted: t.exposeBoolean("deleted", { description: "Soft-deleted: readable and restorable (restoreEvent), left out of search, hunts and correlations" }),
    deletedAt: t.string({ nullable: true, description: "When it was soft-deleted (ISO 8601)", resolve: (e) => e.deletedAt?.toISOString() ?? null }),
    // Counted as the reader may see them (the distribution rule, in the same statement as the event).
    attributeCount: t.relationCount("attributes", {
      description: "Number of its live standalone attributes you may read (REST attribute_count)",
      where: (_a, ctx) => ({ AND: [{ objectId: null, deleted: false }, readableAttributeWhere(reader(ctx))] }),
    }),
    objectCount: t.relationCount("objects", {
      description: "Number of its live objects you may read (REST object_count)",
      where: (_a, ctx) => ({ AND: [{ deleted: false }, readableObjectWhere(reader(ctx))] }),
    }),
    org: t.field({ type: OrgRefType, description: "The owning organisation", select: { org: ORG_REF }, resolve: (e) => e.org }),
    orgc: t.field({ type: OrgRefType, description: "The creating organisation", select: { orgc: ORG_REF }, resolve: (e) => e.orgc }),
    tags: t.field({ type: [EventTagType], description: EVENT_DOC.tags, select: TAGS_SELECTION, resolve: (e) => tagViews(e.tags) }),
  }),
});

/** The caller of a field below a root field that already checked them (never anonymous there). */
export function reader(ctx: GraphQLContext): Principal {
  const p = caller(ctx);
  if (!p) throw errors.unauthenticated("Not authenticated");
  return p;
}

const EventPage = pageType("EventPage", EventType, "events");

const ImportCounts = builder.objectRef<{ created: number; updated: number; unchanged: number }>("ImportCounts").implement({
  description: "What an import did to the items of one kind",
  fields: (t) => ({
    created: t.exposeInt("created", { description: "Items created" }),
    updated: t.exposeInt("updated", { description: "Items changed" }),
    unchanged: t.exposeInt("unchanged", { description: "Items already as imported" }),
  }),
});

interface ImportOutcome {
  event: EventRecord;
  created: boolean;
  changed: boolean;
  attributes: { created: number; updated: number; unchanged: number };
  objects: { created: number; updated: number; unchanged: number };
  skipped: unknown[];
}

const ImportResult = builder.objectRef<ImportOutcome>("EventImportResult").implement({
  description: "What importing a MISP event did",
  fields: (t) => ({
    event: t.field({ type: EventType, description: "The event as stored", resolve: (r) => r.event }),
    created: t.exposeBoolean("created", { description: "True when the event was new" }),
    changed: t.exposeBoolean("changed", { description: "True when anything was created or changed" }),
    attributes: t.field({ type: ImportCounts, description: "What happened to its attributes", resolve: (r) => r.attributes }),
    objects: t.field({ type: ImportCounts, description: "What happened to its objects", resolve: (r) => r.objects }),
    skipped: t.field({
      type: "JSON",
      description: "Invalid attributes dropped with onInvalid: SKIP, each the MISP attribute as sent with the reason: JSON because it echoes the free-form input",
      resolve: (r) => r.skipped,
    }),
  }),
});

const OnInvalid = builder.enumType("ImportOnInvalid", {
  description: "What an import does with an invalid attribute",
  values: { REJECT: { description: "Refuse the whole event (the default)" }, SKIP: { description: "Drop the attribute and import the rest; the result lists it" } } as const,
});

const EventInput = builder.inputType("EventInput", {
  description: "Event fields. Create: info required. Update: the fields given",
  fields: (t) => ({
    info: t.string({ description: EVENT_DOC.info }),
    date: t.string({ description: `${EVENT_DOC.date} (default today)` }),
    threatLevel: t.int({ description: `${DOC.threatLevel} (default 4)` }),
    analysis: t.int({ description: `${DOC.analysis} (default 0)` }),
    distribution: t.int({ description: DOC.eventDistribution }),
    sharingGroupId: t.int({ description: `${DOC.sharingGroupId}, one your organisation belongs to; null clears it` }),
    published: t.boolean({ description: EVENT_DOC.published }),
    locked: t.boolean({ description: EVENT_DOC.locked }),
    protected: t.boolean({ description: EVENT_DOC.protected }),
    disableCorrelation: t.boolean({ description: EVENT_DOC.disableCorrelation }),
    extendsUuid: t.string({ description: "UUID of the event this one extends" }),
  }),
});

/** A written event as GraphQL returns it: read again with the selection's relations, as the caller may see it. */
const asStored = (ctx: GraphQLContext, info: GraphQLResolveInfo, uuid: string, path: string[] = []) =>
  ctx.services.events.findOne(caller(ctx), uuid, queryFromInfo({ context: ctx, info, path }));

builder.queryFields((t) => ({
  events: t.field({
    extensions: cost.page("size", 50),
    type: EventPage,
    description: "Readable events, newest change first (GET /events/)",
    args: {
      page: t.arg.int({ description: PAGE_DOC.page }),
      size: t.arg.int({ description: PAGE_DOC.size(50) }),
      info: t.arg.string({ description: "Part of the title, case-insensitive" }),
      uuid: t.arg.string({ description: "Only the event with this UUID" }),
      published: t.arg.boolean({ description: "Only published (true) or unpublished (false) events" }),
      deleted: t.arg.boolean({ description: "Omitted: soft-deleted events are listed too" }),
      tags: t.arg.stringList({ description: `Only events carrying every one of these tags (exact names, at most ${MAX_TAG_FILTERS})` }),
      orgId: t.arg.int({ description: "Only events owned by this organisation (its numeric id)" }),
    },
    resolve: (_r, a, ctx, info) =>
      ctx.services.events.findPage(
        caller(ctx),
        {
          info: a.info ?? undefined,
          uuid: a.uuid ? checkUuid(a.uuid, "uuid") : undefined,
          published: a.published ?? undefined,
          deleted: a.deleted ?? undefined,
          tags: a.tags ? checkTagFilter(a.tags) : undefined,
          orgId: a.orgId ?? undefined,
        },
        checkPage(a.page, a.size),
        queryFromInfo({ context: ctx, info, path: ["items"] }),
      ),
  }),
  event: t.field({
    type: EventType,
    description: "One readable event (a soft-deleted one too)",
    args: { uuid: t.arg.string({ required: true, description: EVENT_UUID }) },
    resolve: (_r, a, ctx, info) => ctx.services.events.findOne(caller(ctx), checkUuid(a.uuid, "uuid"), queryFromInfo({ context: ctx, info })),
  }),
  eventMispExport: t.field({
    type: "JSON",
    description: "The event in MISP JSON form ({Event: {...}}): JSON because it is MISP's own document format",
    args: { uuid: t.arg.string({ required: true, description: EVENT_UUID }) },
    resolve: (_r, a, ctx) => ctx.services.events.exportMisp(caller(ctx), checkUuid(a.uuid, "uuid")),
  }),
}));

builder.mutationFields((t) => ({
  createEvent: t.field({
    type: EventType,
    description: "Create an event owned by your organisation",
    args: { input: t.arg({ type: EventInput, required: true, description: "The event: info required" }), uuid: t.arg.string({ description: "Its UUID; omitted: a new one" }) },
    resolve: async (_r, a, ctx, info) => {
      const created = await ctx.services.events.create(caller(ctx), contractInput(eventCreateContract, { ...a.input, uuid: a.uuid }));
      return asStored(ctx, info, created.uuid);
    },
  }),
  updateEvent: t.field({
    type: EventType,
    description: "Change an event: only the fields given",
    args: { uuid: t.arg.string({ required: true, description: EVENT_UUID }), input: t.arg({ type: EventInput, required: true, description: "The fields to change" }) },
    resolve: async (_r, a, ctx, info) => {
      const updated = await ctx.services.events.update(caller(ctx), checkUuid(a.uuid, "uuid"), contractInput(eventUpdateContract, a.input));
      return asStored(ctx, info, updated.uuid);
    },
  }),
  deleteEvent: t.boolean({
    description: "Soft delete (restorable by restoreEvent); force: true deletes the event and everything in it for good",
    args: { uuid: t.arg.string({ required: true, description: EVENT_UUID }), force: t.arg.boolean({ defaultValue: false, description: "Delete for good instead of soft-deleting" }) },
    resolve: async (_r, a, ctx) => {
      await ctx.services.events.delete(caller(ctx), checkUuid(a.uuid, "uuid"), { force: a.force ?? false });
      return true;
    },
  }),
  restoreEvent: t.field({
    type: EventType,
    description: "Undoes a soft delete: the event and its attributes are searchable and correlated again",
    args: { uuid: t.arg.string({ required: true, description: EVENT_UUID }) },
    resolve: async (_r, a, ctx, info) => asStored(ctx, info, (await ctx.services.events.restore(caller(ctx), checkUuid(a.uuid, "uuid"))).uuid),
  }),
  setEventPublished: t.field({
    type: EventType,
    description: "Publish or unpublish an event",
    args: { uuid: t.arg.string({ required: true, description: EVENT_UUID }), published: t.arg.boolean({ required: true, description: "True publishes, false unpublishes" }) },
    resolve: async (_r, a, ctx, info) => asStored(ctx, info, (await ctx.services.events.setPublished(caller(ctx), checkUuid(a.uuid, "uuid"), a.published)).uuid),
  }),
  tagEvent: t.boolean({
    description: "Attach a tag to an event; true when done",
    args: { uuid: t.arg.string({ required: true, description: EVENT_UUID }), tag: t.arg.string({ required: true, description: DOC.tagArg }) },
    resolve: async (_r, a, ctx) => {
      await ctx.services.events.tag(caller(ctx), checkUuid(a.uuid, "uuid"), a.tag);
      return true;
    },
  }),
  untagEvent: t.boolean({
    description: "Detach a tag from an event; true when done",
    args: { uuid: t.arg.string({ required: true, description: EVENT_UUID }), tag: t.arg.string({ required: true, description: "The tag's name" }) },
    resolve: async (_r, a, ctx) => {
      await ctx.services.events.untag(caller(ctx), checkUuid(a.uuid, "uuid"), a.tag);
      return true;
    },
  }),
  importMispEvent: t.field({
    type: ImportResult,
    description: "Import a MISP event document: created, or updated in place by its uuid",
    args: {
      event: t.arg({ type: "JSON", required: true, description: "The MISP event ({Event: {...}} or the event itself): JSON because it is MISP's own document format" }),
      onInvalid: t.arg({ type: OnInvalid, defaultValue: "REJECT", description: "What to do with an invalid attribute" }),
    },
    resolve: async (_r, a, ctx, info) => {
      const { result, skipped, event } = await ctx.services.events.importMisp(caller(ctx), a.event, { skipInvalidAttributes: a.onInvalid === "SKIP" });
      return { event: await asStored(ctx, info, event.uuid, ["event"]), skipped, created: result.created, changed: result.changed, attributes: result.attributes, objects: result.objects };
    },
  }),
}));
