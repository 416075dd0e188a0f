import { z } from "zod";
import { ROLE_DOC } from "./roles.docs.ts";

/**
 * The input contracts of role writes, in the service's vocabulary: the service checks its input
 * with them, REST derives its snake_case bodies, GraphQL checks RoleInput and RolePatch. Whether a
 * scope exists and whether the caller may grant it need the catalogue and the caller: the service.
 */
const name = z.string().trim().min(1).max(100).describe(`${ROLE_DOC.name}, 1 to 100 characters`);
const scopes = z.array(z.string().min(1).max(100)).max(500).describe(`${ROLE_DOC.scopes}; at most 500, repeats count once; you cannot grant scopes you do not hold`);
const defaultRole = z.boolean().optional().describe(ROLE_DOC.defaultRole);

export const roleCreateContract = z.object({ name, scopes, defaultRole }).strict();

/** PATCH: only what is given changes; scopes replace the list. */
export const rolePatchContract = z.object({ name: name.optional(), scopes: scopes.optional(), defaultRole }).strict();

export type RoleInput = z.input<typeof roleCreateContract>;
export type RolePatch = z.input<typeof rolePatchContract>;
