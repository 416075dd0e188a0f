import { builder, caller } from "../../graphql/builder.ts";
import { cost } from "../../graphql/cost-limits.ts";
import type { Role } from "../../generated/prisma/client.ts";
import { errors } from "../../platform/errors.ts";
import type { Whoami } from "../../auth/auth.service.ts";
import { checkSkipLimit } from "../../platform/paging.ts";

export const RoleType = builder.objectRef<Role>("Role").implement({
  fields: (t) => ({
    id: t.exposeInt("id"),
    name: t.exposeString("name"),
    scopes: t.exposeStringList("scopes"),
    defaultRole: t.exposeBoolean("defaultRole"),
    created: t.expose("created", { type: "DateTime" }),
    modified: t.expose("modified", { type: "DateTime" }),
  }),
});

const ScopeType = builder.objectRef<{ name: string; description: string }>("Scope").implement({
  fields: (t) => ({ name: t.exposeString("name"), description: t.exposeString("description") }),
});

const WhoamiType = builder.objectRef<Whoami>("Whoami").implement({
  description: "The caller's identity and effective scopes",
  fields: (t) => ({
    actorType: t.exposeString("actorType"),
    userId: t.exposeInt("userId", { nullable: true }),
    email: t.exposeString("email", { nullable: true }),
    orgId: t.exposeInt("orgId", { nullable: true }),
    roleId: t.exposeInt("roleId", { nullable: true }),
    credentialId: t.exposeInt("credentialId", { nullable: true }),
    scopes: t.exposeStringList("scopes"),
    expiresAt: t.expose("expiresAt", { type: "DateTime", nullable: true }),
  }),
});

builder.queryFields((t) => ({
  whoami: t.field({ type: WhoamiType, resolve: (_r, _a, ctx) => ctx.services.auth.whoami(caller(ctx)) }),
  scopes: t.field({
    type: [ScopeType],
    description: "Every scope the service knows (GET /auth/scopes)",
    resolve: (_r, _a, ctx) => {
      if (!caller(ctx)) throw errors.unauthenticated("Not authenticated");
      return Object.entries(ctx.services.roles.scopeCatalogue()).map(([name, description]) => ({ name, description }));
    },
  }),
  roles: t.field({
    extensions: cost.page("limit"),
    type: [RoleType],
    args: { skip: t.arg.int({ defaultValue: 0 }), limit: t.arg.int({ defaultValue: 100 }) },
    resolve: (_r, a, ctx) => ctx.services.roles.list(caller(ctx), checkSkipLimit(a)),
  }),
  role: t.field({
    type: RoleType,
    args: { id: t.arg.int({ required: true }) },
    resolve: (_r, a, ctx) => ctx.services.roles.get(caller(ctx), a.id),
  }),
}));

const RoleInput = builder.inputType("RoleInput", {
  fields: (t) => ({
    name: t.string({ required: true }),
    scopes: t.stringList({ required: true }),
    defaultRole: t.boolean(),
  }),
});

const RolePatch = builder.inputType("RolePatch", {
  fields: (t) => ({ name: t.string(), scopes: t.stringList(), defaultRole: t.boolean() }),
});

builder.mutationFields((t) => ({
  createRole: t.field({
    type: RoleType,
    args: { input: t.arg({ type: RoleInput, required: true }) },
    resolve: (_r, { input }, ctx) =>
      ctx.services.roles.create(caller(ctx), { name: input.name, scopes: input.scopes, defaultRole: input.defaultRole ?? undefined }),
  }),
  updateRole: t.field({
    type: RoleType,
    args: { id: t.arg.int({ required: true }), input: t.arg({ type: RolePatch, required: true }) },
    resolve: (_r, { id, input }, ctx) =>
      ctx.services.roles.update(caller(ctx), id, {
        name: input.name ?? undefined,
        scopes: input.scopes ?? undefined,
        defaultRole: input.defaultRole ?? undefined,
      }),
  }),
  deleteRole: t.boolean({
    args: { id: t.arg.int({ required: true }) },
    resolve: async (_r, { id }, ctx) => {
      await ctx.services.roles.delete(caller(ctx), id);
      return true;
    },
  }),
}));
