import type { Task } from "graphile-worker";

/** Hourly: notification keys older than any retry of the job that made them (30 days). */
export const pruneNotificationKeys: Task = async (_payload, helpers) => {
  const { rowCount } = await helpers.query("DELETE FROM notification_keys WHERE created_at < now() - interval '30 days'");
  if (rowCount) helpers.logger.info(`pruned ${rowCount} notification keys`);
};
