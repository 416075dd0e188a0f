import type { Task } from "graphile-worker";

/** Hourly: revoked access tokens past their expiry and refresh tokens expired for a day are useless. */
export const pruneExpiredTokens: Task = async (_payload, helpers) => {
  const revoked = await helpers.query("DELETE FROM revoked_access_tokens WHERE expires_at < now()");
  const refresh = await helpers.query("DELETE FROM refresh_tokens WHERE expires_at < now() - interval '1 day'");
  helpers.logger.info(`pruned ${revoked.rowCount} revoked access tokens and ${refresh.rowCount} refresh tokens`);
};
