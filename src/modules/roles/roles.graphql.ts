import { builder, caller } from "../../graphql/builder.ts";
import { cost } from "../../graphql/cost-limits.ts";
import { queryFromInfo } from "@pothos/plugin-prisma";
import { errors } from "../../platform/errors.ts";
import type { Whoami } from "../../auth/auth.service.ts";
import { checkPageSize } from "../../platform/paging.ts";
import { DOC } from "../../graphql/docs.ts";
import { PAGE_DOC, pageType } from "../../graphql/page.ts";
import { contractInput } from "../../graphql/inputs.ts";
import { roleCreateContract, rolePatchContract } from "./roles.contracts.ts";
import { ROLE_DOC, ROLE_TYPES_DOC, SCOPE_DOC } from "./roles.docs.ts";

const ROLE_GQL = { ...ROLE_DOC, defaultRole: `${ROLE_DOC.defaultRole} (REST default_role)` } as const;

/** Every column is public to holders of roles:read: include mode, the whole row. */
export const RoleType = builder.prismaObject("Role", {
  name: "Role",
  description: ROLE_TYPES_DOC.Role,
  fields: (t) => ({
    id: t.exposeInt("id", { description: ROLE_DOC.id }),
    name: t.exposeString("name", { description: ROLE_DOC.name }),
    scopes: t.exposeStringList("scopes", { description: ROLE_DOC.scopes }),
    defaultRole: t.exposeBoolean("defaultRole", { description: ROLE_GQL.defaultRole }),
    created: t.expose("created", { type: "DateTime", description: DOC.createdAt }),
    modified: t.expose("modified", { type: "DateTime", description: DOC.updatedAt }),
  }),
});

const RolePage = pageType("RolePage", RoleType, "roles");

const ScopeType = builder.objectRef<{ name: string; description: string }>("Scope").implement({
  description: "A permission a role or API key can hold",
  fields: (t) => ({
    name: t.exposeString("name", { description: SCOPE_DOC.name }),
    description: t.exposeString("description", { description: SCOPE_DOC.description }),
  }),
});

const WhoamiType = builder.objectRef<Whoami>("Whoami").implement({
  description: "The caller's identity and effective scopes",
  fields: (t) => ({
    actorType: t.exposeString("actorType", { description: "What authenticated: user (a login token) or api_key (REST actor_type)" }),
    userId: t.exposeInt("userId", { nullable: true, description: "The user acting; null for a system actor" }),
    email: t.exposeString("email", { nullable: true, description: "The user's e-mail address" }),
    orgId: t.exposeInt("orgId", { nullable: true, description: "The user's organisation id" }),
    roleId: t.exposeInt("roleId", { nullable: true, description: "The user's role id" }),
    credentialId: t.exposeInt("credentialId", { nullable: true, description: "The API key's id when one authenticated; null for a login token" }),
    scopes: t.exposeStringList("scopes", { description: "Effective scopes: the role's, narrowed to the API key's or token's own when it has fewer" }),
    expiresAt: t.expose("expiresAt", { type: "DateTime", nullable: true, description: "When the credential expires; null if it does not" }),
  }),
});

builder.queryFields((t) => ({
  whoami: t.field({ type: WhoamiType, description: "The caller's identity and effective scopes (GET /auth/whoami)", resolve: (_r, _a, ctx) => ctx.services.auth.whoami(caller(ctx)) }),
  scopes: t.field({
    type: [ScopeType],
    description: "Every scope the service knows (GET /auth/scopes)",
    resolve: (_r, _a, ctx) => {
      if (!caller(ctx)) throw errors.unauthenticated("Not authenticated");
      return Object.entries(ctx.services.roles.scopeCatalogue()).map(([name, description]) => ({ name, description }));
    },
  }),
  roles: t.field({
    extensions: cost.page("size"),
    type: RolePage,
    description: "Roles by id (GET /roles/, which pages with skip/limit)",
    args: { page: t.arg.int({ defaultValue: 1, description: PAGE_DOC.page }), size: t.arg.int({ defaultValue: 100, description: PAGE_DOC.size(100) }) },
    resolve: (_r, a, ctx, info) => ctx.services.roles.listPage(caller(ctx), checkPageSize(a, 100), queryFromInfo({ context: ctx, info, path: ["items"] })),
  }),
  role: t.prismaField({
    type: RoleType,
    description: "Get a role (GET /roles/{role_id})",
    args: { id: t.arg.int({ required: true, description: DOC.roleId }) },
    resolve: (query, _r, a, ctx) => ctx.services.roles.get(caller(ctx), a.id, query),
  }),
}));

const RoleInput = builder.inputType("RoleInput", {
  description: "A new role (as POST /roles/)",
  fields: (t) => ({
    name: t.string({ required: true, description: ROLE_DOC.name }),
    scopes: t.stringList({ required: true, description: `${ROLE_DOC.scopes}; you cannot grant scopes you do not hold` }),
    defaultRole: t.boolean({ description: ROLE_GQL.defaultRole }),
  }),
});

const RolePatch = builder.inputType("RolePatch", {
  description: "Changes to a role (as PATCH /roles/{role_id}); omitted fields stay",
  fields: (t) => ({
    name: t.string({ description: ROLE_DOC.name }),
    scopes: t.stringList({ description: `${ROLE_DOC.scopes}; replaces the list` }),
    defaultRole: t.boolean({ description: ROLE_GQL.defaultRole }),
  }),
});

builder.mutationFields((t) => ({
  createRole: t.prismaField({
    type: RoleType,
    description: "Create a role (POST /roles/)",
    args: { input: t.arg({ type: RoleInput, required: true, description: "The new role" }) },
    resolve: (query, _r, { input }, ctx) => ctx.services.roles.create(caller(ctx), contractInput(roleCreateContract, input), query),
  }),
  updateRole: t.prismaField({
    type: RoleType,
    description: "Change a role (PATCH /roles/{role_id})",
    args: { id: t.arg.int({ required: true, description: DOC.roleId }), input: t.arg({ type: RolePatch, required: true, description: "The fields to change" }) },
    resolve: (query, _r, { id, input }, ctx) => ctx.services.roles.update(caller(ctx), id, contractInput(rolePatchContract, input), query),
  }),
  deleteRole: t.boolean({
    description: "Delete a role no user holds (DELETE /roles/{role_id}); true when done",
    args: { id: t.arg.int({ required: true, description: DOC.roleId }) },
    resolve: async (_r, { id }, ctx) => {
      await ctx.services.roles.delete(caller(ctx), id);
      return true;
    },
  }),
}));
