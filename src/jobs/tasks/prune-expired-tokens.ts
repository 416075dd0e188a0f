import type { Task } from "graphile-worker";

/**
 * Hourly: refresh tokens expired for a day are useless, and so are login throttle counters untouched
 * for a day (the failure window and lockouts are at most a day, so such counters restart at zero
 * anyway) and known login addresses older than the longest `auth.login_known_address_days`.
 */
export const pruneExpiredTokens: Task = async (_payload, helpers) => {
  const refresh = await helpers.query("DELETE FROM refresh_tokens WHERE expires_at < now() - interval '1 day'");
  const throttles = await helpers.query(
    "DELETE FROM login_throttles WHERE updated_at < now() - interval '1 day' AND (locked_until IS NULL OR locked_until < now() - interval '1 day')",
  );
  const known = await helpers.query("DELETE FROM login_known_addresses WHERE last_success_at < now() - interval '366 days'");
  helpers.logger.info(`pruned ${refresh.rowCount} refresh tokens, ${throttles.rowCount} login throttle counters and ${known.rowCount} known login addresses`);
};
