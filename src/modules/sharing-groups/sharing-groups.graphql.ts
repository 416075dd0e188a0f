import { queryFromInfo } from "@pothos/plugin-prisma";
import { builder, caller } from "../../graphql/builder.ts";
import { cost } from "../../graphql/cost-limits.ts";
import { contractInput } from "../../graphql/inputs.ts";
import { PAGE_DOC, pageType } from "../../graphql/page.ts";
import { checkPageSize } from "../../platform/paging.ts";
import { memberContract, sharingGroupCreateContract, sharingGroupPatchContract } from "./sharing-groups.contracts.ts";
import { SHARING_GROUP_DOC as D } from "./sharing-groups.docs.ts";

builder.prismaObject("SharingGroupOrg", {
  name: "SharingGroupMember",
  description: "A member organisation of a sharing group",
  fields: (t) => ({
    orgId: t.exposeInt("orgId", { description: `${D.memberOrgId} (REST org_id)` }),
    extend: t.exposeBoolean("extend", { description: D.extend }),
    organisation: t.relation("org", { description: "The member organisation" }),
  }),
});

const SharingGroupType = builder.prismaObject("SharingGroup", {
  description: "A sharing group: data of distribution 4 naming it is readable by its organisations (GET /sharing_groups/)",
  fields: (t) => ({
    id: t.exposeInt("id", { description: D.id }),
    uuid: t.exposeString("uuid", { description: D.uuid }),
    name: t.exposeString("name", { description: D.name }),
    releasability: t.exposeString("releasability", { description: D.releasability }),
    description: t.exposeString("description", { description: D.description }),
    orgId: t.exposeInt("orgId", { description: `${D.orgId} (REST org_id)` }),
    organisation: t.relation("org", { description: "The owning organisation" }),
    active: t.exposeBoolean("active", { description: D.active }),
    local: t.exposeBoolean("local", { description: D.local }),
    roaming: t.exposeBoolean("roaming", { description: D.roaming }),
    members: t.relation("members", { description: `${D.members} (REST sharing_group_orgs)`, query: { orderBy: { orgId: "asc" } } }),
    createdAt: t.expose("createdAt", { type: "DateTime", description: `${D.createdAt} (REST created_at)` }),
    updatedAt: t.expose("updatedAt", { type: "DateTime", description: `${D.updatedAt} (REST updated_at)` }),
  }),
});

const SharingGroupPage = pageType("SharingGroupPage", SharingGroupType, "sharing groups");

const MemberInput = builder.inputType("SharingGroupMemberInput", {
  description: "A member organisation of a sharing group",
  fields: (t) => ({
    orgId: t.int({ required: true, description: D.memberOrgId }),
    extend: t.boolean({ description: `${D.extend} (default false)` }),
  }),
});

const SharingGroupInput = builder.inputType("SharingGroupInput", {
  description: "A new sharing group (as POST /sharing_groups/)",
  fields: (t) => ({
    name: t.string({ required: true, description: D.name }),
    uuid: t.string({ description: `${D.uuid}; omitted: a new one` }),
    orgId: t.int({ description: "The owning organisation (administrators only; default: yours)" }),
    releasability: t.string({ description: D.releasability }),
    description: t.string({ description: D.description }),
    active: t.boolean({ description: `${D.active} (default true)` }),
    roaming: t.boolean({ description: `${D.roaming} (default false)` }),
    members: t.field({ type: [MemberInput], description: "Member organisations besides the owner (REST sharing_group_orgs)" }),
  }),
});

const SharingGroupPatch = builder.inputType("SharingGroupPatch", {
  description: "Changes to a sharing group (as PATCH /sharing_groups/{id}); omitted fields stay",
  fields: (t) => ({
    name: t.string({ description: D.name }),
    releasability: t.string({ description: D.releasability }),
    description: t.string({ description: D.description }),
    active: t.boolean({ description: D.active }),
    roaming: t.boolean({ description: D.roaming }),
  }),
});

const GROUP_ID = "The sharing group's numeric id";

builder.queryFields((t) => ({
  sharingGroups: t.field({
    extensions: cost.page("size", 50),
    type: SharingGroupPage,
    description: "The sharing groups your organisation owns or belongs to (administrators: all), by id (GET /sharing_groups/)",
    args: { page: t.arg.int({ description: PAGE_DOC.page }), size: t.arg.int({ description: PAGE_DOC.size(50) }) },
    resolve: (_r, a, ctx, info) =>
      ctx.services.sharingGroups.listPage(caller(ctx), checkPageSize({ page: a.page, size: a.size }, 50), queryFromInfo({ context: ctx, info, path: ["items"] })),
  }),
  sharingGroup: t.prismaField({
    type: "SharingGroup",
    description: "One sharing group you may see (GET /sharing_groups/{id})",
    args: { id: t.arg.int({ required: true, description: GROUP_ID }) },
    resolve: (query, _r, a, ctx) => ctx.services.sharingGroups.get(caller(ctx), a.id, query),
  }),
}));

builder.mutationFields((t) => ({
  createSharingGroup: t.prismaField({
    type: "SharingGroup",
    description: "Create a sharing group owned by your organisation, with its members (POST /sharing_groups/)",
    args: { input: t.arg({ type: SharingGroupInput, required: true, description: "The sharing group: name required" }) },
    resolve: (query, _r, a, ctx) => {
      const input = contractInput(sharingGroupCreateContract, { ...a.input, members: a.input.members?.map((m, i) => contractInput(memberContract, m, ["members", i])) });
      return ctx.services.sharingGroups.create(caller(ctx), input, query);
    },
  }),
  updateSharingGroup: t.prismaField({
    type: "SharingGroup",
    description: "Change a sharing group (the owner; PATCH /sharing_groups/{id})",
    args: { id: t.arg.int({ required: true, description: GROUP_ID }), input: t.arg({ type: SharingGroupPatch, required: true, description: "The fields to change" }) },
    resolve: (query, _r, a, ctx) => ctx.services.sharingGroups.update(caller(ctx), a.id, contractInput(sharingGroupPatchContract, a.input), query),
  }),
  addSharingGroupOrganisation: t.prismaField({
    type: "SharingGroup",
    description: "Add an organisation to a sharing group or change its extend flag (the owner, or a member allowed to extend; POST /sharing_groups/{id}/organisations)",
    args: { id: t.arg.int({ required: true, description: GROUP_ID }), input: t.arg({ type: MemberInput, required: true, description: "The organisation to add" }) },
    resolve: (query, _r, a, ctx) => ctx.services.sharingGroups.addMember(caller(ctx), a.id, contractInput(memberContract, a.input), query),
  }),
  removeSharingGroupOrganisation: t.boolean({
    description: "Remove a member organisation (the owner); true when done",
    args: { id: t.arg.int({ required: true, description: GROUP_ID }), orgId: t.arg.int({ required: true, description: "The member organisation's numeric id" }) },
    resolve: async (_r, a, ctx) => {
      await ctx.services.sharingGroups.removeMember(caller(ctx), a.id, a.orgId);
      return true;
    },
  }),
  deleteSharingGroup: t.boolean({
    description: "Delete a sharing group no data uses (the owner); true when done",
    args: { id: t.arg.int({ required: true, description: GROUP_ID }) },
    resolve: async (_r, a, ctx) => {
      await ctx.services.sharingGroups.delete(caller(ctx), a.id);
      return true;
    },
  }),
}));
