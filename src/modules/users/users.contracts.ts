import { z } from "zod";
import { USER_DOC } from "./users.docs.ts";

/**
 * The input contracts of user-account writes, in the service's vocabulary: the service checks its
 * input with them, REST derives its snake_case bodies, GraphQL checks CreateUserInput,
 * UpdateUserInput and changeOwnPassword's arguments. Whether the organisation and role exist, and
 * whether the caller may hand them out, need the stored rows and the caller: the service.
 */
const email = z.email().max(320).describe(`${USER_DOC.email}; at most 320 characters`);
const id = (doc: string) => z.number().int().min(1, "must be a positive integer").max(2_147_483_647, "must be at most 2147483647").describe(doc);
const password = z.string().min(8, "must be at least 8 characters").max(1024).describe(USER_DOC.password);
const disabled = z.boolean().optional();

export const userCreateContract = z
  .object({
    email,
    orgId: id(USER_DOC.orgId),
    roleId: id(USER_DOC.roleId),
    password: password.optional(),
    disabled: disabled.describe(`${USER_DOC.disabled} (default false)`),
  })
  .strict();

/** PATCH: only what is given changes; a new password, role, organisation or disabling ends the account's sessions. */
export const userPatchContract = z
  .object({
    email: email.optional(),
    orgId: id(USER_DOC.orgId).optional(),
    roleId: id(USER_DOC.roleId).optional(),
    disabled: disabled.describe(USER_DOC.disabled),
    password: password.optional(),
  })
  .strict();

/** Self-service: the current password proves the caller is the account's owner. */
export const ownPasswordContract = z
  .object({
    currentPassword: z.string().min(1).max(1024).describe("Your current password"),
    password: password.describe("The new password, 8 to 1024 characters"),
  })
  .strict();

export type CreateUserInput = z.input<typeof userCreateContract>;
export type UpdateUserInput = z.input<typeof userPatchContract>;
export type OwnPasswordChange = z.input<typeof ownPasswordContract>;
