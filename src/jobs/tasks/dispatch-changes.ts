import type { Task } from "graphile-worker";
import { enqueueChangeConsumers } from "../../modules/changes/index.ts";

/**
 * Fans one committed range of change records out to one job per consumer. Writers enqueue the
 * consumers themselves now (`recordChanges`); the task stays for dispatch jobs queued before an upgrade.
 */
export const dispatchChanges: Task = async (payload, helpers) => {
  const { first_id, last_id } = payload as { first_id: number; last_id: number };
  await enqueueChangeConsumers(helpers, first_id, last_id);
};
