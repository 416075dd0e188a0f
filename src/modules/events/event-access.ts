import { isAdmin, type Principal } from "../../auth/principal.ts";

/**
 * Who may see and change an event, MISP-style on one instance: distribution 0 (your organisation
 * only) and 4 (sharing group, not supported yet: treated as restricted) are visible to the owning
 * and the creating organisation; 1-3 (community, connected, all) to every authenticated user with
 * the read scope. Only the owning organisation (and administrators) change or delete an event.
 */
export interface EventAccessFields {
  distribution: number;
  orgId: number;
  orgcId: number;
}

export function canReadEvent(p: Principal, e: EventAccessFields): boolean {
  return isAdmin(p) || (e.distribution >= 1 && e.distribution <= 3) || e.orgId === p.orgId || e.orgcId === p.orgId;
}

export function canWriteEvent(p: Principal, e: { orgId: number }): boolean {
  return isAdmin(p) || e.orgId === p.orgId;
}

/** The same rule as SQL over an events alias; parameters are appended to `params`. */
export function readableEventsSql(p: Principal, alias: string, params: unknown[]): string {
  if (isAdmin(p)) return "TRUE";
  params.push(p.orgId ?? -1);
  const n = params.length;
  return `(${alias}.distribution BETWEEN 1 AND 3 OR ${alias}.org_id = $${n} OR ${alias}.orgc_id = $${n})`;
}
