import { isAdminLevelScope } from "../../auth/scopes.ts";
import { errors } from "../../platform/errors.ts";
import { generateCorrelationsTask } from "../correlations/index.ts";
import { enforceRetentionTask } from "../retention/index.ts";
import { purgeDeletedTask } from "../retention/index.ts";
import { fetchFeedTask } from "../feeds/index.ts";
import { serverPullTask, serverPushTask } from "../servers/index.ts";
import { runHuntTask } from "../hunts/index.ts";
import { runExportTask } from "../exports/index.ts";
import { instanceWide } from "./params.ts";
import type { RegisteredTask } from "./registered-task.ts";

let registry: ReadonlyMap<string, RegisteredTask> | null = null;

/**
 * The tasks /tasks can schedule and run. Built at first use: the areas that define them import this
 * area's front door too, so at load time some of them may not be evaluated yet.
 */
function tasks(): ReadonlyMap<string, RegisteredTask> {
  registry ??= new Map([enforceRetentionTask, purgeDeletedTask, generateCorrelationsTask, fetchFeedTask, serverPullTask, serverPushTask, runHuntTask, runExportTask].map((t) => [t.name, checked(t)]));
  return registry;
}

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
  return [...tasks().values()];
}

/** Finds a task by its short or dotted name; an input error naming `task` otherwise. */
export function findTask(name: string): RegisteredTask {
  const short = name.startsWith(TASK_NAME_PREFIX) ? name.slice(TASK_NAME_PREFIX.length) : name;
  const task = tasks().get(short);
  if (!task) throw errors.invalidInput(["task"], `unknown task; known tasks: ${[...tasks().keys()].join(", ")}`, name.slice(0, 200));
  return task;
}

/** The task a stored run or schedule names (they were checked when stored). */
export function taskNamed(name: string): RegisteredTask | undefined {
  return tasks().get(name);
}
