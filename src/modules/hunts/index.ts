/** The hunts area's front door: what the REST shim, GraphQL, MCP, jobs and other areas may use. */
export type { Hit } from "./hit-keys.ts";
export { HUNT_STATUSES, HUNT_TYPES, HUNT_TYPE_ALIASES, INDEX_TARGETS, MAX_QUERY_LENGTH } from "./hunt-definition.ts";
export { HuntEngine } from "./hunt-engine.ts";
export { HUNT_FREQUENCY_NAMES, frequencyOf } from "./hunt-schedule.ts";
export type { HuntFrequency } from "./hunt-schedule.ts";
export type { HuntRow, HuntRunRow } from "./hunt-store.ts";
export { huntCreateContract, huntListContract, huntPatchContract } from "./hunts.contracts.ts";
export type { HuntInput, HuntListQuery, HuntPatch } from "./hunts.contracts.ts";
export { HUNT_DOC, HUNT_HIT_DOC, HUNT_RESULT_DOC, HUNT_RUN_DOC, HUNT_TYPES_DOC, IS_NEW_DOC } from "./hunts.docs.ts";
export { HuntsService } from "./hunts.service.ts";
export type { HuntSelection } from "./hunts.service.ts";
export { runHuntTask } from "./run-hunt-task.ts";
