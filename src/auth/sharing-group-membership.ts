/**
 * The sharing groups an organisation reads through (it owns them or is a member), as a SQL
 * expression over an organisation id column: every place that builds a principal from the
 * database selects it with the user, so a principal always carries its organisation's groups.
 * Membership changes notify `workbench_auth` (see the sharing_groups migration), which drops
 * cached principals in every process.
 */
export function sharingGroupIdsSql(orgIdColumn: string): string {
  return `ARRAY(SELECT sg.id FROM sharing_groups sg
                 WHERE sg.org_id = ${orgIdColumn}
                    OR EXISTS (SELECT 1 FROM sharing_group_orgs m WHERE m.sharing_group_id = sg.id AND m.org_id = ${orgIdColumn})
                 ORDER BY sg.id)`;
}
