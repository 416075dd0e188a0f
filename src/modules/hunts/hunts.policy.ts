import { isAdmin, type Principal } from "../../auth/principal.ts";
import type { Prisma } from "../../generated/prisma/client.ts";

/**
 * Who may do what with hunts, for every entry point (REST, GraphQL, the run_hunt task when it is
 * scheduled and when each run starts): a hunt is its owner's; administrators see and manage every
 * hunt; anyone else is told it does not exist. A run always searches with the owner's access.
 */
export function canManageHunt(p: Principal, hunt: { userId: number }): boolean {
  return isAdmin(p) || (p.userId !== null && hunt.userId === p.userId);
}

/** Listing another user's hunts (`all=true`, `user_id=`). */
export function canListOthersHunts(p: Principal): boolean {
  return isAdmin(p);
}

/** The hunts `p` manages, as a query's where (canManageHunt's rule). */
export function managedHuntWhere(p: Principal): Prisma.HuntWhereInput {
  return isAdmin(p) ? {} : { userId: p.userId ?? -1 };
}
