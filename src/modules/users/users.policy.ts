import { hasScope, isAdmin, type Principal } from "../../auth/principal.ts";
import type { Prisma } from "../../generated/prisma/client.ts";

/**
 * Who may see and manage user accounts: administrators every account; anyone else (org admins with
 * `users:*`) the accounts of their own organisation only, others being "not found". Nobody but an
 * administrator changes their own role; no one hands out a role larger than their own
 * (`canAssignRole` in the roles area).
 */
export function usersOrganisationFilter(p: Principal): number | null {
  return isAdmin(p) ? null : (p.orgId ?? -1);
}

/** The accounts `p` may see, as a filter of users (lists, lookups and GraphQL's user counts). */
export function usersVisibleTo(p: Principal): Prisma.UserWhereInput {
  const orgId = usersOrganisationFilter(p);
  return orgId === null ? {} : { orgId };
}

/**
 * The accounts counted for `p` where a count sits beside another resource (an organisation's or a
 * role's users over GraphQL): those `p` may list with users:read, none without it (or anonymous).
 */
export function usersCountedFor(p: Principal | null): Prisma.UserWhereInput {
  return p && hasScope(p, "users:read") ? usersVisibleTo(p) : { id: { in: [] } };
}

export function canManageUsersOf(p: Principal, orgId: number): boolean {
  return isAdmin(p) || orgId === p.orgId;
}

export function canChangeOwnRole(p: Principal): boolean {
  return isAdmin(p);
}
