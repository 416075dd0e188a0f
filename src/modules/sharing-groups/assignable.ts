import { isAdmin, type Principal } from "../../auth/principal.ts";
import type { Sql } from "../../platform/db/transaction.ts";
import { InputError, type ValidationIssue } from "../../platform/errors.ts";

/** A sharing group a write names, and where the input named it (the service's vocabulary). */
export interface SharingGroupRef {
  id: number;
  loc: (string | number)[];
}

/**
 * Refuses (422, every offending field at once) a write that assigns data to a sharing group the
 * caller may not use: one that does not exist or that their organisation neither owns nor belongs to
 * (administrators: any existing group), or an inactive one. Runs on the writer's connection, so it
 * sees the group as the transaction does.
 */
export async function checkAssignableSharingGroups(sql: Sql, p: Principal, refs: readonly SharingGroupRef[]): Promise<void> {
  const wanted = refs.filter((r) => Number.isInteger(r.id));
  if (wanted.length === 0) return;
  const { rows } = await sql.query<{ id: number; active: boolean }>(
    `SELECT sg.id, sg.active FROM sharing_groups sg
      WHERE sg.id = ANY($1::int[])
        AND ($2 OR sg.org_id = $3 OR EXISTS (SELECT 1 FROM sharing_group_orgs m WHERE m.sharing_group_id = sg.id AND m.org_id = $3))`,
    [[...new Set(wanted.map((r) => r.id))], isAdmin(p), p.orgId],
  );
  const usable = new Map(rows.map((r) => [r.id, r.active]));
  const issues: ValidationIssue[] = [];
  for (const { id, loc } of wanted) {
    const active = usable.get(id);
    if (active === undefined) issues.push({ type: "value_error", loc, msg: "names no sharing group your organisation belongs to", input: id });
    else if (!active) issues.push({ type: "value_error", loc, msg: "names an inactive sharing group", input: id });
  }
  if (issues.length) throw new InputError(issues);
}
