import type { Sql } from "../platform/db/transaction.ts";
import type { Principal } from "./principal.ts";

/**
 * The principal a background run acts as: the user's current role (read now, so a downgrade or a
 * disabled account applies to the next run) intersected with the scopes granted when it was queued.
 * Null when the user no longer exists or is disabled.
 */
export async function runAsPrincipal(sql: Sql, userId: number | null, grantedScopes: readonly string[]): Promise<Principal | null> {
  if (userId === null) return null;
  const { rows } = await sql.query<{ id: number; email: string; org_id: number; role_id: number; disabled: boolean; scopes: string[] }>(
    "SELECT u.id, u.email, u.org_id, u.role_id, u.disabled, r.scopes FROM users u JOIN roles r ON r.id = u.role_id WHERE u.id = $1",
    [userId],
  );
  const u = rows[0];
  if (!u || u.disabled) return null;
  return {
    actorType: "system",
    userId: u.id,
    email: u.email,
    orgId: u.org_id,
    roleId: u.role_id,
    credentialId: null,
    tokenId: null,
    tokenExpiresAt: null,
    grantSets: [u.scopes, grantedScopes],
    ip: null,
    userAgent: null,
  };
}
