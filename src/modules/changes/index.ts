/** The change log's public surface: what other areas (the indexer, jobs) import. */
export { changeRangeJobKey, EVENT_RESTORED, EVENT_SOFT_DELETED, isEventTrashChange, recordChanges, type Change, type EntityType } from "./change-log.ts";
