/**
 * What an export's fields mean, written once for every adapter (GraphQL descriptions, REST
 * serializer schemas, MCP tools). Names are the service's; adapters add their own field names.
 */
export const EXPORT_DOC = {
  id: "Numeric id of the export",
  userId: "Numeric id of its owner, whose rights each run reads with",
  name: "The export's name, 1 to 255 characters",
  query: "The Lucene query whose matches it exports (at most 65,536 characters)",
  indexTarget: "The index it reads: attributes or events",
  format: "The file format: json, csv, stix or misp",
  distribution: "MISP format only: the exported MISP event's distribution (0-4); null for the other formats",
  status: "The state of its last run: queued, running, completed or failed",
  storageKey: "Where its last complete file is stored; null before the first completes",
  fileSize: "Size of its last complete file in bytes; null before the first completes",
  recordCount: "Documents written: the progress of a running export, the total of a completed one",
  error: "Why the last run failed; null otherwise",
  taskRunId: "The task run of its latest run, which writes (or wrote) the file",
  schedule:
    "When it runs again: the peer's schedule object, {type: interval, every: seconds} or {type: crontab, minute, hour, day_of_week, day_of_month, month_of_year}; null without a schedule",
  scheduleEnabled: "The schedule runs it when true",
  scheduledTaskId: "The scheduled task that reruns it; null without a schedule",
  lastRunAt: "When it last ran; null if never",
  startedAt: "When the last run started; null if it never ran",
  finishedAt: "When the last run finished; null while none has",
} as const;

/** The types' own descriptions, by the name both APIs give them. */
export const EXPORT_TYPES_DOC = {
  Export: "A saved export of a Lucene query (its owner's): its file, status and schedule",
} as const;
