/** The change log's front door: what other areas (the indexer, jobs, writers) use. */
export { EVENT_RESTORED, EVENT_SOFT_DELETED, changeRangeJobKey, enqueueChangeConsumers, enqueueChangeRanges, isEventTrashChange, recordChanges } from "./change-log.ts";
export type { Change, EntityType } from "./change-log.ts";
