import { builder, caller } from "../../graphql/builder.ts";
import { cost } from "../../graphql/cost-limits.ts";
import { queryFromInfo } from "@pothos/plugin-prisma";
import { errors } from "../../platform/errors.ts";
import { checkPageSize } from "../../platform/paging.ts";
import { DOC } from "../../graphql/docs.ts";
import { PAGE_DOC, pageType } from "../../graphql/page.ts";
import { contractInput } from "../../graphql/inputs.ts";
import { organisationCreateContract, organisationPatchContract } from "./organisations.contracts.ts";
import { ORG_DOC, ORG_TYPES_DOC } from "./organisations.docs.ts";

const ORG_GQL = {
  ...ORG_DOC,
  restrictedToDomain: `${ORG_DOC.restrictedToDomain} (REST restricted_to_domain)`,
  landingPage: `${ORG_DOC.landingPage} (REST landing_page)`,
  createdBy: `${ORG_DOC.createdBy} (REST created_by)`,
} as const;

/** Every column is public (MISP shares organisations freely): include mode, the whole row. */
export const OrganisationType = builder.prismaObject("Organisation", {
  name: "Organisation",
  description: ORG_TYPES_DOC.Organisation,
  fields: (t) => ({
    id: t.exposeInt("id", { description: ORG_DOC.id }),
    uuid: t.exposeString("uuid", { description: ORG_DOC.uuid }),
    name: t.exposeString("name", { description: ORG_DOC.name }),
    description: t.exposeString("description", { nullable: true, description: ORG_DOC.description }),
    type: t.exposeString("type", { nullable: true, description: ORG_DOC.type }),
    nationality: t.exposeString("nationality", { nullable: true, description: ORG_DOC.nationality }),
    sector: t.exposeString("sector", { nullable: true, description: ORG_DOC.sector }),
    contacts: t.exposeString("contacts", { nullable: true, description: ORG_DOC.contacts }),
    local: t.exposeBoolean("local", { description: ORG_DOC.local }),
    restrictedToDomain: t.exposeStringList("restrictedToDomain", { description: ORG_GQL.restrictedToDomain }),
    landingPage: t.exposeString("landingPage", { nullable: true, description: ORG_GQL.landingPage }),
    createdBy: t.exposeInt("createdBy", { nullable: true, description: ORG_GQL.createdBy }),
    dateCreated: t.expose("dateCreated", { type: "DateTime", description: `${DOC.createdAt} (REST date_created)` }),
    dateModified: t.expose("dateModified", { type: "DateTime", description: `${DOC.updatedAt} (REST date_modified)` }),
  }),
});

const OrganisationPage = pageType("OrganisationPage", OrganisationType, "organisations");

const OrganisationInput = builder.inputType("OrganisationInput", {
  description: "A new organisation (as POST /organisations/)",
  fields: (t) => ({
    name: t.string({ required: true, description: ORG_DOC.name }),
    uuid: t.string({ description: `${ORG_DOC.uuid}; omitted: a new one` }),
    description: t.string({ description: ORG_DOC.description }),
    type: t.string({ description: ORG_DOC.type }),
    nationality: t.string({ description: ORG_DOC.nationality }),
    sector: t.string({ description: ORG_DOC.sector }),
    contacts: t.string({ description: ORG_DOC.contacts }),
    local: t.boolean({ description: `${ORG_DOC.local} (default true)` }),
    restrictedToDomain: t.stringList({ description: ORG_GQL.restrictedToDomain }),
    landingPage: t.string({ description: ORG_GQL.landingPage }),
  }),
});

const OrganisationPatch = builder.inputType("OrganisationPatch", {
  description: "Changes to an organisation (as PATCH /organisations/{id}); omitted fields stay",
  fields: (t) => ({
    name: t.string({ description: ORG_DOC.name }),
    description: t.string({ description: ORG_DOC.description }),
    type: t.string({ description: ORG_DOC.type }),
    nationality: t.string({ description: ORG_DOC.nationality }),
    sector: t.string({ description: ORG_DOC.sector }),
    contacts: t.string({ description: ORG_DOC.contacts }),
    local: t.boolean({ description: ORG_DOC.local }),
    restrictedToDomain: t.stringList({ description: ORG_GQL.restrictedToDomain }),
    landingPage: t.string({ description: ORG_GQL.landingPage }),
  }),
});

const ORG_KEY_ARGS = { id: "Numeric id of the organisation (give id or uuid)", uuid: "UUID of the organisation (give id or uuid)" } as const;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const orgKey = (a: { id?: number | null; uuid?: string | null }): number | string => {
  if (a.id != null) return a.id;
  if (a.uuid != null && UUID.test(a.uuid)) return a.uuid.toLowerCase();
  throw errors.invalidField(["args"], "Give id or a valid uuid");
};

builder.queryFields((t) => ({
  organisations: t.field({
    extensions: cost.page("size", 50),
    type: OrganisationPage,
    description: "Organisations by id (GET /organisations/, which pages with skip/limit)",
    args: { page: t.arg.int({ description: PAGE_DOC.page }), size: t.arg.int({ description: PAGE_DOC.size(50) }) },
    resolve: (_r, a, ctx, info) => ctx.services.organisations.listPage(caller(ctx), checkPageSize(a, 50), queryFromInfo({ context: ctx, info, path: ["items"] })),
  }),
  organisation: t.prismaField({
    type: OrganisationType,
    description: "One organisation by id or uuid (GET /organisations/{id})",
    args: { id: t.arg.int({ description: ORG_KEY_ARGS.id }), uuid: t.arg.string({ description: ORG_KEY_ARGS.uuid }) },
    resolve: (query, _r, a, ctx) => ctx.services.organisations.get(caller(ctx), orgKey(a), query),
  }),
}));

builder.mutationFields((t) => ({
  createOrganisation: t.prismaField({
    type: OrganisationType,
    description: "Create an organisation (POST /organisations/)",
    args: { input: t.arg({ type: OrganisationInput, required: true, description: "The new organisation" }) },
    resolve: (query, _r, { input }, ctx) => ctx.services.organisations.create(caller(ctx), contractInput(organisationCreateContract, input), query),
  }),
  updateOrganisation: t.prismaField({
    type: OrganisationType,
    description: "Change an organisation (PATCH /organisations/{id})",
    args: { id: t.arg.int({ required: true, description: DOC.orgId }), input: t.arg({ type: OrganisationPatch, required: true, description: "The fields to change" }) },
    resolve: (query, _r, { id, input }, ctx) => ctx.services.organisations.update(caller(ctx), id, contractInput(organisationPatchContract, input), query),
  }),
  deleteOrganisation: t.boolean({
    description: "Delete an organisation that has no users (DELETE /organisations/{id}); true when done",
    args: { id: t.arg.int({ description: ORG_KEY_ARGS.id }), uuid: t.arg.string({ description: ORG_KEY_ARGS.uuid }) },
    resolve: async (_r, a, ctx) => {
      await ctx.services.organisations.delete(caller(ctx), orgKey(a));
      return true;
    },
  }),
}));
