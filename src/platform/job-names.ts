/**
 * Every graphile-worker task and queue name, in one place: the worker's task list and crontab
 * (src/jobs/worker.ts) and every enqueuer import them, so a job is never queued under a name no
 * task answers to.
 */
export const PRUNE_EXPIRED_TOKENS_TASK = "prune_expired_tokens";
export const PRUNE_NOTIFICATION_KEYS_TASK = "prune_notification_keys";
export const PRUNE_FEED_UPLOADS_TASK = "prune_feed_uploads";
export const DISPATCH_CHANGES_TASK = "dispatch_changes";
export const INDEX_CHANGES_TASK = "index_changes";
export const REINDEX_STALE_ACCESS_TASK = "reindex_stale_access";
export const COMPACT_SEARCH_INDEXES_TASK = "compact_search_indexes";
export const CORRELATE_CHANGES_TASK = "correlate_changes";
export const REBUILD_CORRELATIONS_TASK = "rebuild_correlations";
export const NOTIFY_CHANGES_TASK = "notify_changes";
export const SEND_EMAIL_TASK = "send_email";
export const EMAIL_DIGEST_TASK = "email_digest";
/** Executes one run of a registered task (src/modules/tasks). */
export const RUN_TASK_TASK = "run_task";
/** Fires due schedules. */
export const TICK_SCHEDULES_TASK = "tick_schedules";
/** Recomputes every attribute's warninglist hits after the enabled lists changed. */
export const RECOMPUTE_WARNINGLIST_HITS_TASK = "recompute_warninglist_hits";

export type JobName =
  | typeof PRUNE_EXPIRED_TOKENS_TASK
  | typeof PRUNE_NOTIFICATION_KEYS_TASK
  | typeof PRUNE_FEED_UPLOADS_TASK
  | typeof DISPATCH_CHANGES_TASK
  | typeof INDEX_CHANGES_TASK
  | typeof REINDEX_STALE_ACCESS_TASK
  | typeof COMPACT_SEARCH_INDEXES_TASK
  | typeof CORRELATE_CHANGES_TASK
  | typeof REBUILD_CORRELATIONS_TASK
  | typeof NOTIFY_CHANGES_TASK
  | typeof SEND_EMAIL_TASK
  | typeof EMAIL_DIGEST_TASK
  | typeof RUN_TASK_TASK
  | typeof TICK_SCHEDULES_TASK
  | typeof RECOMPUTE_WARNINGLIST_HITS_TASK;

/** One job at a time: two jobs reading and writing the same document concurrently could leave the older copy. */
export const SEARCH_INDEX_QUEUE = "search_index";
/** Incremental and rebuild jobs share one queue: one correlation job runs at a time. */
export const CORRELATION_QUEUE = "correlation";
/** One recomputation of warninglist hits at a time (a later change queues the next one). */
export const WARNINGLIST_QUEUE = "warninglists";
