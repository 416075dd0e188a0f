import { isAdmin, type Principal } from "../../auth/principal.ts";

/**
 * Who may see and manage user accounts: administrators every account; anyone else (org admins with
 * `users:*`) the accounts of their own organisation only, others being "not found". Nobody but an
 * administrator changes their own role; no one hands out a role larger than their own
 * (`canAssignRole` in the roles area).
 */
export function usersOrganisationFilter(p: Principal): number | null {
  return isAdmin(p) ? null : (p.orgId ?? -1);
}

export function canManageUsersOf(p: Principal, orgId: number): boolean {
  return isAdmin(p) || orgId === p.orgId;
}

export function canChangeOwnRole(p: Principal): boolean {
  return isAdmin(p);
}
