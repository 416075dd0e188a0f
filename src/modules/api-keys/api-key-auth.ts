import crypto from "node:crypto";
import type pg from "pg";
import type { Principal, RequestOrigin } from "../../auth/principal.ts";
import type { AuthCache, CachedKey } from "../../auth/auth-cache.ts";
import { sharingGroupIdsSql } from "../../auth/sharing-group-membership.ts";

export const sha256Hex = (token: string) => crypto.createHash("sha256").update(token).digest("hex");

type KeyRow = CachedKey;

const AUTH_AUDIT_INTERVAL_MS = 60_000;

/**
 * API-key authentication: one indexed lookup by hash (never a scan or a string comparison loop),
 * then the spec 3.2 conditions. Effective permissions are the key's scopes intersected with the
 * owner's role as it is now, so a role change applies to the next request.
 */
export function apiKeyResolver(pool: pg.Pool, cache: AuthCache) {
  return async (token: string, origin: RequestOrigin): Promise<Principal | null> => {
    const hash = sha256Hex(token);
    const key = await cache.key(hash, async () => {
      const { rows } = await pool.query<KeyRow>(
        `SELECT k.id, k.user_id, k.scopes, k.disabled, k.admin_disabled, k.expires_at, k.last_used_at,
                u.email, u.org_id, u.role_id, u.disabled AS user_disabled, r.scopes AS role_scopes,
                ${sharingGroupIdsSql("u.org_id")} AS sharing_group_ids
           FROM api_keys k JOIN users u ON u.id = k.user_id JOIN roles r ON r.id = u.role_id
          WHERE k.token_hash = $1`,
        [hash],
      );
      return rows[0] ?? null;
    });
    if (!key || key.disabled || key.admin_disabled || key.user_disabled) return null;
    if (key.expires_at && key.expires_at.getTime() <= Date.now()) return null;
    if (!key.last_used_at || Date.now() - key.last_used_at.getTime() >= AUTH_AUDIT_INTERVAL_MS) {
      // Remembered locally first, so this process tries at most once a minute per key.
      cache.patchKey(hash, { last_used_at: new Date() });
      await recordAuthentication(pool, key, origin);
    }
    return {
      actorType: "api_key",
      userId: key.user_id,
      email: key.email,
      orgId: key.org_id,
      roleId: key.role_id,
      credentialId: key.id,
      tokenId: null,
      tokenExpiresAt: key.expires_at,
      grantSets: [key.role_scopes, key.scopes],
      sharingGroupIds: key.sharing_group_ids,
      ip: origin.ip,
      userAgent: origin.userAgent,
    };
  };
}

/**
 * Debounced in the database: the conditional UPDATE lets exactly one request per key and minute
 * through, across every API process, and the audit row is written by the same statement.
 */
async function recordAuthentication(pool: pg.Pool, key: KeyRow, origin: RequestOrigin): Promise<void> {
  await pool.query(
    `WITH touched AS (
       UPDATE api_keys SET last_used_at = now()
        WHERE id = $1 AND (last_used_at IS NULL OR last_used_at <= now() - interval '60 seconds')
        RETURNING id, user_id)
     INSERT INTO audit_logs (actor_type, actor_user_id, actor_credential_id, resource_type, resource_id, action, ip_address, user_agent)
     SELECT 'api_key', user_id, id, 'api_key', id, 'api_key.authenticated', $2, $3 FROM touched`,
    [key.id, origin.ip, origin.userAgent],
  );
}
