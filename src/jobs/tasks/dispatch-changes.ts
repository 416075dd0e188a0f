import type { Task } from "graphile-worker";
import { changeRangeJobKey } from "../../modules/changes/change-log.ts";
import { INDEX_CHANGES_TASK, SEARCH_INDEX_QUEUE } from "./index-changes.ts";
import { CORRELATE_CHANGES_TASK } from "./correlate-changes.ts";
import { CORRELATION_QUEUE } from "../../modules/correlations/rebuild.ts";
import { NOTIFY_CHANGES_TASK } from "./notify-changes.ts";

/**
 * Consumers of the change log, each a graphile-worker task that takes `{first_id, last_id}` and is
 * idempotent over its range. A consumer with a queue runs its jobs one at a time.
 */
export const CHANGE_CONSUMERS: { task: string; queueName?: string }[] = [
  { task: INDEX_CHANGES_TASK, queueName: SEARCH_INDEX_QUEUE },
  { task: CORRELATE_CHANGES_TASK, queueName: CORRELATION_QUEUE },
  { task: NOTIFY_CHANGES_TASK },
];

/** Fans one committed range of change records out to one job per consumer. */
export const dispatchChanges: Task = async (payload, helpers) => {
  const { first_id, last_id } = payload as { first_id: number; last_id: number };
  for (const { task, queueName } of CHANGE_CONSUMERS) {
    await helpers.addJob(task, { first_id, last_id }, { jobKey: changeRangeJobKey(task, first_id, last_id), ...(queueName ? { queueName } : {}) });
  }
};
