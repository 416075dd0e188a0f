import type { CronField } from "./schedule.ts";

/**
 * What a task run's, a scheduled task's, a schedule's and a registered task's fields mean, written
 * once for every adapter (GraphQL descriptions, REST serializer schemas, MCP tools). Names are the
 * service's; adapters add their own field names.
 */
export const TASK_DOC = {
  task: "The registered task's short name (for example enforce_retention)",
  taskName: "The task's full name, as the peer names it (app.worker.tasks.<name>)",
  args: "Positional arguments given to the task, an array: free-form because each registered task takes its own",
  kwargs: "Keyword arguments given to the task, an object: free-form because each registered task takes its own",
} as const;

export const TASK_RUN_DOC = {
  id: "The run's id (a UUID)",
  scheduledTaskId: "The scheduled task that queued it; null for a one-off run (a feed fetch, an upload's ingestion)",
  trigger: "What queued it: schedule, its schedule; manual, someone ran it now",
  status: "Its state: queued, running, succeeded, failed or cancelled",
  attempts: "Attempts started so far",
  maxAttempts: "Attempts allowed before it fails",
  lastError: "Why the last attempt failed (its error); null when none failed",
  result: "What the task answered when it succeeded (its own counts, ids): free-form because each task reports its own; null until it finishes",
  progress: "What the task reports of its progress while running (its own counters): free-form because each task reports its own; null before it reports",
  runAsUserId: "The user it runs as, whose rights the run has; null for a system run",
  jobId: "The job queue's id for the run; null before it is queued",
  queuedAt: "When it was queued",
  startedAt: "When its first attempt started; null before",
  finishedAt: "When it finished; null before",
} as const;

/** A task run's states. */
export const TASK_RUN_STATUS_DOC = {
  queued: "Waiting for a worker",
  running: "Being run (an attempt is under way or will be retried)",
  succeeded: "Finished successfully: result holds what it did",
  failed: "Finished with an error: the last error says why",
  cancelled: "Stopped before it finished",
} as const;

export const SCHEDULED_TASK_DOC = {
  id: "The scheduled task's id (a UUID)",
  name: "Its name",
  schedule: "When it runs",
  enabled: "False: paused",
  nextRunAt: "When it runs next; null while paused",
  lastRunAt: "When it last started a run; null if never",
  totalRunCount: "Runs queued so far",
  lastRun: "Its latest run; null if never run",
  lastRunId: "The last run's id; null if never run",
  lastRunStatus: "The last run's state; null if never run",
  ownerId: "Who scheduled it: the user it runs as, whose rights its runs have; null for a system task",
} as const;

/** A schedule's fields; the cron ones by their own (snake_case) names. */
export const SCHEDULE_DOC = {
  type: "Interval or crontab",
  every: "Interval schedules: how many periods between runs, the interval in its own unit (period); at most ten years in all",
  period: "Interval schedules: the unit the interval was given in",
  timezone: "Crontab schedules: the IANA time zone the fields are read in (default UTC)",
  description: "The schedule in words",
} as const;

export const CRON_DOC: Record<CronField, string> = {
  minute: "Cron minute field (0-59; * for any; lists, ranges, steps)",
  hour: "Cron hour field (0-23; * for any)",
  day_of_week: "Cron day-of-week field (0-6, Sunday 0; * for any)",
  day_of_month: "Cron day-of-month field (1-31; * for any)",
  month_of_year: "Cron month field (1-12; * for any)",
};

export const REGISTERED_TASK_DOC = {
  name: "Its short name (for example enforce_retention)",
  description: "What it does",
  requiredScopes: "The scopes scheduling or running it needs",
} as const;

/** The types' own descriptions, by the name both APIs give them. */
export const TASK_TYPES_DOC = {
  TaskRun: "One run of a task, queued by a schedule, by hand or by the service: its status, attempts, progress and result",
  ScheduledTask: "A registered task run on a schedule, as its owner",
  Schedule: "When a scheduled task runs",
  RegisteredTask: "A task that can be scheduled",
} as const;
