/** The tasks area's front door: what the REST shim, GraphQL, MCP, jobs and other areas may use. */
export { instanceWide, noParams, taskKwargs } from "./params.ts";
export type { RegisteredTask, TaskExecution, TaskServices } from "./registered-task.ts";
export { crontabScheduleFields, intervalScheduleFields, peerSchedule, peerScheduleInput, peerScheduleShape, peerScheduleValue, pickCron, scheduleContract, scheduleOut } from "./schedule-contract.ts";
export { CRON_FIELDS, PERIOD_SECONDS, describeSchedule, intervalSeconds, nextRun, validateSchedule } from "./schedule.ts";
export type { CronField, Schedule } from "./schedule.ts";
export { queueRun, wakeTicker } from "./task-queue.ts";
export { taskFullName, taskNamed } from "./task-registry.ts";
export { scheduleOfRecord, taskRunRecord } from "./task-store.ts";
export { deleteScheduledTask, findScheduledTask, finishRun, insertScheduledTask, requeueRun, resumeCommandRun, saveRunProgress, startCommandRun, startRunAttempt, updateScheduledTask } from "./task-store.ts";
export type { ScheduledTaskRow, TaskRunRow } from "./task-store.ts";
export { CRON_DOC, REGISTERED_TASK_DOC, SCHEDULED_TASK_DOC, SCHEDULE_DOC, TASK_DOC, TASK_RUN_DOC, TASK_RUN_STATUS_DOC, TASK_TYPES_DOC } from "./tasks.docs.ts";
export { scheduleTaskContract, scheduledTaskPatchContract } from "./tasks.contracts.ts";
export type { ScheduleTaskInput, ScheduleTaskPatch } from "./tasks.contracts.ts";
export { TasksService } from "./tasks.service.ts";
export type { RunPageFilter } from "./tasks.service.ts";
export { tickSchedules } from "./tick.ts";
