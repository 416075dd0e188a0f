import { builder, caller, type GraphQLContext } from "../../graphql/builder.ts";
import { cost } from "../../graphql/cost-limits.ts";
import { checkPageSize } from "../../platform/paging.ts";
import { DOC } from "../../graphql/docs.ts";
import { PAGE_DOC, pageType } from "../../graphql/page.ts";
import { queryFromInfo } from "@pothos/plugin-prisma";
import { OrganisationType } from "../organisations/organisations.graphql.ts";
import { RoleType } from "../roles/roles.graphql.ts";
import { usersCountedFor } from "./users.policy.ts";
import { contractInput } from "../../graphql/inputs.ts";
import { ownPasswordContract, userCreateContract, userPatchContract } from "./users.contracts.ts";
import { USER_DOC, USER_TYPES_DOC } from "./users.docs.ts";

const USER_GQL = {
  ...USER_DOC,
  orgId: `${USER_DOC.orgId} (REST org_id)`,
  roleId: `${USER_DOC.roleId} (REST role_id)`,
} as const;

/**
 * Select mode: a user row holds only the columns the query's fields expose, so the password hash
 * and the token generation are never even loaded. Rows come from the users service, which applies
 * who may see which account; a visible account's role and organisation are visible with it (as
 * REST embeds them), loaded in the same statement as the users.
 */
const UserType = builder.prismaObject("User", {
  name: "User",
  description: USER_TYPES_DOC.User,
  select: { id: true },
  fields: (t) => ({
    id: t.exposeInt("id", { description: USER_DOC.id }),
    email: t.exposeString("email", { description: USER_DOC.email }),
    orgId: t.exposeInt("orgId", { description: USER_GQL.orgId }),
    roleId: t.exposeInt("roleId", { description: USER_GQL.roleId }),
    disabled: t.exposeBoolean("disabled", { description: USER_DOC.disabled }),
    createdAt: t.expose("createdAt", { type: "DateTime", description: DOC.createdAt }),
    updatedAt: t.expose("updatedAt", { type: "DateTime", description: DOC.updatedAt }),
    role: t.relation("role", { description: USER_DOC.role }),
    organisation: t.relation("organisation", { description: USER_DOC.organisation }),
  }),
});

/**
 * Users counted beside an organisation or a role: only the accounts the caller may list (the users
 * policy, in the count's own query), so a count says nothing about another organisation's accounts.
 */
const USER_COUNT_DOC = "Number of its users the caller may list: every account for administrators, their own organisation's for other holders of users:read, 0 without users:read";
const countedUsers = (_args: object, ctx: GraphQLContext) => usersCountedFor(ctx.authError ? null : ctx.principal);

builder.prismaObjectField(OrganisationType, "userCount", (t) => t.relationCount("users", { description: USER_COUNT_DOC, where: countedUsers }));
builder.prismaObjectField(RoleType, "userCount", (t) => t.relationCount("users", { description: USER_COUNT_DOC, where: countedUsers }));

const UserPage = pageType("UserPage", UserType, "users");

const CreateUserInput = builder.inputType("CreateUserInput", {
  description: "A new user account (as POST /users/)",
  fields: (t) => ({
    email: t.string({ required: true, description: USER_DOC.email }),
    orgId: t.int({ required: true, description: USER_GQL.orgId }),
    roleId: t.int({ required: true, description: USER_GQL.roleId }),
    password: t.string({ description: USER_DOC.password }),
    disabled: t.boolean({ description: `${USER_DOC.disabled} (default false)` }),
  }),
});

const UpdateUserInput = builder.inputType("UpdateUserInput", {
  description: "Changes to a user account (as PATCH /users/{user_id}); omitted fields stay",
  fields: (t) => ({
    email: t.string({ description: USER_DOC.email }),
    orgId: t.int({ description: USER_GQL.orgId }),
    roleId: t.int({ description: USER_GQL.roleId }),
    password: t.string({ description: USER_DOC.password }),
    disabled: t.boolean({ description: USER_DOC.disabled }),
  }),
});

builder.queryFields((t) => ({
  me: t.prismaField({ type: UserType, description: "The caller's own account (GET /users/me)", resolve: (query, _r, _a, ctx) => ctx.services.users.me(caller(ctx), query) }),
  users: t.field({
    extensions: cost.page("size", 50),
    type: UserPage,
    description: "List users (administrators: all; others: own organisation), by id (GET /users/, which pages with skip/limit)",
    args: { page: t.arg.int({ description: PAGE_DOC.page }), size: t.arg.int({ description: PAGE_DOC.size(50) }) },
    resolve: (_r, a, ctx, info) => ctx.services.users.listPage(caller(ctx), checkPageSize(a, 50), queryFromInfo({ context: ctx, info, path: ["items"] })),
  }),
  user: t.prismaField({
    type: UserType,
    description: "Get a user (GET /users/{user_id})",
    args: { id: t.arg.int({ required: true, description: DOC.userId }) },
    resolve: (query, _r, a, ctx) => ctx.services.users.get(caller(ctx), a.id, query),
  }),
}));

builder.mutationFields((t) => ({
  createUser: t.prismaField({
    type: UserType,
    description: "Create a user (POST /users/)",
    args: { input: t.arg({ type: CreateUserInput, required: true, description: "The new account" }) },
    resolve: (query, _r, { input }, ctx) => ctx.services.users.create(caller(ctx), contractInput(userCreateContract, input), query),
  }),
  updateUser: t.prismaField({
    type: UserType,
    description: "Update a user (email, organisation, role, disabled, password), as PATCH /users/{user_id}",
    args: { id: t.arg.int({ required: true, description: DOC.userId }), input: t.arg({ type: UpdateUserInput, required: true, description: "The fields to change" }) },
    resolve: (query, _r, { id, input }, ctx) => ctx.services.users.update(caller(ctx), id, contractInput(userPatchContract, input), query),
  }),
  changeOwnPassword: t.prismaField({
    type: UserType,
    description: "Change your own password (current password required), as PATCH /users/me",
    args: {
      currentPassword: t.arg.string({ required: true, description: "Your current password (REST current_password)" }),
      password: t.arg.string({ required: true, description: "The new password, 8 to 1024 characters" }),
    },
    resolve: (query, _r, a, ctx) => ctx.services.users.changeOwnPassword(caller(ctx), contractInput(ownPasswordContract, a), query),
  }),
  deleteUser: t.boolean({
    description: "Delete a user (DELETE /users/{user_id}); true when done",
    args: { id: t.arg.int({ required: true, description: DOC.userId }) },
    resolve: async (_r, { id }, ctx) => {
      await ctx.services.users.delete(caller(ctx), id);
      return true;
    },
  }),
}));
