import type { Task } from "graphile-worker";
import { enqueueChangeConsumers } from "../../modules/changes/index.ts";

/**
 * The fan-out job that ranges recorded before their consumers were enqueued by `recordChanges`
 * itself still carry: kept so that jobs pending at an upgrade lose no range. Nothing queues it now.
 */
export const dispatchChanges: Task = async (payload, helpers) => {
  const { first_id, last_id } = payload as { first_id: number; last_id: number };
  await enqueueChangeConsumers(helpers, first_id, last_id);
};
