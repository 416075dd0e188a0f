import { builder, caller } from "../../graphql/builder.ts";
import { cost } from "../../graphql/cost-limits.ts";
import { errors } from "../../platform/errors.ts";
import { checkSkipLimit } from "../../platform/paging.ts";
import { OrganisationType } from "../organisations/organisations.graphql.ts";
import { RoleType } from "../roles/roles.graphql.ts";
import type { UserRecord } from "./users.service.ts";

const UserType = builder.objectRef<UserRecord>("User").implement({
  fields: (t) => ({
    id: t.exposeInt("id"),
    email: t.exposeString("email"),
    orgId: t.exposeInt("orgId"),
    roleId: t.exposeInt("roleId"),
    disabled: t.exposeBoolean("disabled"),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime" }),
    role: t.field({ type: RoleType, resolve: (u) => u.role }),
    organisation: t.field({ type: OrganisationType, resolve: (u) => u.organisation }),
  }),
});

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}$/;
const checkPassword = (p: string | null | undefined, field: string) => {
  if (p != null && (p.length < 8 || p.length > 1024)) throw errors.invalidField(["input", field], "must be 8 to 1024 characters");
  return p ?? undefined;
};
const checkEmail = (e: string | null | undefined) => {
  if (e != null && (!EMAIL.test(e) || e.length > 320)) throw errors.invalidField(["input", "email"], "Invalid e-mail address", e.slice(0, 320));
  return e ?? undefined;
};

const CreateUserInput = builder.inputType("CreateUserInput", {
  fields: (t) => ({
    email: t.string({ required: true }),
    orgId: t.int({ required: true }),
    roleId: t.int({ required: true }),
    password: t.string(),
    disabled: t.boolean(),
  }),
});

const UpdateUserInput = builder.inputType("UpdateUserInput", {
  fields: (t) => ({
    email: t.string(),
    orgId: t.int(),
    roleId: t.int(),
    password: t.string(),
    disabled: t.boolean(),
  }),
});

builder.queryFields((t) => ({
  me: t.field({ type: UserType, resolve: (_r, _a, ctx) => ctx.services.users.me(caller(ctx)) }),
  users: t.field({
    extensions: cost.page("limit", 100),
    type: [UserType],
    args: { skip: t.arg.int(), limit: t.arg.int() },
    resolve: (_r, a, ctx) => ctx.services.users.list(caller(ctx), checkSkipLimit(a)),
  }),
  user: t.field({
    type: UserType,
    args: { id: t.arg.int({ required: true }) },
    resolve: (_r, a, ctx) => ctx.services.users.get(caller(ctx), a.id),
  }),
}));

builder.mutationFields((t) => ({
  createUser: t.field({
    type: UserType,
    args: { input: t.arg({ type: CreateUserInput, required: true }) },
    resolve: (_r, { input }, ctx) =>
      ctx.services.users.create(caller(ctx), {
        email: checkEmail(input.email)!,
        orgId: input.orgId,
        roleId: input.roleId,
        password: checkPassword(input.password, "password"),
        disabled: input.disabled ?? undefined,
      }),
  }),
  updateUser: t.field({
    type: UserType,
    args: { id: t.arg.int({ required: true }), input: t.arg({ type: UpdateUserInput, required: true }) },
    resolve: (_r, { id, input }, ctx) =>
      ctx.services.users.update(caller(ctx), id, {
        email: checkEmail(input.email),
        orgId: input.orgId ?? undefined,
        roleId: input.roleId ?? undefined,
        password: checkPassword(input.password, "password"),
        disabled: input.disabled ?? undefined,
      }),
  }),
  changeOwnPassword: t.field({
    type: UserType,
    args: { currentPassword: t.arg.string({ required: true }), password: t.arg.string({ required: true }) },
    resolve: (_r, a, ctx) =>
      ctx.services.users.changeOwnPassword(caller(ctx), a.currentPassword, checkPassword(a.password, "password")!),
  }),
  deleteUser: t.boolean({
    args: { id: t.arg.int({ required: true }) },
    resolve: async (_r, { id }, ctx) => {
      await ctx.services.users.delete(caller(ctx), id);
      return true;
    },
  }),
}));
