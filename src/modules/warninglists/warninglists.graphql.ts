import { queryFromInfo } from "@pothos/plugin-prisma";
import { builder, caller } from "../../graphql/builder.ts";
import { cost } from "../../graphql/cost-limits.ts";
import { contractInput } from "../../graphql/inputs.ts";
import { DOC } from "../../graphql/docs.ts";
import { PAGE_DOC } from "../../graphql/page.ts";
import type { Warning } from "./matchers.ts";
import { ENTRY_PAGE_DEFAULT, ENTRY_PAGE_MAX, WARNINGLIST_PAGE_DEFAULT, WARNINGLIST_PAGE_MAX, warninglistEntriesContract, warninglistFlagsContract, warninglistListContract } from "./warninglists.contracts.ts";
import { WARNING_DOC as W, WARNINGLIST_DOC as L, WARNINGLIST_TYPES_DOC, WARNINGLIST_UPDATE_DOC as U } from "./warninglists.docs.ts";
import type { WarninglistPage, WarninglistUpdateResult } from "./warninglists.service.ts";

const rest = (doc: string, name: string) => `${doc} (REST ${name})`;

/** A hit on an attribute (Attribute.warnings). */
const WarningType = builder.objectRef<Warning>("Warning").implement({
  description: WARNINGLIST_TYPES_DOC.Warning,
  fields: (t) => ({
    id: t.exposeInt("id", { description: W.id }),
    name: t.exposeString("name", { description: W.name }),
  }),
});

/** The stored jsonb as hits. */
const warningsOf = (stored: unknown): Warning[] => (Array.isArray(stored) ? (stored as Warning[]).map((w) => ({ id: w.id, name: w.name })) : []);

builder.prismaObjectField("Attribute", "warnings", (t) =>
  t.field({ type: [WarningType], description: W.warnings, select: { warnings: true }, resolve: (a) => warningsOf(a.warnings) }),
);

export const WarninglistType = builder.prismaObject("Warninglist", {
  description: WARNINGLIST_TYPES_DOC.Warninglist,
  fields: (t) => ({
    id: t.exposeInt("id", { description: L.id }),
    name: t.exposeString("name", { description: L.name }),
    version: t.exposeInt("version", { description: L.version }),
    description: t.exposeString("description", { description: L.description }),
    type: t.exposeString("type", { description: L.type }),
    matchingAttributes: t.exposeStringList("matchingAttributes", { description: rest(L.matchingAttributes, "matching_attributes") }),
    enabled: t.exposeBoolean("enabled", { description: L.enabled }),
    entryCount: t.exposeInt("entryCount", { description: rest(L.entryCount, "entry_count") }),
    createdAt: t.expose("createdAt", { type: "DateTime", description: DOC.createdAt }),
    updatedAt: t.expose("updatedAt", { type: "DateTime", description: DOC.updatedAt }),
    entries: t.stringList({
      description: L.entries,
      extensions: cost.page("size"),
      select: { id: true },
      args: {
        page: t.arg.int({ defaultValue: 1, description: "Page of entries, from 1" }),
        size: t.arg.int({ defaultValue: ENTRY_PAGE_DEFAULT, description: PAGE_DOC.size(ENTRY_PAGE_DEFAULT, ENTRY_PAGE_MAX) }),
      },
      resolve: (w, a, ctx) => ctx.services.warninglists.entries(caller(ctx), w.id, contractInput(warninglistEntriesContract, a)),
    }),
  }),
});

const WarninglistPageType = builder.objectRef<WarninglistPage>("WarninglistPage").implement({
  description: "One page of warninglists, with the filters asked for",
  fields: (t) => ({
    items: t.field({ type: [WarninglistType], description: PAGE_DOC.items, resolve: (p) => p.items }),
    total: t.exposeInt("total", { description: PAGE_DOC.total }),
    page: t.exposeInt("page", { description: PAGE_DOC.pageField }),
    size: t.exposeInt("size", { description: PAGE_DOC.sizeField }),
    pages: t.exposeInt("pages", { description: PAGE_DOC.pages }),
    name: t.string({ nullable: true, description: "The name filter asked for; null if none", resolve: (p) => p.query.name }),
    type: t.string({ nullable: true, description: "The type filter asked for; null if none", resolve: (p) => p.query.type }),
    enabled: t.boolean({ nullable: true, description: "The enabled filter asked for; null if none", resolve: (p) => p.query.enabled }),
  }),
});

const RefusedEntryType = builder.objectRef<WarninglistUpdateResult["refused"][number]>("WarninglistRefusedEntry").implement({
  description: "An entry an import left out",
  fields: (t) => ({
    list: t.exposeString("list", { description: "Name of its list" }),
    entry: t.exposeString("entry", { description: "The entry (at most 200 characters)" }),
    reason: t.exposeString("reason", { description: "Why it was left out" }),
  }),
});

const WarninglistUpdateResultType = builder.objectRef<WarninglistUpdateResult>("WarninglistUpdateResult").implement({
  description: WARNINGLIST_TYPES_DOC.WarninglistUpdateResult,
  fields: (t) => ({
    lists: t.exposeInt("lists", { description: U.lists }),
    listsCreated: t.exposeInt("lists_created", { description: rest(U.lists_created, "lists_created") }),
    listsChanged: t.exposeInt("lists_changed", { description: rest(U.lists_changed, "lists_changed") }),
    entries: t.exposeInt("entries", { description: U.entries }),
    entriesRefused: t.exposeInt("entries_refused", { description: rest(U.entries_refused, "entries_refused") }),
    refused: t.field({ type: [RefusedEntryType], description: U.refused, resolve: (r) => r.refused }),
    tookMs: t.exposeInt("took_ms", { description: rest(U.took_ms, "took_ms") }),
  }),
});

builder.queryFields((t) => ({
  warninglists: t.field({
    extensions: cost.page("size"),
    type: WarninglistPageType,
    description: "Warninglists (GET /warninglists/): name is a substring of the name; type and enabled filter",
    args: {
      page: t.arg.int({ defaultValue: 1, description: PAGE_DOC.page }),
      size: t.arg.int({ defaultValue: WARNINGLIST_PAGE_DEFAULT, description: PAGE_DOC.size(WARNINGLIST_PAGE_DEFAULT, WARNINGLIST_PAGE_MAX) }),
      name: t.arg.string({ description: "Part of the name, case-insensitive (at most 255 characters)" }),
      type: t.arg.string({ description: "Only lists of this type: string, substring, hostname, cidr or regex" }),
      enabled: t.arg.boolean({ description: "Only enabled (true) or disabled (false) lists; omitted: both" }),
    },
    resolve: (_r, a, ctx, info) =>
      ctx.services.warninglists.list(caller(ctx), contractInput(warninglistListContract, a), queryFromInfo({ context: ctx, info, path: ["items"] })),
  }),
  warninglist: t.prismaField({
    type: "Warninglist",
    description: "One warninglist by id (GET /warninglists/{id})",
    args: { id: t.arg.int({ required: true, description: "Numeric id of the warninglist" }) },
    resolve: (query, _r, a, ctx) => ctx.services.warninglists.getSelected(caller(ctx), a.id, query),
  }),
}));

builder.mutationFields((t) => ({
  updateWarninglists: t.field({
    type: WarninglistUpdateResultType,
    description: "Import or refresh every warninglist of WARNINGLISTS_SOURCE (POST /warninglists/update)",
    resolve: (_r, _a, ctx) => ctx.services.warninglists.update(caller(ctx)),
  }),
  setWarninglistEnabled: t.prismaField({
    type: "Warninglist",
    description: "Enable or disable a warninglist (PATCH /warninglists/{id}); existing attributes' hits are recomputed in the background",
    args: {
      id: t.arg.int({ required: true, description: "Numeric id of the warninglist" }),
      enabled: t.arg.boolean({ required: true, description: "True enables, false disables" }),
    },
    resolve: async (query, _r, { id, ...flags }, ctx) => {
      const p = caller(ctx);
      await ctx.services.warninglists.setFlags(p, id, contractInput(warninglistFlagsContract, flags));
      return ctx.services.warninglists.getSelected(p, id, query);
    },
  }),
}));
