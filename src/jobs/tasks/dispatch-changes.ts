import type { Task } from "graphile-worker";
import { changeRangeJobKey } from "../../modules/changes/index.ts";
import {
  CORRELATE_CHANGES_TASK,
  CORRELATION_QUEUE,
  INDEX_CHANGES_TASK,
  NOTIFY_CHANGES_TASK,
  SEARCH_INDEX_QUEUE,
  type JobName,
} from "../../platform/job-names.ts";
import { enqueueJob } from "../../platform/job-queue.ts";

/**
 * Consumers of the change log, each a graphile-worker task that takes `{first_id, last_id}` and is
 * idempotent over its range. A consumer with a queue runs its jobs one at a time.
 */
const CHANGE_CONSUMERS: { task: JobName; queueName?: string }[] = [
  { task: INDEX_CHANGES_TASK, queueName: SEARCH_INDEX_QUEUE },
  { task: CORRELATE_CHANGES_TASK, queueName: CORRELATION_QUEUE },
  { task: NOTIFY_CHANGES_TASK },
];

/** Fans one committed range of change records out to one job per consumer. */
export const dispatchChanges: Task = async (payload, helpers) => {
  const { first_id, last_id } = payload as { first_id: number; last_id: number };
  for (const { task, queueName } of CHANGE_CONSUMERS) {
    await enqueueJob(helpers, task, { first_id, last_id }, { jobKey: changeRangeJobKey(task, first_id, last_id), queueName });
  }
};
