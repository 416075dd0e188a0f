import type { Sql } from "../platform/db/transaction.ts";
import type { Principal } from "./principal.ts";
import { sharingGroupIdsSql } from "./sharing-group-membership.ts";

/**
 * The principal a background run acts as: the user's current role (read now, so a downgrade or a
 * disabled account applies to the next run) intersected with the scopes granted when it was queued.
 * Null when the user no longer exists or is disabled.
 */
export async function runAsPrincipal(sql: Sql, userId: number | null, grantedScopes: readonly string[]): Promise<Principal | null> {
  if (userId === null) return null;
  const { rows } = await sql.query<{ id: number; email: string; org_id: number; role_id: number; disabled: boolean; scopes: string[]; sharing_group_ids: number[] }>(
    `SELECT u.id, u.email, u.org_id, u.role_id, u.disabled, r.scopes, ${sharingGroupIdsSql("u.org_id")} AS sharing_group_ids
       FROM users u JOIN roles r ON r.id = u.role_id WHERE u.id = $1`,
    [userId],
  );
  const u = rows[0];
  if (!u || u.disabled) return null;
  return userPrincipal({ id: u.id, email: u.email, orgId: u.org_id, roleId: u.role_id, sharingGroupIds: u.sharing_group_ids }, [u.scopes, grantedScopes]);
}

/** A principal for work the service does on a user's behalf, outside any request. */
export function userPrincipal(
  u: { id: number; orgId: number; email?: string | null; roleId?: number | null; sharingGroupIds: readonly number[] },
  grantSets: readonly (readonly string[])[],
): Principal {
  return {
    actorType: "system",
    userId: u.id,
    email: u.email ?? null,
    orgId: u.orgId,
    roleId: u.roleId ?? null,
    credentialId: null,
    tokenId: null,
    tokenExpiresAt: null,
    grantSets,
    sharingGroupIds: u.sharingGroupIds,
    ip: null,
    userAgent: null,
  };
}
