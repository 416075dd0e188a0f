import { SEARCH_HUNT_MAX_HITS } from "./hunt-engine.ts";

/**
 * What a hunt's and a hunt run's fields mean, written once for every adapter (GraphQL descriptions
 * here; the REST serializers and MCP tools may import the same text). Names are the service's.
 */
export const HUNT_DOC = {
  id: "Numeric id of the hunt",
  userId: "Numeric id of its owner",
  name: "Hunt name",
  description: "Free-text description",
  query: "The question, by hunt type: a Lucene query, a CPE 2.3 name, a vulnerability id, or ATT&CK technique codes, cluster uuids or tag names (at most 65,536 characters)",
  huntType: "What it asks: search, cpe, rules or fw-attack-pattern",
  indexTarget: "The index a search or fw-attack-pattern hunt reads; null for cpe and rules hunts",
  status: "Active, or paused: its schedule skips it",
  schedule: "Its frequency: hourly, daily or weekly; custom for a cron line (cron) or a scheduled task changed through the task routes; null without a schedule",
  scheduleInput: "How often it runs: hourly, daily or weekly; null removes the schedule",
  cron: "Its cron line (minute hour day-of-month month day-of-week) when its schedule is one, read in UTC unless its scheduled task was given a time zone; null otherwise",
  cronInput: "A custom schedule instead of a frequency: one cron line, minute hour day-of-month month day-of-week, read in UTC (for example 30 6 * * 1-5); null removes the schedule",
  scheduledTaskId: "The scheduled task that runs it; null without a schedule",
  nextRunAt: "When its schedule runs it next; null without an enabled schedule",
  lastRunAt: "When it last ran; null if never",
  lastRunStatus: "The last run's state, succeeded or failed; null if never run",
  lastRunError: "Why the last run failed; null after a success",
  lastMatchCount: "Hits of the last successful run; null before the first",
  lastSuccessAt: "When it last ran successfully; null if never",
} as const;

export const HUNT_RUN_DOC = {
  id: "Numeric id of the run",
  runAt: "When it ran",
  matchCount: "Hits found; null for a failed run",
  status: "Its state: succeeded or failed",
  error: "Why it failed; null for a success",
  trigger: "What ran it: manual or schedule",
  newHitCount: "Hits not in the previous successful run; null for a failed run",
  durationMs: "How long the run took, in milliseconds",
  taskRunId: "The task run that made it; null for a run by hand",
} as const;

/** A hunt's result set. */
export const HUNT_RESULT_DOC = {
  hunt: "The hunt, with its counters after the run",
  total: `Number of hits (rules: the number of rules found); a search hunt's hits hold the newest ${SEARCH_HUNT_MAX_HITS}`,
  hits: "The hits, each marked new or not",
  hitCount: "Number of hits kept (the pages of hits count these; total may be more for a search hunt)",
  runAt: "When the run was made",
} as const;

/** A hit's fields, by hunt type; null (GraphQL) or absent (REST) where the adapters say so. */
export const HUNT_HIT_DOC = {
  uuid: "The document's uuid, an event's or attribute's (correlation documents have source_ and target_ uuids instead)",
  docKind: "What the document is, event or attribute, when the hunt reads both indices (index_target attributes_and_events)",
  cveId: "The CVE id, CVE-YYYY-N",
  severity: "CRITICAL, HIGH, MEDIUM or LOW, from the newest CVSS score",
  description: "The CVE's English description",
  title: "The rule's title",
  detailUrl: "The rule's page at the rules service",
} as const;

/** The types' own descriptions, by the name both APIs give them. */
export const HUNT_TYPES_DOC = {
  Hunt: "A saved question asked of the indices or of external services (spec 2.2), by hand or on a schedule; its owner is alerted when its answer changes",
  HuntRun: "One run of a hunt in its history (spec 2.2)",
  HuntResult: "A hunt's result set (spec 2.2): of the run just made, or the one cached by its last successful run",
  HuntDocumentHit: "A hit of a search or fw-attack-pattern hunt: a search document",
  HuntCveHit: "A hit of a cpe hunt: one CVE the vulnerability database lists for the CPE",
  HuntRuleHit: "A hit of a rules hunt: one detection rule the rules service lists for the vulnerability",
} as const;

/** A hit's `is_new`. */
export const IS_NEW_DOC = "True when this hit was not in the previous successful run's result (never on a first run)";
