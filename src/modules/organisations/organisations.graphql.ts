import { builder, caller } from "../../graphql/builder.ts";
import { cost } from "../../graphql/cost-limits.ts";
import type { Organisation } from "../../generated/prisma/client.ts";
import { errors } from "../../platform/errors.ts";
import { checkSkipLimit } from "../../platform/paging.ts";

export const OrganisationType = builder.objectRef<Organisation>("Organisation").implement({
  fields: (t) => ({
    id: t.exposeInt("id"),
    uuid: t.exposeString("uuid"),
    name: t.exposeString("name"),
    description: t.exposeString("description", { nullable: true }),
    type: t.exposeString("type", { nullable: true }),
    nationality: t.exposeString("nationality", { nullable: true }),
    sector: t.exposeString("sector", { nullable: true }),
    contacts: t.exposeString("contacts", { nullable: true }),
    local: t.exposeBoolean("local"),
    restrictedToDomain: t.exposeStringList("restrictedToDomain"),
    landingPage: t.exposeString("landingPage", { nullable: true }),
    createdBy: t.exposeInt("createdBy", { nullable: true }),
    dateCreated: t.expose("dateCreated", { type: "DateTime" }),
    dateModified: t.expose("dateModified", { type: "DateTime" }),
  }),
});

const OrganisationInput = builder.inputType("OrganisationInput", {
  fields: (t) => ({
    name: t.string({ required: true }),
    uuid: t.string(),
    description: t.string(),
    type: t.string(),
    nationality: t.string(),
    sector: t.string(),
    contacts: t.string(),
    local: t.boolean(),
    restrictedToDomain: t.stringList(),
    landingPage: t.string(),
  }),
});

const OrganisationPatch = builder.inputType("OrganisationPatch", {
  fields: (t) => ({
    name: t.string(),
    description: t.string(),
    type: t.string(),
    nationality: t.string(),
    sector: t.string(),
    contacts: t.string(),
    local: t.boolean(),
    restrictedToDomain: t.stringList(),
    landingPage: t.string(),
  }),
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const orgKey = (a: { id?: number | null; uuid?: string | null }): number | string => {
  if (a.id != null) return a.id;
  if (a.uuid != null && UUID.test(a.uuid)) return a.uuid.toLowerCase();
  throw errors.invalidField(["args"], "Give id or a valid uuid");
};

const undefinedIfNull = <T extends object>(o: T) =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null && v !== undefined)) as { [K in keyof T]?: NonNullable<T[K]> };

builder.queryFields((t) => ({
  organisations: t.field({
    extensions: cost.page("limit", 100),
    type: [OrganisationType],
    args: { skip: t.arg.int(), limit: t.arg.int() },
    resolve: (_r, a, ctx) => ctx.services.organisations.list(caller(ctx), checkSkipLimit(a)),
  }),
  organisation: t.field({
    type: OrganisationType,
    args: { id: t.arg.int(), uuid: t.arg.string() },
    resolve: (_r, a, ctx) => ctx.services.organisations.get(caller(ctx), orgKey(a)),
  }),
}));

builder.mutationFields((t) => ({
  createOrganisation: t.field({
    type: OrganisationType,
    args: { input: t.arg({ type: OrganisationInput, required: true }) },
    resolve: (_r, { input }, ctx) => {
      if (input.uuid != null && !UUID.test(input.uuid)) throw errors.invalidField(["input", "uuid"], "Invalid UUID", input.uuid);
      return ctx.services.organisations.create(caller(ctx), { ...undefinedIfNull(input), name: input.name, uuid: input.uuid?.toLowerCase() });
    },
  }),
  updateOrganisation: t.field({
    type: OrganisationType,
    args: { id: t.arg.int({ required: true }), input: t.arg({ type: OrganisationPatch, required: true }) },
    resolve: (_r, { id, input }, ctx) => ctx.services.organisations.update(caller(ctx), id, undefinedIfNull(input)),
  }),
  deleteOrganisation: t.boolean({
    args: { id: t.arg.int(), uuid: t.arg.string() },
    resolve: async (_r, a, ctx) => {
      await ctx.services.organisations.delete(caller(ctx), orgKey(a));
      return true;
    },
  }),
}));
