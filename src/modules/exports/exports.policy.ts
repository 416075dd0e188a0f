import { isAdmin, type Principal } from "../../auth/principal.ts";
import type { Prisma } from "../../generated/prisma/client.ts";

/**
 * Who may do what with saved exports, for every entry point (REST, GraphQL, the run_export task when
 * it is scheduled and when each run starts): an export is its owner's; administrators see and manage
 * every export; anyone else is told it does not exist. A run always reads with the owner's access.
 */
export function canManageExport(p: Principal, e: { userId: number }): boolean {
  return isAdmin(p) || (p.userId !== null && e.userId === p.userId);
}

/** Listing other users' exports (`all=true`). */
export function canListOthersExports(p: Principal): boolean {
  return isAdmin(p);
}

/** The exports `p` manages, as a query's where (canManageExport's rule). */
export function managedExportWhere(p: Principal): Prisma.ExportWhereInput {
  return isAdmin(p) ? {} : { userId: p.userId ?? -1 };
}
