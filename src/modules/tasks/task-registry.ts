import { isAdminLevelScope } from "../../auth/scopes.ts";
import { errors } from "../../platform/errors.ts";
import { generateCorrelationsTask } from "../correlations/generate-correlations-task.ts";
import { enforceRetentionTask } from "../retention/enforce-retention.ts";
import { purgeDeletedTask } from "../retention/purge-deleted.ts";
import { fetchFeedTask } from "../feeds/fetch-feed-task.ts";
import { runHuntTask } from "../hunts/run-hunt-task.ts";
import { runExportTask } from "../exports/run-export-task.ts";
import { instanceWide } from "./params.ts";
import type { RegisteredTask } from "./registered-task.ts";

/** The tasks /tasks can schedule and run. */
const TASKS: ReadonlyMap<string, RegisteredTask> = new Map([enforceRetentionTask, purgeDeletedTask, generateCorrelationsTask, fetchFeedTask, runHuntTask, runExportTask].map((t) => [t.name, checked(t)]));

/**
 * A task that names no record acts on every organisation's data: only holders of an admin-level
 * scope may schedule it. Refused when the registry loads, so such a task can never ship without one.
 */
function checked(task: RegisteredTask): RegisteredTask {
  if (task.checkTarget === instanceWide && !task.requiredScopes.some(isAdminLevelScope)) {
    throw new Error(`task ${task.name} is instance-wide but requires no admin-level scope`);
  }
  return task;
}

/** The peer's dotted form of task names. */
export const TASK_NAME_PREFIX = "app.worker.tasks.";

export const taskFullName = (name: string) => `${TASK_NAME_PREFIX}${name}`;

export function registeredTasks(): RegisteredTask[] {
  return [...TASKS.values()];
}

/** Finds a task by its short or dotted name; 422 naming `loc` otherwise. */
export function findTask(name: string, loc: (string | number)[]): RegisteredTask {
  const short = name.startsWith(TASK_NAME_PREFIX) ? name.slice(TASK_NAME_PREFIX.length) : name;
  const task = TASKS.get(short);
  if (!task) throw errors.invalidField(loc, `unknown task; known tasks: ${[...TASKS.keys()].join(", ")}`, name.slice(0, 200));
  return task;
}

/** The task a stored run or schedule names (they were checked when stored). */
export function taskNamed(name: string): RegisteredTask | undefined {
  return TASKS.get(name);
}
