/**
 * What a hunt's and a hunt run's fields mean, written once for every adapter (GraphQL descriptions
 * here; the REST serializers and MCP tools may import the same text). Names are the service's.
 */
export const HUNT_DOC = {
  name: "Hunt name",
  description: "Free-text description",
  query: "The question, by hunt type: a Lucene query, a CPE 2.3 name, a vulnerability id, or ATT&CK technique codes, cluster uuids or tag names (at most 65,536 characters)",
  indexTarget: "The index a search or fw-attack-pattern hunt reads; null for cpe and rules hunts",
  status: "Active, or paused: its schedule skips it",
  schedule: "Its frequency: hourly, daily or weekly; custom when its scheduled task was changed through the task routes; null without a schedule",
  scheduleInput: "How often it runs: hourly, daily or weekly; null removes the schedule",
  scheduledTaskId: "The scheduled task that runs it; null without a schedule",
  nextRunAt: "When its schedule runs it next; null without an enabled schedule",
  lastRunAt: "When it last ran; null if never",
  lastRunStatus: "The last run's state, succeeded or failed; null if never run",
  lastRunError: "Why the last run failed; null after a success",
  lastMatchCount: "Hits of the last successful run; null before the first",
  lastSuccessAt: "When it last ran successfully; null if never",
} as const;

export const HUNT_RUN_DOC = {
  runAt: "When it ran",
  matchCount: "Hits found; null for a failed run",
  status: "Its state: succeeded or failed",
  error: "Why it failed; null for a success",
  trigger: "What ran it: manual or schedule",
  newHitCount: "Hits not in the previous successful run; null for a failed run",
  durationMs: "How long the run took, in milliseconds",
  taskRunId: "The task run that made it; null for a run by hand",
} as const;

/** A hit's `is_new`. */
export const IS_NEW_DOC = "True when this hit was not in the previous successful run's result (never on a first run)";
