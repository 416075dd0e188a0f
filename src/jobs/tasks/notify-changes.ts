import type { Task } from "graphile-worker";
import type { AppContext } from "../../app-context.ts";
import { notifyChangeRange } from "../../modules/notifications/index.ts";

/** Notifies the followers of what a range of change records touched; a retry creates no duplicate (dedupe keys). */
export function notifyChangesTask(ctx: AppContext): Task {
  return async (payload, helpers) => {
    const { first_id, last_id } = payload as { first_id: number; last_id: number };
    const created = await notifyChangeRange(ctx.db.pool, ctx.pubsub, first_id, last_id, { publicUrl: ctx.config.PUBLIC_URL });
    if (created) helpers.logger.debug(`${created} notifications for changes ${first_id}-${last_id}`);
  };
}
